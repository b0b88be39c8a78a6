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

// Package identities brings the objects that use an AzureClusterIdentity back to their controllers when the
// identity or the Secret it reads changes: a rotated secret, a secret created after the cluster, or a change of
// allowedNamespaces (a revocation) reaches every cluster that uses the identity within seconds, not at the next
// resync. It registers field indexes on the objects that reference identities and on the identities' secrets, and
// gives the controllers the event handlers that map a change to the objects to reconcile.
package identities
