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

// ResourceStatus is the observed state of one ASO object that the provider applies or reads for this object.
type ResourceStatus struct {
	// resource identifies the ASO object.
	// +required
	Resource StatusResource `json:"resource"`

	// ready is true when ASO reports the object Ready for its current generation.
	// +required
	Ready bool `json:"ready"`

	// reason is a CamelCase reason for the object's state, e.g. Provisioning, Failed, ApprovalPending.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Reason string `json:"reason,omitempty"`

	// message is ASO's message for the object, if it is not ready.
	// +kubebuilder:validation:MaxLength=10240
	// +optional
	Message string `json:"message,omitempty"`

	// management says how the provider treats the object: Managed (created and owned by the provider),
	// Referenced (a bring-your-own Azure resource the provider only reads through ASO), or ExternallyManaged
	// (an ASO object owned by someone else, read for status only).
	// +optional
	Management ResourceManagement `json:"management,omitempty"`
}

// StatusResource identifies an ASO object.
type StatusResource struct {
	// group of the object's API, e.g. network.azure.com.
	// +required
	Group string `json:"group"`

	// version of the object's API.
	// +required
	Version string `json:"version"`

	// kind of the object.
	// +required
	Kind string `json:"kind"`

	// name of the object, in the owner's namespace.
	// +required
	Name string `json:"name"`
}

// ResourceManagement says how the provider treats an ASO object.
// +kubebuilder:validation:Enum=Managed;Referenced;ExternallyManaged
type ResourceManagement string

const (
	// ResourceManaged is an ASO object the provider created and owns.
	ResourceManaged ResourceManagement = "Managed"
	// ResourceReferenced is a bring-your-own Azure resource: the provider applies the ASO object with
	// reconcile-policy skip, so ASO only reads it.
	ResourceReferenced ResourceManagement = "Referenced"
	// ResourceExternallyManaged is an ASO object owned by someone else; it is read for status, never written.
	ResourceExternallyManaged ResourceManagement = "ExternallyManaged"
)
