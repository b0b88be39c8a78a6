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

// Command testprofile measures where make test spends CPU: per test package (the test binary and every process it
// starts and waits for: kube-apiserver, etcd, kube-controller-manager, ASO's controller), per compile and link, per
// tool build, and per top-level test. make test-profile runs it; .ci/run prints its report at the end of every CI
// log.
//
//	testprofile exec BINARY ARGS...        go test -exec: runs a test binary, samples the CPU of its process tree
//	testprofile toolexec TOOL ARGS...      go test -toolexec: runs a compile, link or vet action
//	testprofile run NAME -- COMMAND ARGS...  runs any command (go test itself)
//	testprofile render                      reads go test -json on stdin, prints what go test prints without -json
//	testprofile report [-top N]             prints the tables
//
// Every mode but report and render is a transparent wrapper: same output, same exit status. The records go to the
// directory named by CAPZASO_PROFILE_DIR (report and render read it too); without it the wrappers record
// nothing. hack/ensure-tool.sh adds a record per tool it builds when the variable is set.
package main
