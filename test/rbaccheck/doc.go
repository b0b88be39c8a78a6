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

// Command rbaccheck checks the provider's roles against the requests the provider made in a test run: no wildcard,
// no request denied (a missing rule), and every rule used by some request (no excessive rule). The test
// environments record the requests of the provider's ServiceAccount from the API server's audit log into usage
// files when test/env's RBACUsageDirEnvVar names a directory; `make test` sets it for `go test ./...` and then runs
//
//	go run ./test/rbaccheck DIR
//
// It needs the usage of every package that runs the provider: run it after the whole suite only.
package main
