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

// Package faults injects API server failures into a client's requests, for the fault-injection, crash and
// end-to-end suites.
//
// An Injector wraps a rest.Config's transport, so that every request of every client built from it (a manager's
// cached client, its informers, its API reader) passes through it. A Rule matches requests by verb, group and
// resource (and subresource, e.g. status writes), namespace and name, and answers them the way the API server would
// have failed: with a Status of code 403 (how an admission webhook's denial comes back), 404 (NotFound, also for an
// object that exists, as a lagging API server may answer a get), 409, 429 (with Retry-After, as API priority and
// fairness sends it), 500, or a timeout. Lists and watches fail like any request; a rule that matches watches in
// progress also cuts them when it is added, as a dropped connection does, so that the client's informers watch (and
// list) again and meet the rule. A rule fires once, N times, or until it is removed, and counts its hits.
package faults
