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

// Package audit is the harness's one reading of the API server's audit log: one policy (Scope.Policy) that logs
// each resource request once, and one event type (Event) with the fields the harness reads. test/env records the
// provider's RBAC usage with it, test/plane counts the provider's writes through an audit webhook, test/bench
// attributes every request to an actor and test/parity counts each writer's writes.
package audit
