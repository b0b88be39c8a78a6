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

// Package aso is the engine: the only code that writes Azure Service Operator (ASO) objects.
//
// Controllers hand it the typed ASO objects a translator produced (Resources) and get back a Result: the state
// of every object as ASO reports it. The engine
//
//   - applies user patches (package patch) to each object, then server-side-applies it with one field manager,
//     a controller owner reference, the cluster-name and ownership labels and, when the cluster uses an identity,
//     the ASO per-resource credential annotation;
//   - makes no write when nothing changed: it skips an object whose recorded hash matches the desired object and
//     whose live copy still holds every value the engine sets;
//   - never modifies or deletes an object that is not controller-owned by the owner, and applies bring-your-own
//     Azure resources with reconcile-policy skip, so ASO only reads them;
//   - deletes objects it created that are no longer desired, deletes in a caller-given order, and pauses and
//     resumes every owned object through the reconcile-policy annotation (DeleteForMoveWebhook keeps the pause on
//     the objects clusterctl move deletes);
//   - reads ASO's Ready condition (current only when its observedGeneration matches), maps its severity, and runs
//     per-kind post-reconcile checks that can hold an object not ready after ASO says Ready.
package aso
