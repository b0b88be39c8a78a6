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

// Package tenancy attacks the provider as a tenant would: a real user of the API server whose RBAC allows the
// provider's kinds, Cluster API's Clusters and Secrets in one namespace, and nothing cluster-scoped. The provider
// runs under the strict credential policy with identity bindings, with its own and ASO's webhooks in front of the
// API server and the ASO simulator behind it. Every attack of docs/security.md's tenancy table is tried and must be
// refused or have no effect; afterwards every ASO object of the tenant's namespace names a credential the policy
// allows, or does not exist.
package tenancy
