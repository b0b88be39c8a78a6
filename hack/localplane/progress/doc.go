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

// Package progress is the local management plane's live view of its clusters: Build turns the objects of a
// management cluster into a compact tree (Cluster → infrastructure cluster and control plane → machines, machine
// deployments and machine pools → their ASO objects) with ready counts and the first failing message, and Render
// prints it as text. Both are pure; Collect reads the objects and Screen shows successive renderings, in place on a
// terminal or as snapshots in a log.
package progress
