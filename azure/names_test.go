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

package azure

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

func TestObjectName(t *testing.T) {
	tests := []struct {
		name  string
		parts []string
		want  string
	}{
		{name: "a valid name stays", parts: []string{"my-vnet"}, want: "my-vnet"},
		{name: "parent and child", parts: []string{"my-vnet", "node-subnet"}, want: "my-vnet-node-subnet"},
		{name: "dotted name stays", parts: []string{"cluster.capz.io"}, want: "cluster.capz.io"},
		{name: "upper case and underscores", parts: []string{"My_RG"}, want: "my-rg-" + hashOf("My_RG")},
		{name: "two periods", parts: []string{"a..b"}, want: "a.b-" + hashOf("a..b")},
		{name: "period before a hyphen", parts: []string{"a.-b"}, want: "a.b-" + hashOf("a.-b")},
		{name: "hyphen before a period", parts: []string{"vnet_.x"}, want: "vnet.x-" + hashOf("vnet_.x")},
		{name: "parent ending with a period", parts: []string{"rg.", "x"}, want: "rg.x-" + hashOf("rg.-x")},
		{name: "nothing valid", parts: []string{"_"}, want: hashOf("_")},
		{name: "too long", parts: []string{strings.Repeat("x", 300)}, want: strings.Repeat("x", 244) + "-" + hashOf(strings.Repeat("x", 300))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(ObjectName(tt.parts...)).To(Equal(tt.want))
		})
	}
}

// hashOf is the hash suffix of a joined name: the first 4 bytes of its SHA-256, in hex.
func hashOf(joined string) string {
	sum := sha256.Sum256([]byte(joined))
	return hex.EncodeToString(sum[:4])
}
