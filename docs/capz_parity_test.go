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

package docs_test

import (
	"fmt"
	"os"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/capzaso/cluster-api-provider-azure/test/parity"
)

// TestCAPZParity_DeliberateDifferences checks the section "## Deliberate differences" of capz-parity.md with the
// parser make parity uses (test/parity): one table of the expected columns, every row naming its side, resource,
// name, field, both sides' values and its flavors, and each difference one row.
func TestCAPZParity_DeliberateDifferences(t *testing.T) {
	g := NewWithT(t)
	data, err := os.ReadFile("capz-parity.md")
	g.Expect(err).NotTo(HaveOccurred())
	rows, err := parity.ParseDeliberate(data)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(rows).NotTo(BeEmpty(), "the table has rows")
	seen := map[string]int{}
	for _, row := range rows {
		// A DELETE of a resource is another difference than its PUT.
		key := fmt.Sprint(row.Side, row.Method, row.Resource, row.Name, row.Field, row.Flavors)
		g.Expect(seen).NotTo(HaveKey(key), "a difference is one row: line %d repeats line %d", row.Line, seen[key])
		seen[key] = row.Line
	}
}
