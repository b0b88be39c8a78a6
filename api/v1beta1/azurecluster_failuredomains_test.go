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

package v1beta1

import (
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// capzStatus is the status of an AzureCluster as CAPZ v1.26.0 writes it: Cluster API's v1beta1 contract, with
// failure domains as a map and v1beta1 conditions (with a severity).
const capzStatus = `{
	"ready": true,
	"failureDomains": {"1": {"controlPlane": true}, "2": {"controlPlane": true}},
	"conditions": [
		{"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-01T10:00:00Z"},
		{"type": "NetworkInfrastructureReady", "status": "False", "severity": "Warning", "reason": "Deleting", "lastTransitionTime": "2026-11-01T10:00:00Z"}
	],
	"longRunningOperationStates": [{"type": "PUT", "serviceName": "virtualnetworks", "name": "vnet", "resourceGroup": "rg", "data": "e30="}]
}`

func TestAzureClusterStatus_ReadsWhatCAPZWrote(t *testing.T) {
	g := NewWithT(t)

	// The way the API server's JSON reaches a typed client.
	var status AzureClusterStatus
	g.Expect(json.Unmarshal([]byte(capzStatus), &status)).To(Succeed())
	g.Expect(status.FailureDomains).To(BeNil(), "CAPZ's map is read as none, for the provider to write the list")
	g.Expect(status.Conditions).To(HaveLen(2))
	g.Expect(status.Conditions[1]).To(Equal(metav1.Condition{
		Type: "NetworkInfrastructureReady", Status: metav1.ConditionFalse, Reason: "Deleting",
		LastTransitionTime: metav1.NewTime(status.Conditions[1].LastTransitionTime.Time),
	}))

	// The way a cache of unstructured objects, or a converter, reaches a typed object.
	var raw map[string]any
	g.Expect(json.Unmarshal([]byte(`{"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureCluster",
		"metadata": {"name": "c", "namespace": "ns"}, "status": `+capzStatus+`}`), &raw)).To(Succeed())
	ac := &AzureCluster{}
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(raw, ac)).To(Succeed())
	g.Expect(ac.Status.FailureDomains).To(BeNil())
	g.Expect(ac.Status.Conditions).To(HaveLen(2))
}

func TestAzureClusterStatus_FailureDomainsRoundTrip(t *testing.T) {
	g := NewWithT(t)
	in := AzureClusterStatus{FailureDomains: FailureDomainList{
		{Name: "1", ControlPlane: ptr.To(true)},
		{Name: "2", ControlPlane: ptr.To(false), Attributes: map[string]string{"zone": "2"}},
	}}
	data, err := json.Marshal(in)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(data)).To(ContainSubstring(`"failureDomains":[{"name":"1","controlPlane":true}`))
	var out AzureClusterStatus
	g.Expect(json.Unmarshal(data, &out)).To(Succeed())
	g.Expect(out).To(Equal(in))

	g.Expect(json.Unmarshal([]byte(`{"failureDomains": "zone-1"}`), &out)).NotTo(Succeed(), "neither a list nor CAPZ's map")
	g.Expect([]clusterv1.FailureDomain(out.FailureDomains)).To(HaveLen(2), "a failed read keeps what was there")
}
