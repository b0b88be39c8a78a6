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

package azure

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Object is a typed API object: what a translator produces, and what the engine reads back of it. It has the
// methods of controller-runtime's client.Object, so that the engine takes it as one, while the translators stay
// free of any client.
type Object interface {
	metav1.Object
	runtime.Object
}

// Live is what the engine read of an owner's ASO objects in a pass (aso.Result.Live): the object of a kind and
// name, nil when there was none. The translators' readers take it, so that a controller learns what ASO reports
// without a client of its own and without ASO's types.
type Live interface {
	Live(kind, name string) Object
}

// Resource is one object a translator wants for an owner, handed by the controller to the engine (azure/aso).
type Resource struct {
	// Object is the typed object with its name set: an ASO object, or a Secret an ASO object reads (e.g. a VM
	// extension's protected settings). The engine sets its namespace to the owner's.
	Object Object
	// Family groups objects into one condition, <Family>Ready (e.g. VNet → VNetReady).
	Family string
	// Referenced marks a bring-your-own Azure resource: it is applied with reconcile-policy skip, so that ASO only
	// reads it and deleting the object never deletes the resource.
	Referenced bool
	// Adoptable marks an Azure resource that may already exist (a resource group or virtual network named by the
	// user). The engine first applies it with reconcile-policy skip to let ASO look: if the resource exists
	// without the cluster's "owned" tag it stays Referenced; otherwise the provider creates and manages it.
	Adoptable bool
	// MustExist marks an Adoptable resource that its owner knows existed (a machine's VM once the machine has its
	// provider ID): when ASO finds it missing from Azure, the engine never creates it, keeps its object at
	// reconcile-policy skip and reports it not ready, terminally (aso.DeletedOutsideReason).
	MustExist bool
	// Raw marks an object the user wrote whole (an AzureASOManaged* spec.resources entry): its annotations are the
	// user's, including ASO's reconcile-policy and credential-from, and the engine checks the credential it names
	// against the manager's credential policy instead of setting one.
	Raw bool
}

// OfFamily keeps the resources of a family.
func OfFamily(in []Resource, family string) []Resource {
	var out []Resource
	for _, r := range in {
		if r.Family == family {
			out = append(out, r)
		}
	}
	return out
}

// WithoutFamily drops the resources of a family.
func WithoutFamily(in []Resource, family string) []Resource {
	var out []Resource
	for _, r := range in {
		if r.Family != family {
			out = append(out, r)
		}
	}
	return out
}
