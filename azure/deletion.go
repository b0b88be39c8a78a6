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

// DeleteWithOwnerAnnotation ("true") marks the ASO object of a resource the provider only reads while its owner
// lives (Resource.Referenced: reconcile-policy skip) and deletes in Azure when its owner is deleted: a disk that a
// taken-over VM leaves in Azure when it is deleted, which CAPZ deleted with the machine. The engine's deletion of the
// owner gives the object reconcile-policy manage before deleting it, once ASO has found the resource; an object that
// is no longer desired while its owner lives is deleted with skip, and the resource stays.
const DeleteWithOwnerAnnotation = "infrastructure.cluster.x-k8s.io/delete-with-owner"
