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

// Package setup registers the provider's webhooks and controllers on a manager. main.go and the local
// management plane (make run) share it, so both run exactly the same provider. It also builds what main.go and
// the tests must build alike: the options of the manager's diagnostics (metrics) and webhook servers (ServingOptions:
// HTTPS with authentication and authorization, TLS settings, HTTP/2 off), and the manager's logger, capped below
// the verbosity at which client-go logs request bodies (Logger).
package setup
