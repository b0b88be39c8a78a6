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

package main

import (
	"fmt"
	"os"
)

// profileDirEnvVar names the directory of the records.
const profileDirEnvVar = "CAPZASO_PROFILE_DIR"

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	dir := os.Getenv(profileDirEnvVar)
	args := os.Args[2:]
	switch os.Args[1] {
	case "exec":
		if len(args) == 0 {
			usage()
		}
		os.Exit(execTest(dir, args))
	case "toolexec":
		if len(args) == 0 {
			usage()
		}
		os.Exit(toolexec(dir, args))
	case "run":
		if len(args) < 3 || args[1] != "--" {
			usage()
		}
		os.Exit(runCommand(dir, args[0], args[2:]))
	case "render":
		os.Exit(render(dir, os.Stdin, os.Stdout))
	case "report":
		os.Exit(report(dir, args, os.Stdout))
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: testprofile exec|toolexec|run NAME --|render|report [-top N] ... (see go doc ./hack/testprofile)")
	os.Exit(2)
}
