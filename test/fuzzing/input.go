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

package fuzzing

import (
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/randfill"
	"sigs.k8s.io/yaml"
)

// Decode sets obj from fuzz data. Unstructured data is JSON, decoded as the API server and the webhooks decode
// it (field names are case-sensitive); it reports false when the data is not JSON of obj's shape. Structured
// data drives a random filler (randfill): every field may be set, with strings, numbers and list lengths drawn
// mostly from values the API uses, so that random objects often get past the first checks.
func Decode(obj any, structured bool, data []byte) bool {
	if !structured {
		return kjson.UnmarshalCaseSensitivePreserveInts(data, obj) == nil
	}
	t := reflect.TypeOf(obj)
	fills, ok := fillsByType.Load(t)
	if !ok {
		fills, _ = fillsByType.LoadOrStore(t, customFills(t))
	}
	randfill.NewFromGoFuzz(data).NilChance(0.5).NumElements(0, 3).Funcs(fills.([]any)...).Fill(obj)
	return true
}

// fillsByType caches customFills by type.
var fillsByType sync.Map

// values are strings the API uses: enum values of the CRDs and typical names, IDs, CIDRs and versions.
var values = sync.OnceValue(func() []string {
	out := []string{
		"", "a", "x", "default", "fuzz", "eastus", "westeurope", "1", "2", "3", "-1", "0",
		"00000000-0000-0000-0000-000000000001", "not-a-guid",
		"10.0.0.0/8", "10.0.0.0/16", "10.1.0.0/16", "10.0.0.0/24", "10.0.0.100", "192.168.0.0/16", "fd00::/48",
		"fd00::/64", "10.0.0.0/33", "*", "22", "443", "6443", "80-90",
		"Standard_D2s_v3", "Standard_LRS", "Premium_LRS", "v1.33.2", "1.33.2", "v1.34.0", "AzurePublicCloud",
		"AzureBastionSubnet", "my-vnet", "node-subnet", "rg", "my_rg.x", "a..b", "A-B_c.d", "-bad-",
		"/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet",
		"/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/s",
		"/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id",
		"/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Network/publicIPPrefixes/p",
		"/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Network/privateDnsZones/privatelink.eastus.azmk8s.io",
		"/subscriptions/00000000-0000-0000-0000-000000000001",
		"azure:///subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm",
		"AzureClusterIdentity", "cluster-identity", "Microsoft.Storage", "blob", "example.com", "capz.io",
		"c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSUk3Z1c0T2gxMXNZSHRuYWp3TXc4elIxTS9OeDZyamw4NGtCU3c5cjdFMUIgYWtzQGV4YW1wbGUK",
		"{}", "spec: {tags: {a: b}}", `[{"op":"add","path":"/spec/tags","value":{}}]`, "metadata: {name: x}",
		"VirtualNetwork", "ManagedCluster", "VirtualMachine", "cluster.x-k8s.io/cluster-name",
		"kubernetes.azure.com/mode", "key=value:NoSchedule", "0.5", "100m",
	}
	return append(out, crdEnumValues()...)
})

// crdEnumValues are the enum values of the provider's CRDs.
func crdEnumValues() []string {
	files, _ := filepath.Glob(filepath.Join(Root(), "config", "crd", "bases", "*.yaml"))
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch n := v.(type) {
		case map[string]any:
			if enum, ok := n["enum"].([]any); ok {
				for _, e := range enum {
					if s, ok := e.(string); ok {
						seen[s] = true
					}
				}
			}
			for _, child := range n {
				walk(child)
			}
		case []any:
			for _, child := range n {
				walk(child)
			}
		}
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		var doc any
		if yaml.Unmarshal(data, &doc) == nil {
			walk(doc)
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// numbers are numbers the API uses: ports, priorities, sizes, counts and their edges.
var numbers = []int64{0, 1, 2, 3, 4, 5, 10, 22, 30, 100, 128, 200, 250, 443, 1000, 4096, 6443, 65535, 65536, -1, 1 << 31}

// pick returns one of values, or a random string now and then.
func pick(r *rand.Rand, random func() string) string {
	if r.Intn(8) == 0 {
		return random()
	}
	v := values()
	return v[r.Intn(len(v))]
}

// customFills are randfill functions for the types a random filler cannot fill well (interfaces, types with
// unexported state) and for every string and integer type of obj, so that named ones (enums) get API values too.
func customFills(t reflect.Type) []any {
	fills := []any{
		func(raw *runtime.RawExtension, c randfill.Continue) {
			obj := map[string]any{
				"apiVersion": pick(c.Rand, func() string { return c.String(0) }) + "/v1api20250801",
				"kind":       pick(c.Rand, func() string { return c.String(0) }),
				"metadata":   map[string]any{"name": pick(c.Rand, func() string { return c.String(0) })},
				"spec":       map[string]any{"location": "eastus"},
			}
			switch c.Intn(4) {
			case 0:
				obj["apiVersion"], obj["kind"] = "containerservice.azure.com/v1api20250801", "ManagedCluster"
			case 1:
				obj["apiVersion"], obj["kind"] = "containerservice.azure.com/v1api20250801", "ManagedClustersAgentPool"
			case 2:
				obj["apiVersion"], obj["kind"] = "resources.azure.com/v1api20200601", "ResourceGroup"
			}
			raw.Raw, _ = json.Marshal(obj)
		},
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(numbers[c.Intn(len(numbers))]*int64(c.Intn(1000)), resource.DecimalSI)
		},
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(int32(numbers[c.Intn(len(numbers))]))
			} else {
				*v = intstr.FromString(pick(c.Rand, func() string { return c.String(0) }))
			}
		},
	}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.String:
			fills = append(fills, reflect.MakeFunc(fillFuncType(t), func(args []reflect.Value) []reflect.Value {
				c := args[1].Interface().(randfill.Continue)
				args[0].Elem().SetString(pick(c.Rand, func() string { return c.String(0) }))
				return nil
			}).Interface())
		case reflect.Int, reflect.Int32, reflect.Int64:
			fills = append(fills, reflect.MakeFunc(fillFuncType(t), func(args []reflect.Value) []reflect.Value {
				c := args[1].Interface().(randfill.Continue)
				n := numbers[c.Intn(len(numbers))]
				if c.Intn(8) == 0 {
					n = c.Int63() - c.Int63()
				}
				args[0].Elem().SetInt(n)
				return nil
			}).Interface())
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				if t.Field(i).IsExported() {
					walk(t.Field(i).Type)
				}
			}
		}
	}
	walk(t)
	return fills
}

// fillFuncType is the type of a randfill function for t: func(*t, randfill.Continue).
func fillFuncType(t reflect.Type) reflect.Type {
	return reflect.FuncOf([]reflect.Type{reflect.PointerTo(t), reflect.TypeFor[randfill.Continue]()}, nil, false)
}
