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

// Command v1beta1corpus writes the compatibility corpus: every rendered flavor of templates/ (cluster-template*.yaml,
// clusterclass-*.yaml) again in the form CAPZ users' manifests have, with Cluster API's v1beta1 kinds (Cluster,
// MachineDeployment, MachinePool, ClusterClass, ClusterResourceSet, KubeadmControlPlane(Template),
// KubeadmConfig(Template)) referencing each other by v1beta1 API versions, and the same clusterctl variables. The
// Cluster API objects go through Cluster API's own v1beta2-to-v1beta1 conversion, without the annotation in which
// it keeps what v1beta1 cannot say (a user's manifest has none); the provider's and ASO's objects are copied as
// they are. The templates tests apply the corpus unchanged and expect the same clusters as from the flavors.
//
// Usage: v1beta1corpus TEMPLATES_DIR OUT_DIR (make generate-flavors runs it).
package main
