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

package v1beta1_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/fieldpath"
)

// specTypes are the spec types of every kind the provider serves.
var specTypes = map[string]reflect.Type{
	"AzureCluster":                        reflect.TypeFor[infrav1.AzureClusterSpec](),
	"AzureClusterTemplate":                reflect.TypeFor[infrav1.AzureClusterTemplateSpec](),
	"AzureClusterIdentity":                reflect.TypeFor[infrav1.AzureClusterIdentitySpec](),
	"AzureMachine":                        reflect.TypeFor[infrav1.AzureMachineSpec](),
	"AzureMachineTemplate":                reflect.TypeFor[infrav1.AzureMachineTemplateSpec](),
	"AzureManagedControlPlane":            reflect.TypeFor[infrav1.AzureManagedControlPlaneSpec](),
	"AzureManagedControlPlaneTemplate":    reflect.TypeFor[infrav1.AzureManagedControlPlaneTemplateSpec](),
	"AzureManagedCluster":                 reflect.TypeFor[infrav1.AzureManagedClusterSpec](),
	"AzureManagedClusterTemplate":         reflect.TypeFor[infrav1.AzureManagedClusterTemplateSpec](),
	"AzureManagedMachinePool":             reflect.TypeFor[infrav1.AzureManagedMachinePoolSpec](),
	"AzureManagedMachinePoolTemplate":     reflect.TypeFor[infrav1.AzureManagedMachinePoolTemplateSpec](),
	"AzureASOManagedCluster":              reflect.TypeFor[infrav1.AzureASOManagedClusterSpec](),
	"AzureASOManagedClusterTemplate":      reflect.TypeFor[infrav1.AzureASOManagedClusterTemplateSpec](),
	"AzureASOManagedControlPlane":         reflect.TypeFor[infrav1.AzureASOManagedControlPlaneSpec](),
	"AzureASOManagedControlPlaneTemplate": reflect.TypeFor[infrav1.AzureASOManagedControlPlaneTemplateSpec](),
	"AzureASOManagedMachinePool":          reflect.TypeFor[infrav1.AzureASOManagedMachinePoolSpec](),
	"AzureASOManagedMachinePoolTemplate":  reflect.TypeFor[infrav1.AzureASOManagedMachinePoolTemplateSpec](),
	"AzureMachinePool":                    reflect.TypeFor[infrav1exp.AzureMachinePoolSpec](),
	"AzureMachinePoolMachine":             reflect.TypeFor[infrav1exp.AzureMachinePoolMachineSpec](),
}

// Proofs name the test that shows that a field changes what the provider makes: "<package dir>.<TestName>". The
// translators' field-coverage tests set every field of their kind to a distinctive value and find each value in the
// translated objects, except for fields they exclude with a reason; those are proven here one by one.
const (
	capiCopiesTemplateMetadata = "cluster-api: Cluster API copies a template's metadata to the objects it makes from it"
	// capzIgnores marks a field CAPZ deprecated and ignores: it is admitted with a warning, so that CAPZ manifests
	// apply unchanged, and has no effect here either.
	capzIgnores = "capz-ignores: "
)

// fieldProofs maps every kind to its proofs, by field path prefix; the longest prefix of a field wins. Template
// kinds use the proofs of the kind they make for spec.template.spec.
var fieldProofs = map[string]map[string]string{
	"AzureCluster": {
		"":                                            "azure/network.TestClusterResources_EveryField",
		"identityRef":                                 "controllers/azurecluster.TestReconcile_IdentityAllowedAndRevoked",
		"azureEnvironment":                            "api/v1beta1.TestDefaults_FieldsDefaultingConsumes",
		"cloudProviderConfigOverrides":                "azure/cloudconfig.TestAzureJSON_EveryOverride",
		"failureDomains":                              "azure.TestFailureDomains",
		"asoPatches":                                  "azure/aso.TestReconcile_Patches",
		"controlPlaneEnabled":                         "azure/network.TestClusterResources",
		"controlPlaneEndpoint":                        "controllers/azurecluster.TestReconcile_DefaultCluster",
		"networkSpec.privateDNSZone":                  "azure/network.TestClusterResources_PrivateDNSZoneNone",
		"networkSpec.subnets[].role":                  "azure/network.TestClusterResources",
		"bastionSpec.azureBastion.subnet.role":        "api/v1beta1.TestAdmission_RejectsInvalidManifests",
		"networkSpec.apiServerLB.type":                "azure/network.TestClusterResources",
		"networkSpec.nodeOutboundLB.type":             "api/v1beta1.TestAdmission_RejectsInvalidManifests",
		"networkSpec.controlPlaneOutboundLB.type":     "api/v1beta1.TestAdmission_RejectsInvalidManifests",
		"networkSpec.nodeOutboundLB.frontendIPsCount": "api/v1beta1.TestDefaults_FieldsDefaultingConsumes",
		"networkSpec.controlPlaneOutboundLB.frontendIPsCount": "api/v1beta1.TestDefaults_FieldsDefaultingConsumes",
	},
	"AzureClusterIdentity": {
		"":                  "azure/aso.TestEnsureCredentials",
		"allowedNamespaces": "azure/aso.TestCredentials_TenancyMatrix",
		"resourceID":        capzIgnores + "CAPZ deprecated it and ignores it; the webhook warns",
	},
	"AzureMachine": {
		"":                      "azure/compute.TestMachineResources_FieldCoverage",
		"providerID":            "controllers/azuremachine.TestReconcile_ControlPlaneMachine",
		"failureDomain":         "controllers/azuremachine.TestReconcile_ControlPlaneMachine",
		"roleAssignmentName":    "api/v1beta1.TestDefaults_FieldsDefaultingConsumes",
		"subnetName":            "api/v1beta1.TestDefaults_FieldsDefaultingConsumes",
		"acceleratedNetworking": "api/v1beta1.TestDefaults_FieldsDefaultingConsumes",
		"asoPatches":            "azure/aso.TestReconcile_Patches",
	},
	"AzureManagedControlPlane": {
		"":                         "azure/aks.TestControlPlaneResources_FieldCoverage",
		"machineTemplate":          "cluster-api: the control plane contract's field for ClusterClass; AKS nodes are not Machines",
		"identityRef":              "controllers/azuremanagedcontrolplane.TestReconcile_AKSCluster",
		"subscriptionID":           "controllers/azuremanagedcontrolplane.TestReconcile_AKSCluster",
		"azureEnvironment":         "api/v1beta1.TestDefaults_FieldsDefaultingConsumes",
		"asoManagedClusterPatches": "controllers/azuremanagedcontrolplane.TestReconcile_AKSCluster",
		"asoPatches":               "azure/aso.TestReconcile_Patches",
		"controlPlaneEndpoint":     "controllers/azuremanagedcontrolplane.TestReconcile_AKSCluster",
	},
	"AzureManagedCluster": {
		"controlPlaneEndpoint": "controllers/azuremanagedcontrolplane.TestReconcile_AKSCluster",
	},
	"AzureManagedMachinePool": {
		"":                                   "azure/aks.TestAgentPool_FieldCoverage",
		"asoManagedClustersAgentPoolPatches": "controllers/azuremanagedcontrolplane.TestReconcile_AutoscalingUserPoolAndPause",
		"asoPatches":                         "azure/aso.TestReconcile_Patches",
		"providerIDList":                     "controllers/azuremanagedcontrolplane.TestReconcile_AutoscalingUserPoolAndPause",
	},
	"AzureASOManagedCluster": {
		"resources":            "controllers/azureasomanagedcontrolplane.TestReconcile_ASOManagedCluster",
		"controlPlaneEndpoint": "controllers/azureasomanagedcontrolplane.TestReconcile_ASOManagedCluster",
	},
	"AzureASOManagedControlPlane": {
		"resources": "controllers/azureasomanagedcontrolplane.TestReconcile_ASOManagedCluster",
		"version":   "controllers/azureasomanagedcontrolplane.TestReconcile_ASOManagedCluster",
	},
	"AzureASOManagedMachinePool": {
		"resources":      "controllers/azureasomanagedcontrolplane.TestReconcile_ASOManagedCluster",
		"providerIDList": "controllers/azureasomanagedcontrolplane.TestReconcile_ASOManagedCluster",
	},
	"AzureMachinePool": {
		"":                               "azure/compute.TestMachinePoolResources_FieldCoverage",
		"providerID":                     "exp/controllers/azuremachinepool.TestFlexible_ScaleAndDelete",
		"providerIDList":                 "exp/controllers/azuremachinepool.TestFlexible_ScaleAndDelete",
		"roleAssignmentName":             "exp/api/v1beta1.TestAzureMachinePool_SetDefaults",
		"template.subnetName":            "exp/api/v1beta1.TestAzureMachinePool_SetDefaults",
		"template.acceleratedNetworking": "exp/api/v1beta1.TestAzureMachinePool_SetDefaults",
		"asoPatches":                     "azure/aso.TestReconcile_Patches",
		"strategy":                       "exp/controllers/azuremachinepool.TestPlanRollout",
	},
	"AzureMachinePoolMachine": {
		"providerID": "exp/controllers/azuremachinepoolmachine.TestUpdateStatus_ProvisionedStaysAndReadyNeedsTheLatestModel",
		"instanceID": "api/v1beta1.TestAdmission_CAPZObjectsAfterASwitch",
		"model":      "exp/controllers/azuremachinepoolmachine.TestUpdateStatus_ProvisionedStaysAndReadyNeedsTheLatestModel",
	},
}

// templateOf is the kind a template kind makes.
var templateOf = map[string]string{
	"AzureClusterTemplate":                "AzureCluster",
	"AzureMachineTemplate":                "AzureMachine",
	"AzureManagedControlPlaneTemplate":    "AzureManagedControlPlane",
	"AzureManagedClusterTemplate":         "AzureManagedCluster",
	"AzureManagedMachinePoolTemplate":     "AzureManagedMachinePool",
	"AzureASOManagedClusterTemplate":      "AzureASOManagedCluster",
	"AzureASOManagedControlPlaneTemplate": "AzureASOManagedControlPlane",
	"AzureASOManagedMachinePoolTemplate":  "AzureASOManagedMachinePool",
}

// TestFieldSupport walks every spec field of every kind and sets it alone: the webhook's check of implemented
// fields must either reject it with "field not supported yet", or admit it, and then a test must prove that the
// field changes what the provider makes (fieldProofs). Every proof must name an existing test. "make
// crd-coverage" prints the numbers.
func TestFieldSupport(t *testing.T) {
	g := NewWithT(t)
	kinds := make([]string, 0, len(specTypes))
	for kind := range specTypes {
		kinds = append(kinds, kind)
	}
	sort.Strings(kinds)
	usedProofs := map[string]map[string]bool{}
	totalImplemented, totalRejected, totalIgnored := 0, 0, 0
	for _, kind := range kinds {
		implemented, rejected, ignored := 0, 0, 0
		for _, f := range specLeaves(specTypes[kind]) {
			spec := reflect.New(specTypes[kind])
			f.set(spec.Elem())
			errs := infrav1.ValidateImplementedFields(kind, spec.Interface())
			if len(errs) > 0 {
				for _, e := range errs {
					g.Expect(e.Detail).To(Equal("field not supported yet"), "%s %s: %v", kind, f.path, e)
					g.Expect("spec."+f.path == e.Field || strings.HasPrefix("spec."+f.path, e.Field+".") ||
						strings.HasPrefix("spec."+f.path, e.Field+"[")).To(BeTrue(), "%s %s: the error names %s", kind, f.path, e.Field)
				}
				g.Expect(infrav1.IsFieldImplemented(kind, f.pattern)).To(BeFalse(), "%s %s is rejected, yet IsFieldImplemented says it is implemented", kind, f.pattern)
				rejected++
				continue
			}
			g.Expect(infrav1.IsFieldImplemented(kind, f.pattern)).To(BeTrue(), "%s %s is admitted, yet IsFieldImplemented says it is not", kind, f.pattern)
			proofKind, prefix, proof := proofOf(kind, f.pattern)
			if proof == "" {
				t.Errorf("%s %s is admitted: implement it and prove it (fieldProofs), or reject it", kind, f.pattern)
				continue
			}
			if usedProofs[proofKind] == nil {
				usedProofs[proofKind] = map[string]bool{}
			}
			usedProofs[proofKind][prefix] = true
			if strings.HasPrefix(proof, capzIgnores) {
				ignored++
				continue
			}
			implemented++
		}
		t.Logf("%-36s %4d implemented, %4d rejected (field not supported yet), %d ignored as CAPZ does", kind, implemented, rejected, ignored)
		totalImplemented += implemented
		totalRejected += rejected
		totalIgnored += ignored
	}
	t.Logf("total: %d spec fields implemented with a proof, %d rejected, %d ignored as CAPZ does", totalImplemented, totalRejected, totalIgnored)

	for kind, proofs := range fieldProofs {
		for prefix, proof := range proofs {
			g.Expect(usedProofs[kind][prefix]).To(BeTrue(), "fieldProofs[%s][%q] proves no admitted field", kind, prefix)
			checkProof(g, proof)
		}
	}
}

// proofOf finds the proof of a field, by the longest matching prefix; a template's spec.template.spec fields are
// proven as the fields of the kind it makes.
func proofOf(kind, pattern string) (string, string, string) {
	if made, ok := templateOf[kind]; ok {
		if rest, ok := strings.CutPrefix(pattern, "template.spec."); ok {
			return proofOf(made, rest)
		}
		if strings.HasPrefix(pattern, "template.metadata.") {
			return kind, "template.metadata", capiCopiesTemplateMetadata
		}
	}
	best, found := "", false
	for prefix := range fieldProofs[kind] {
		if prefix == "" || pattern == prefix || strings.HasPrefix(pattern, prefix+".") || strings.HasPrefix(pattern, prefix+"[]") {
			if !found || len(prefix) > len(best) {
				best, found = prefix, true
			}
		}
	}
	if !found {
		return kind, "", ""
	}
	return kind, best, fieldProofs[kind][best]
}

var proofPattern = regexp.MustCompile(`^([a-z0-9/]+)\.(Test\w+)$`)

// checkProof checks that a proof names a test that exists (or is one of the documented kinds of proof).
func checkProof(g Gomega, proof string) {
	if proof == capiCopiesTemplateMetadata || strings.HasPrefix(proof, "cluster-api: ") || strings.HasPrefix(proof, capzIgnores) {
		return
	}
	m := proofPattern.FindStringSubmatch(proof)
	g.Expect(m).NotTo(BeNil(), "proof %q is not <package dir>.<TestName>", proof)
	files, err := filepath.Glob(filepath.Join("..", "..", m[1], "*_test.go"))
	g.Expect(err).NotTo(HaveOccurred())
	for _, file := range files {
		data, err := os.ReadFile(file)
		g.Expect(err).NotTo(HaveOccurred())
		if strings.Contains(string(data), "func "+m[2]+"(") {
			return
		}
	}
	g.Expect(files).To(BeEmpty(), "proof %q: no test %s in %s", proof, m[2], m[1])
	g.Expect(fmt.Errorf("proof %q: no test files in %s", proof, m[1])).NotTo(HaveOccurred())
}

// specLeaf is a field that holds a value: its path with list indexes, its pattern ("[]" for any item) and a
// function that sets it to a non-empty value in a spec.
type specLeaf struct {
	path, pattern string
	set           func(spec reflect.Value)
}

var (
	quantityType    = reflect.TypeFor[resource.Quantity]()
	intOrStringType = reflect.TypeFor[intstr.IntOrString]()
	rawType         = reflect.TypeFor[runtime.RawExtension]()
)

// specLeaves lists every field of a spec type that holds a value.
func specLeaves(t reflect.Type) []specLeaf {
	var out []specLeaf
	walkLeaves(t, "", "", func(v reflect.Value) reflect.Value { return v }, &out)
	sort.Slice(out, func(i, j int) bool { return out[i].pattern < out[j].pattern })
	return out
}

// walkLeaves descends a type; at reaches the value of the current field in a spec, allocating on the way.
func walkLeaves(t reflect.Type, path, pattern string, at func(reflect.Value) reflect.Value, out *[]specLeaf) {
	if t == quantityType || t == intOrStringType || t == rawType {
		*out = append(*out, specLeaf{path: path, pattern: pattern, set: func(spec reflect.Value) { fill(at(spec)) }})
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		walkLeaves(t.Elem(), path, pattern, func(spec reflect.Value) reflect.Value {
			p := at(spec)
			if p.IsNil() {
				p.Set(reflect.New(t.Elem()))
			}
			return p.Elem()
		}, out)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			name, ok := fieldpath.JSONName(f)
			if !ok {
				continue
			}
			walkLeaves(f.Type, fieldpath.Join(path, name), fieldpath.Join(pattern, name), func(spec reflect.Value) reflect.Value {
				return at(spec).Field(i)
			}, out)
		}
	case reflect.Slice:
		walkLeaves(t.Elem(), path+"[0]", pattern+"[]", func(spec reflect.Value) reflect.Value {
			s := at(spec)
			if s.Len() == 0 {
				s.Set(reflect.Append(s, reflect.Zero(t.Elem())))
			}
			return s.Index(0)
		}, out)
	default:
		*out = append(*out, specLeaf{path: path, pattern: pattern, set: func(spec reflect.Value) { fill(at(spec)) }})
	}
}

// fill sets a leaf to a non-empty value.
func fill(v reflect.Value) {
	switch v.Type() {
	case quantityType:
		v.Set(reflect.ValueOf(resource.MustParse("1")))
		return
	case intOrStringType:
		v.Set(reflect.ValueOf(intstr.FromInt32(1)))
		return
	case rawType:
		v.Set(reflect.ValueOf(runtime.RawExtension{Raw: []byte(`{"apiVersion":"resources.azure.com/v1","kind":"ResourceGroup","metadata":{"name":"x"}}`)}))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		value := reflect.New(v.Type().Elem()).Elem()
		if value.Kind() == reflect.String {
			value.SetString("x")
		}
		m.SetMapIndex(reflect.ValueOf("x").Convert(v.Type().Key()), value)
		v.Set(m)
	default:
		panic(fmt.Sprintf("fill: no value for %s", v.Type()))
	}
}
