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

// Package env runs a real kube-apiserver and etcd, built by `make tools` into
// hack/tools/bin, with the Cluster API, ASO and our CRDs installed, and a
// controller-runtime manager on top, for tests and for a local management plane.
//
// Test packages call Run from TestMain and use Env in their tests:
//
//	func TestMain(m *testing.M) {
//		os.Exit(env.Run(context.Background(), m, env.Options{Scheme: scheme.New()}))
//	}
//
// Programs that only need the API server (make run) call StartControlPlane.
package env
