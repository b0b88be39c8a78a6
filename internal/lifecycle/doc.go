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

// Package lifecycle is the reconcile skeleton every controller that owns ASO objects shares, so that the rules of
// a pass live in one place: get the object, find its owner Cluster (and Machine or MachinePool), leave an
// externally managed infrastructure cluster alone, hold the finalizer (written before anything else, with the
// block on clusterctl move), set the Paused condition and pause the ASO objects (reconcile-policy skip) while the
// Cluster is paused, block clusterctl move while the ASO objects may change, run the kind's normal or delete
// phases, and write what the pass changed once, in a deferred patch: metadata and spec, then status with every
// condition, each only when it changed, with the observed generation only after a pass without error.
//
// A kind describes itself with a Kind: its finalizer, how to find its owners, its scope and its phases. Its status
// function builds its conditions with SetConditions, which gives every kind the same Ready summary (deleting,
// credentials, the pass's error, waiting, the first failing ASO object, pending, ready) and the same per-family
// resource conditions.
package lifecycle
