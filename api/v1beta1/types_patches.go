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

// ASOPatchType is the format of an ASOPatch.
// +kubebuilder:validation:Enum=MergePatch;JSONPatch
type ASOPatchType string

const (
	// MergePatchType is an RFC 7386 JSON merge patch, written as JSON or YAML: an object whose fields replace the
	// generated object's fields (null removes a field; lists are replaced as a whole).
	MergePatchType ASOPatchType = "MergePatch"

	// JSONPatchType is an RFC 6902 JSON patch, written as JSON or YAML: a list of operations
	// (add, remove, replace, move, copy, test) with JSON pointers, which can edit single list items.
	JSONPatchType ASOPatchType = "JSONPatch"
)

// ASOPatch is a patch the provider applies to ASO objects it generates, before it applies them. It is an
// extension over CAPZ, which only has merge patches as plain strings for AKS objects (asoManagedClusterPatches,
// asoManagedClustersAgentPoolPatches; those keep working and are applied first).
//
// A patch may not change apiVersion, kind, metadata.name, metadata.namespace or spec.owner. A patch that does not
// parse is rejected at admission; one that does not apply to an object is reported on the owner's
// PatchesApplied condition (naming the patch and the object) and does not stop the other objects.
//
// Example: enable a feature of the ASO ManagedCluster that the typed API does not expose, then append an
// authorized IP range:
//
//	asoPatches:
//	- target: {kind: ManagedCluster}
//	  type: MergePatch
//	  patch: |
//	    spec:
//	      storageProfile: {diskCSIDriver: {enabled: true}}
//	- target: {kind: ManagedCluster}
//	  type: JSONPatch
//	  patch: |
//	    - {op: add, path: /spec/apiServerAccessProfile/authorizedIPRanges/-, value: 203.0.113.0/24}
type ASOPatch struct {
	// target selects the generated ASO objects the patch applies to.
	// +required
	Target ASOPatchTarget `json:"target"`

	// type is the patch format: MergePatch (RFC 7386) or JSONPatch (RFC 6902).
	// +kubebuilder:default=MergePatch
	// +optional
	Type ASOPatchType `json:"type,omitempty"`

	// patch is the patch document, in JSON or YAML.
	// +kubebuilder:validation:MinLength=1
	// +required
	Patch string `json:"patch"`
}

// ASOPatchTarget selects generated ASO objects.
type ASOPatchTarget struct {
	// kind of the ASO objects, e.g. ManagedCluster, VirtualNetwork, VirtualMachine.
	// +kubebuilder:validation:MinLength=1
	// +required
	Kind string `json:"kind"`

	// name of the ASO object; when empty the patch applies to every generated object of the kind.
	// +optional
	Name string `json:"name,omitempty"`
}
