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

// Package templates holds the provider's cluster templates: the flavors clusterctl renders
// (cluster-template*.yaml, clusterclass-*.yaml, built from flavors/ by make generate-flavors) and the add-on
// manifests their ClusterResourceSets apply (addons/). It has no Go code; its tests use them the way users do:
// the clusterctl library reads them from a local provider repository built from the release assets, and every
// flavor is rendered, created on a real API server through the provider's webhooks, and reconciled by Cluster
// API's own reconcilers (the topology controller for ClusterClass flavors) and the provider's controllers, with
// test/asosim playing Azure Service Operator.
package templates
