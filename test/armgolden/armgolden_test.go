/*
Copyright 2026 The Cluster API Provider Azure ASO Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package armgolden

import (
	"os"
	"path/filepath"
	"testing"

	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
)

const (
	sub = "00000000-0000-0000-0000-000000000001"
	rg  = "/subscriptions/" + sub + "/resourceGroups/dflt-x1y2z"
)

var names = Names{Subscription: sub, Cluster: "dflt-x1y2z", Namespace: "flavor-default-abcde"}

// TestNormalize: the run's names become placeholders, in values and tag keys, the machine's first and the API
// server's DNS label before the cluster's name; secrets and random values are redacted.
func TestNormalize(t *testing.T) {
	g := NewWithT(t)
	label := names.apiServerDNSLabel()
	body := map[string]any{
		"name": "dflt-x1y2z-control-plane-q8z4c",
		"tags": map[string]any{"sigs.k8s.io_cluster-api-provider-azure_cluster_dflt-x1y2z": "owned", "capz-custom-data-hash": "abc"},
		"properties": map[string]any{
			"osProfile":         map[string]any{"customData": "I2Nsb3Vk", "adminPassword": "Aa1!x", "computerName": "dflt-x1y2z-control-plane-q8z4c"},
			"dnsSettings":       map[string]any{"fqdn": label + ".eastus.cloudapp.azure.com"},
			"subnet":            map[string]any{"id": rg + "/providers/Microsoft.Network/virtualNetworks/dflt-x1y2z-vnet/subnets/s"},
			"protectedSettings": map[string]any{"commandToExecute": "secret"},
			"agentPoolProfiles": []any{map[string]any{"name": "pool1"}, map[string]any{"name": "pool0"}},
		},
		"zones": []any{"2"},
	}
	got := Normalize(body, names, "dflt-x1y2z-control-plane-q8z4c", "Microsoft.Compute/virtualMachines")
	g.Expect(got).To(Equal(map[string]any{
		"name": "${MACHINE}",
		"tags": map[string]any{"sigs.k8s.io_cluster-api-provider-azure_cluster_${CLUSTER}": "owned", "capz-custom-data-hash": "<redacted>"},
		"properties": map[string]any{
			"osProfile":         map[string]any{"customData": "<redacted>", "adminPassword": "<redacted>", "computerName": "${MACHINE}"},
			"dnsSettings":       map[string]any{"fqdn": "${APISERVER_DNS_LABEL}.eastus.cloudapp.azure.com"},
			"subnet":            map[string]any{"id": "/subscriptions/${SUBSCRIPTION}/resourceGroups/${CLUSTER}/providers/Microsoft.Network/virtualNetworks/${CLUSTER}-vnet/subnets/s"},
			"protectedSettings": map[string]any{"commandToExecute": "<redacted>"},
			"agentPoolProfiles": []any{map[string]any{"name": "pool0"}, map[string]any{"name": "pool1"}},
		},
		"zones": []any{"${FAILURE_DOMAIN}"},
	}))
	g.Expect(Normalize(map[string]any{"name": "6b4f"}, names, "", roleAssignmentType)).To(Equal(map[string]any{"name": "<redacted>"}))
	g.Expect(names.NormalizeID("/subscriptions/"+sub+"/providers/Microsoft.Authorization/roleAssignments/6b4f", "")).To(
		Equal("/subscriptions/${SUBSCRIPTION}/providers/Microsoft.Authorization/roleAssignments/<redacted>"))
}

// TestSet: resources of one kind and role share an entry when their bodies are equal, and fail otherwise; Diff and
// Check report what differs, and Check writes only with UPDATE_GOLDENS=1.
func TestSet(t *testing.T) {
	g := NewWithT(t)
	role := Role{Name: "md-0", Instance: "dflt-x1y2z-md-0-abcde-fghij"}
	id := rg + "/providers/Microsoft.Compute/virtualMachines/dflt-x1y2z-md-0-abcde-fghij"
	e, err := NewEntry(id, role, names, map[string]any{"properties": map[string]any{"hardwareProfile": map[string]any{"vmSize": "Standard_D4s_v3"}}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(e.File()).To(Equal("md-0--virtualMachines--MACHINE.yaml"))
	s := Set{}
	g.Expect(s.Add(e)).To(Succeed())
	other, err := NewEntry(rg+"/providers/Microsoft.Compute/virtualMachines/dflt-x1y2z-md-0-abcde-klmno",
		Role{Name: "md-0", Instance: "dflt-x1y2z-md-0-abcde-klmno"}, names, map[string]any{"properties": map[string]any{"hardwareProfile": map[string]any{"vmSize": "Standard_D4s_v3"}}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(s.Add(other)).To(Succeed(), "a second worker of the same body shares the entry")
	other.Body = map[string]any{"properties": map[string]any{"hardwareProfile": map[string]any{"vmSize": "Standard_D8s_v3"}}}
	g.Expect(s.Add(other)).To(MatchError(ContainSubstring("differ")))

	dir := filepath.Join(t.TempDir(), "default")
	g.Expect(Check(dir, s)).To(MatchError(ContainSubstring("no golden files")))
	t.Setenv(UpdateEnv, "1")
	g.Expect(Check(dir, s)).To(Succeed())
	t.Setenv(UpdateEnv, "")
	g.Expect(Check(dir, s)).To(Succeed())
	changed := Set{e.File(): other}
	g.Expect(Check(dir, changed)).To(MatchError(ContainSubstring("Standard_D8s_v3")))
	g.Expect(Diff(s, Set{}, "a", "b")).To(ContainSubstring("only in a"))
	files, err := os.ReadDir(dir)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(files).To(HaveLen(1))
}

// TestRender converts an ASO object with ASO's own conversion, its Kubernetes references resolved to the
// resource IDs of the objects they name and its secrets to their values.
func TestRender(t *testing.T) {
	g := NewWithT(t)
	s := scheme.New()
	nsg := &asonetwork.NetworkSecurityGroup{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns", Name: "nsg", Annotations: map[string]string{genruntime.ResourceIDAnnotation: rg + "/providers/Microsoft.Network/networkSecurityGroups/nsg"},
	}}
	reader := fake.NewClientBuilder().WithScheme(s).WithObjects(nsg, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s"}}).Build()
	subnet := &asonetwork.VirtualNetworksSubnet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vnet-subnet"},
		Spec: asonetwork.VirtualNetworksSubnet_Spec{
			AzureName:       "subnet",
			AddressPrefixes: []string{"10.0.0.0/16"},
			NetworkSecurityGroup: &asonetwork.NetworkSecurityGroupSpec_VirtualNetworks_Subnet_SubResourceEmbedded{
				Reference: &genruntime.ResourceReference{Group: "network.azure.com", Kind: "NetworkSecurityGroup", Name: "nsg"},
			},
			RouteTable: &asonetwork.RouteTableSpec_VirtualNetworks_Subnet_SubResourceEmbedded{
				Reference: &genruntime.ResourceReference{ARMID: rg + "/providers/Microsoft.Network/routeTables/rt"},
			},
			PrivateEndpointNetworkPolicies: ptr.To(asonetwork.SubnetPropertiesFormat_PrivateEndpointNetworkPolicies_Disabled),
		},
	}
	body, err := Render(t.Context(), reader, s, subnet)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(body).To(Equal(map[string]any{
		"name": "subnet",
		"properties": map[string]any{
			"addressPrefixes":                []any{"10.0.0.0/16"},
			"networkSecurityGroup":           map[string]any{"id": rg + "/providers/Microsoft.Network/networkSecurityGroups/nsg"},
			"routeTable":                     map[string]any{"id": rg + "/providers/Microsoft.Network/routeTables/rt"},
			"privateEndpointNetworkPolicies": "Disabled",
		},
	}))

	// A reference to an object ASO has not created yet cannot be resolved.
	subnet.Spec.NetworkSecurityGroup.Reference.Name = "other"
	_, err = Render(t.Context(), reader, s, subnet)
	g.Expect(err).To(HaveOccurred())
}
