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

package env

import (
	"flag"
	"testing"

	. "github.com/onsi/gomega"
)

func TestFuzzingOnly(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want bool
	}{
		{name: "tests", args: nil, want: false},
		{name: "some tests", args: []string{"-test.run", "TestX"}, want: false},
		{name: "fuzzing after the tests", args: []string{"-test.fuzz", "FuzzX"}, want: false},
		{name: "only fuzzing", args: []string{"-test.run", "^$", "-test.fuzz", "^FuzzX$"}, want: true},
		{name: "fuzzing worker", args: []string{"-test.fuzzworker", "-test.fuzz", "FuzzX"}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			flags := flag.NewFlagSet(tt.name, flag.ContinueOnError)
			flags.String("test.run", "", "")
			flags.String("test.fuzz", "", "")
			flags.Bool("test.fuzzworker", false, "")
			g.Expect(flags.Parse(tt.args)).To(Succeed())
			g.Expect(fuzzingOnly(flags)).To(Equal(tt.want))
		})
	}
}
