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

package asomanaged

import (
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capzaso/cluster-api-provider-azure/azure/aks"
)

// ManagedClusterInput is what Cluster API owns of an AKS cluster.
type ManagedClusterInput struct {
	// ClusterName is the Cluster API cluster; it names the kubeconfig secret ASO writes.
	ClusterName string
	// Version is the control plane's spec.version.
	Version string
	// PodCIDRs and ServiceCIDRs are the Cluster's clusterNetwork.
	PodCIDRs, ServiceCIDRs []string
	// AgentPoolProfiles are the cluster's agent pools, inlined when the managed cluster is created (AKS needs a
	// system pool to create a cluster); nil once it exists.
	AgentPoolProfiles []map[string]any
}

// Conflict is a user value that contradicts what Cluster API owns.
type Conflict struct {
	Field, Value, Want string
}

func (c Conflict) Error() string {
	return fmt.Sprintf("%s is %q, but Cluster API sets it to %q: remove it from the resource", c.Field, c.Value, c.Want)
}

// SetManagedClusterDefaults sets the Kubernetes version, the pod and service CIDRs, the agent pools at creation,
// and where ASO writes the admin kubeconfig. A contradicting user value is reported, not overridden.
func SetManagedClusterDefaults(u *unstructured.Unstructured, in ManagedClusterInput) error {
	if err := setOwned(u, strings.TrimPrefix(in.Version, "v"), "spec", "kubernetesVersion"); err != nil {
		return err
	}
	if len(in.PodCIDRs) > 0 {
		if err := setOwned(u, in.PodCIDRs[0], "spec", "networkProfile", "podCidr"); err != nil {
			return err
		}
	}
	if len(in.ServiceCIDRs) > 0 {
		if err := setOwned(u, in.ServiceCIDRs[0], "spec", "networkProfile", "serviceCidr"); err != nil {
			return err
		}
	}
	if pools, found, _ := unstructured.NestedSlice(u.Object, "spec", "agentPoolProfiles"); found && len(pools) > 0 {
		return Conflict{Field: "spec.agentPoolProfiles", Value: fmt.Sprintf("%d pools", len(pools)),
			Want: "the AzureASOManagedMachinePools of the cluster"}
	}
	if in.AgentPoolProfiles != nil {
		pools := make([]any, 0, len(in.AgentPoolProfiles))
		for _, p := range in.AgentPoolProfiles {
			pools = append(pools, p)
		}
		if err := unstructured.SetNestedSlice(u.Object, pools, "spec", "agentPoolProfiles"); err != nil {
			return err
		}
	}
	if _, found, _ := unstructured.NestedMap(u.Object, "spec", "operatorSpec", "secrets", "adminCredentials"); !found {
		if _, user, _ := unstructured.NestedMap(u.Object, "spec", "operatorSpec", "secrets", "userCredentials"); !user {
			return unstructured.SetNestedMap(u.Object, map[string]any{"name": aks.AdminKubeconfigSecretName(in.ClusterName), "key": "value"},
				"spec", "operatorSpec", "secrets", "adminCredentials")
		}
	}
	return nil
}

// AgentPoolInput is what Cluster API owns of an agent pool.
type AgentPoolInput struct {
	// Version is the MachinePool's Kubernetes version.
	Version string
	// Replicas is the MachinePool's replica count; ignored when the pool autoscales (the autoscaler owns it).
	Replicas *int32
}

// SetAgentPoolDefaults sets the agent pool's orchestrator version and, unless it autoscales, its node count.
func SetAgentPoolDefaults(u *unstructured.Unstructured, in AgentPoolInput) error {
	if in.Version != "" {
		if err := setOwned(u, strings.TrimPrefix(in.Version, "v"), "spec", "orchestratorVersion"); err != nil {
			return err
		}
	}
	if Autoscaling(u) || in.Replicas == nil {
		return nil
	}
	return setOwned(u, int64(*in.Replicas), "spec", "count")
}

// Autoscaling reports whether an agent pool has the cluster autoscaler on.
func Autoscaling(u *unstructured.Unstructured) bool {
	enabled, _, _ := unstructured.NestedBool(u.Object, "spec", "enableAutoScaling")
	return enabled
}

// setOwned sets a field Cluster API owns, unless the user set it to something else.
func setOwned(u *unstructured.Unstructured, want any, path ...string) error {
	if want == "" {
		return nil
	}
	got, found, _ := unstructured.NestedFieldNoCopy(u.Object, path...)
	if found && !sameValue(got, want) {
		return Conflict{Field: strings.Join(path, "."), Value: fmt.Sprint(got), Want: fmt.Sprint(want)}
	}
	return unstructured.SetNestedField(u.Object, want, path...)
}

func sameValue(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	if sa, ok := a.(string); ok {
		if sb, ok := b.(string); ok {
			return strings.TrimPrefix(sa, "v") == strings.TrimPrefix(sb, "v")
		}
	}
	return reflect.DeepEqual(a, b)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case int32:
		return float64(n), true
	case int:
		return float64(n), true
	}
	return 0, false
}

// AgentPoolProfile turns a raw agent pool into an inline agent pool profile of a managed cluster: the same
// properties, named after the pool's Azure name.
func AgentPoolProfile(pool *unstructured.Unstructured) map[string]any {
	spec, _, _ := unstructured.NestedMap(pool.Object, "spec")
	profile := map[string]any{}
	for k, v := range spec {
		switch k {
		case "owner", "azureName", "operatorSpec":
		default:
			profile[k] = v
		}
	}
	name, _, _ := unstructured.NestedString(pool.Object, "spec", "azureName")
	if name == "" {
		name = pool.GetName()
	}
	profile["name"] = name
	return profile
}
