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

package aso_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/yaml"

	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aks"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/asomanaged"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	"github.com/capzaso/cluster-api-provider-azure/azure/network"
)

// The tests of this file check every list of ASO kinds that cannot be derived from aso.Registry against it. Each
// list is turned into strings and compared with diffKinds; TestRegistryLists_ReportDisagreement shows that each
// comparison fails when its list loses or gains a kind.

// repoRoot is the repository's root, relative to this package.
const repoRoot = "../.."

// registryScheme holds the API versions aso.AddToScheme adds.
func registryScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := aso.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func gvkOf(t *testing.T, s *runtime.Scheme, obj runtime.Object) schema.GroupVersionKind {
	t.Helper()
	gvk, err := apiutil.GVKForObject(obj, s)
	if err != nil {
		t.Fatal(err)
	}
	return gvk
}

// diffKinds returns an error naming the entries of want missing from got and those of got not in want (or listed
// twice), or nil when the two hold the same entries.
func diffKinds(want, got []string) error {
	w, g := sets.New(want...), sets.New(got...)
	missing, extra := sets.List(w.Difference(g)), sets.List(g.Difference(w))
	var twice []string
	for i, e := range got {
		if slices.Contains(got[:i], e) {
			twice = append(twice, e)
		}
	}
	if len(missing) == 0 && len(extra) == 0 && len(twice) == 0 {
		return nil
	}
	return fmt.Errorf("missing %v, not in the registry %v, listed twice %v", missing, extra, twice)
}

// registryList is one list of kinds kept by hand beside the registry: a file, how to read its entries, and the
// entries the registry asks for.
type registryList struct {
	name    string
	file    string
	entries func(data []byte) ([]string, error)
	want    func(t *testing.T) []string
}

// registryLists are the lists checked against aso.Registry.
var registryLists = []registryList{
	{
		// hack/generate-aso-bundle.sh and hack/generate-aso-crds.sh read it: ASO's CRD pattern, RBAC, webhooks and
		// the tests' CRDs.
		name: "hack/aso-kinds.txt", file: "hack/aso-kinds.txt",
		entries: func(data []byte) ([]string, error) {
			var out []string
			for _, line := range strings.Split(string(data), "\n") {
				if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
					out = append(out, line)
				}
			}
			return out, nil
		},
		want: func(t *testing.T) []string {
			return registryStrings(t, func(k aso.KindInfo, gvk schema.GroupVersionKind) string {
				return gvk.Group + "/" + gvk.Kind + "=" + k.Resource
			})
		},
	},
	{
		// The manager's role: the engine's verbs on every kind.
		name: "RBAC markers of azure/aso", file: "azure/aso/kinds.go",
		entries: func(data []byte) ([]string, error) {
			var out []string
			for _, m := range regexp.MustCompile(`(?m)^// \+kubebuilder:rbac:groups=([a-z.]+\.azure\.com),resources=([a-z;]+),verbs=(\S+)$`).FindAllStringSubmatch(string(data), -1) {
				if m[3] != "get;list;watch;create;patch;delete" {
					return nil, fmt.Errorf("group %s has verbs %s, not the engine's", m[1], m[3])
				}
				for _, r := range strings.Split(m[2], ";") {
					out = append(out, m[1]+"/"+r)
				}
			}
			return out, nil
		},
		want: func(t *testing.T) []string {
			return registryStrings(t, func(k aso.KindInfo, gvk schema.GroupVersionKind) string { return gvk.Group + "/" + k.Resource })
		},
	},
	{
		// controllers/asocrd labels the CRDs; its role may patch these by name.
		name: "resourceNames marker of controllers/asocrd", file: "controllers/asocrd/asocrd_controller.go",
		entries: func(data []byte) ([]string, error) {
			m := regexp.MustCompile(`(?m)^// \+kubebuilder:rbac:groups=apiextensions\.k8s\.io,resources=customresourcedefinitions,verbs=patch,resourceNames=(\S+)$`).FindStringSubmatch(string(data))
			if m == nil {
				return nil, fmt.Errorf("no marker with resourceNames")
			}
			return strings.Split(m[1], ";"), nil
		},
		want: func(t *testing.T) []string {
			return registryStrings(t, func(k aso.KindInfo, gvk schema.GroupVersionKind) string { return k.Resource + "." + gvk.Group })
		},
	},
	{
		// The delete-for-move webhook sees the updates of every ASO group the provider writes.
		name: "groups of the delete-for-move webhook marker", file: "azure/aso/deleteformove.go",
		entries: func(data []byte) ([]string, error) {
			m := regexp.MustCompile(`(?m)^// \+kubebuilder:webhook:.*,groups=([^,]+),.*name=deleteformove\.`).FindStringSubmatch(string(data))
			if m == nil {
				return nil, fmt.Errorf("no delete-for-move webhook marker")
			}
			return strings.Split(m[1], ";"), nil
		},
		want: func(t *testing.T) []string {
			return sets.List(sets.New(registryStrings(t, func(_ aso.KindInfo, gvk schema.GroupVersionKind) string { return gvk.Group })...))
		},
	},
	{
		// importas gives each API package of the registry one alias in every file.
		name: "importas aliases of .golangci.yml", file: ".golangci.yml",
		entries: func(data []byte) ([]string, error) {
			var cfg struct {
				Linters struct {
					Settings struct {
						Importas struct {
							Alias []struct{ Pkg string }
						}
					}
				}
			}
			if err := yaml.Unmarshal(data, &cfg); err != nil {
				return nil, err
			}
			var out []string
			for _, a := range cfg.Linters.Settings.Importas.Alias {
				if strings.HasPrefix(a.Pkg, "github.com/Azure/azure-service-operator/v2/api/") {
					out = append(out, a.Pkg)
				}
			}
			return out, nil
		},
		want: func(*testing.T) []string {
			pkgs := sets.New[string]()
			for _, k := range aso.Registry {
				pkgs.Insert(reflect.TypeOf(k.Object).Elem().PkgPath())
			}
			return sets.List(pkgs)
		},
	},
}

// registryStrings formats every row of the registry.
func registryStrings(t *testing.T, format func(aso.KindInfo, schema.GroupVersionKind) string) []string {
	t.Helper()
	s := registryScheme(t)
	out := make([]string, 0, len(aso.Registry))
	for _, k := range aso.Registry {
		out = append(out, format(k, gvkOf(t, s, k.Object)))
	}
	return out
}

func readRepoFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestRegistryLists(t *testing.T) {
	for _, l := range registryLists {
		t.Run(l.name, func(t *testing.T) {
			g := NewWithT(t)
			got, err := l.entries(readRepoFile(t, l.file))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(diffKinds(l.want(t), got)).To(Succeed(), "%s disagrees with aso.Registry (docs/development.md, Adding an Azure resource kind)", l.file)
		})
	}
}

// TestRegistryLists_ReportDisagreement edits each list as a forgotten or stale kind would, and expects the check
// to name the kind.
func TestRegistryLists_ReportDisagreement(t *testing.T) {
	tests := []struct {
		list     string
		old, new string
		reported string
	}{
		{list: "hack/aso-kinds.txt", old: "network.azure.com/RouteTable=routetables\n", new: "", reported: "network.azure.com/RouteTable=routetables"},
		{list: "hack/aso-kinds.txt", old: "network.azure.com/RouteTable=", new: "network.azure.com/Route=", reported: "network.azure.com/Route=routetables"},
		{list: "RBAC markers of azure/aso", old: ";routetables;", new: ";", reported: "network.azure.com/routetables"},
		{list: "RBAC markers of azure/aso", old: ";routetables;", new: ";routetables;applicationgateways;", reported: "network.azure.com/applicationgateways"},
		{list: "resourceNames marker of controllers/asocrd", old: ";routetables.network.azure.com;", new: ";", reported: "routetables.network.azure.com"},
		{list: "resourceNames marker of controllers/asocrd", old: ";routetables.network.azure.com;", new: ";routetables.network.azure.com;routetables.network.azure.com;", reported: "listed twice [routetables.network.azure.com]"},
		{list: "groups of the delete-for-move webhook marker", old: ";managedidentity.azure.com;", new: ";", reported: "missing [managedidentity.azure.com]"},
		{list: "importas aliases of .golangci.yml", old: "/network/v1api20240601\n", new: "/network/v1api20250101\n", reported: "github.com/Azure/azure-service-operator/v2/api/network/v1api20240601"},
	}
	for _, tt := range tests {
		t.Run(tt.list+": "+tt.reported, func(t *testing.T) {
			g := NewWithT(t)
			i := slices.IndexFunc(registryLists, func(l registryList) bool { return l.name == tt.list })
			g.Expect(i).NotTo(Equal(-1))
			l := registryLists[i]
			data := string(readRepoFile(t, l.file))
			g.Expect(data).To(ContainSubstring(tt.old))
			got, err := l.entries([]byte(strings.Replace(data, tt.old, tt.new, 1)))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(diffKinds(l.want(t), got)).To(MatchError(ContainSubstring(tt.reported)))
		})
	}
}

// TestRegistry_Rows checks the rows themselves: each kind once, its resource as ASO's CRD names it, its API version
// added by AddToScheme, and an owner or FromSpecResources.
func TestRegistry_Rows(t *testing.T) {
	g := NewWithT(t)
	s := registryScheme(t)
	seen := sets.New[schema.GroupKind]()
	for _, k := range aso.Registry {
		gvk := gvkOf(t, s, k.Object)
		g.Expect(seen.Has(gvk.GroupKind())).To(BeFalse(), "%s twice", gvk.GroupKind())
		seen.Insert(gvk.GroupKind())
		g.Expect(len(k.Owners) == 0).To(Equal(k.FromSpecResources), "%s needs Owners or FromSpecResources, not both", gvk.Kind)

		data, err := os.ReadFile(filepath.Join(repoRoot, "test", "crd", "aso", gvk.Group+"_"+k.Resource+".yaml"))
		g.Expect(err).NotTo(HaveOccurred(), "no CRD of %s: add it to hack/aso-kinds.txt and run make generate-aso-crds", gvk.Kind)
		crd := &apiextensionsv1.CustomResourceDefinition{}
		g.Expect(yaml.Unmarshal(data, crd)).To(Succeed())
		g.Expect(crd.Spec.Names.Kind).To(Equal(gvk.Kind))
		g.Expect(crd.Spec.Names.Plural).To(Equal(k.Resource))
	}
	// Kinds returns new objects each call: a caller that fills one does not change the registry.
	g.Expect(aso.Kinds()).To(HaveLen(len(aso.Registry)))
	g.Expect(aso.Kinds()[0]).NotTo(BeIdenticalTo(aso.Registry[0].Object))
}

// AddToScheme adds no API version the registry does not use: a version left behind by a kind's upgrade would
// still be pinned there.
func TestAddToScheme_OnlyRegistryVersions(t *testing.T) {
	g := NewWithT(t)
	s := registryScheme(t)
	var want, got []string
	for _, k := range aso.Registry {
		want = append(want, gvkOf(t, s, k.Object).GroupVersion().String())
	}
	for gvk := range s.AllKnownTypes() {
		// Every API group also gets the internal version, and the core group the unversioned meta types.
		if gvk.Version != runtime.APIVersionInternal && gvk.Group != "" {
			got = append(got, gvk.GroupVersion().String())
		}
	}
	g.Expect(diffKinds(sets.List(sets.New(want...)), sets.List(sets.New(got...)))).To(Succeed())
}

// ownerKinds are the translators' owner kinds lists, by the owner the registry names.
func ownerKinds() map[string][]azure.Object {
	return map[string][]azure.Object{
		"AzureCluster":             network.ClusterKinds(),
		"AzureMachine":             compute.MachineKinds(),
		"AzureMachinePoolMachine":  compute.ReplicaKinds(),
		"AzureMachinePool":         compute.ScaleSetKinds(),
		"AzureManagedControlPlane": aks.ControlPlaneKinds(),
		"AzureManagedMachinePool":  aks.AgentPoolKinds(),
	}
}

// ownerEntries returns "owner:group/version/Kind" for every kind of every owner.
func ownerEntries(t *testing.T, s *runtime.Scheme, lists map[string][]azure.Object) []string {
	t.Helper()
	var out []string
	for owner, kinds := range lists {
		for _, obj := range kinds {
			gvk := gvkOf(t, s, obj)
			out = append(out, owner+":"+gvk.GroupVersion().String()+"/"+gvk.Kind)
		}
	}
	return out
}

// registryOwnerEntries returns what ownerEntries returns when the lists agree with the registry's Owners.
func registryOwnerEntries(t *testing.T, s *runtime.Scheme) []string {
	t.Helper()
	var out []string
	for _, k := range aso.Registry {
		gvk := gvkOf(t, s, k.Object)
		for _, owner := range k.Owners {
			out = append(out, owner+":"+gvk.GroupVersion().String()+"/"+gvk.Kind)
		}
	}
	return out
}

// The owner kinds lists hold the registry's kinds, at its versions, for the owners its rows name.
func TestRegistry_OwnerKinds(t *testing.T) {
	g := NewWithT(t)
	s := registryScheme(t)
	g.Expect(diffKinds(registryOwnerEntries(t, s), ownerEntries(t, s, ownerKinds()))).To(Succeed())

	// The comparison names a kind a list lost, and one the registry does not give the owner.
	lists := ownerKinds()
	lists["AzureMachine"] = slices.DeleteFunc(lists["AzureMachine"], func(o azure.Object) bool { _, ok := o.(*asonetwork.PublicIPAddress); return ok })
	g.Expect(diffKinds(registryOwnerEntries(t, s), ownerEntries(t, s, lists))).To(MatchError(ContainSubstring("missing [AzureMachine:network.azure.com/v1api20240301/PublicIPAddress]")))
	lists = ownerKinds()
	lists["AzureManagedMachinePool"] = append(lists["AzureManagedMachinePool"], &asocontainerservice.MaintenanceConfiguration{})
	g.Expect(diffKinds(registryOwnerEntries(t, s), ownerEntries(t, s, lists))).To(MatchError(ContainSubstring("AzureManagedMachinePool:containerservice.azure.com/v1api20250801/MaintenanceConfiguration")))
}

// deleteOrderStrays returns the kinds of a delete order that are not among kinds: an order naming a kind its owner
// does not own (or a kind of another group) orders nothing.
func deleteOrderStrays[O runtime.Object](t *testing.T, s *runtime.Scheme, kinds []O, order [][]schema.GroupKind) []string {
	t.Helper()
	owned := sets.New[schema.GroupKind]()
	for _, obj := range kinds {
		owned.Insert(gvkOf(t, s, obj).GroupKind())
	}
	var out []string
	for _, group := range order {
		for _, gk := range group {
			if !owned.Has(gk) {
				out = append(out, gk.String())
			}
		}
	}
	return out
}

func TestRegistry_DeleteOrders(t *testing.T) {
	s := registryScheme(t)
	var rawKinds []azure.Object
	for _, k := range aso.Registry {
		rawKinds = append(rawKinds, k.Object)
	}
	tests := []struct {
		name  string
		kinds []azure.Object
		order [][]schema.GroupKind
	}{
		{name: "cluster", kinds: network.ClusterKinds(), order: network.ClusterDeleteOrder},
		{name: "machine", kinds: compute.MachineKinds(), order: compute.MachineDeleteOrder},
		{name: "scale set", kinds: compute.ScaleSetKinds(), order: compute.ScaleSetDeleteOrder},
		{name: "AKS control plane", kinds: aks.ControlPlaneKinds(), order: aks.ControlPlaneDeleteOrder},
		// Raw objects may be of any registry kind.
		{name: "AzureASOManagedControlPlane", kinds: rawKinds, order: asomanaged.ManagedClusterDeleteOrder},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(deleteOrderStrays(t, s, tt.kinds, tt.order)).To(BeEmpty())
		})
	}

	t.Run("a kind the owner does not own is reported", func(t *testing.T) {
		g := NewWithT(t)
		order := append(slices.Clone(compute.ScaleSetDeleteOrder), []schema.GroupKind{{Group: "compute.azure.com", Kind: "VirtualMachine"}})
		g.Expect(deleteOrderStrays(t, s, compute.ScaleSetKinds(), order)).To(Equal([]string{"VirtualMachine.compute.azure.com"}))
	})
}
