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

import "sigs.k8s.io/controller-runtime/pkg/client"

// Resource is one object a translator wants for an owner, handed by the controller to the engine (azure/aso).
type Resource struct {
	// Object is the typed object with its name set: an ASO object, or a Secret an ASO object reads (e.g. a VM
	// extension's protected settings). The engine sets its namespace to the owner's.
	Object client.Object
	// Family groups objects into one condition, <Family>Ready (e.g. VNet → VNetReady).
	Family string
	// Referenced marks a bring-your-own Azure resource: it is applied with reconcile-policy skip, so that ASO only
	// reads it and deleting the object never deletes the resource.
	Referenced bool
	// Adoptable marks an Azure resource that may already exist (a resource group or virtual network named by the
	// user). The engine first applies it with reconcile-policy skip to let ASO look: if the resource exists
	// without the cluster's "owned" tag it stays Referenced; otherwise the provider creates and manages it.
	Adoptable bool
	// Raw marks an object the user wrote whole (an AzureASOManaged* spec.resources entry): its annotations are the
	// user's, including ASO's reconcile-policy and credential-from, and the engine checks the credential it names
	// against the manager's credential policy instead of setting one.
	Raw bool
}
