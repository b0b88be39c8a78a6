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

package parity

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
)

// TestAuditFlags: the policy logs writes only, into the side's audit log in the log directory.
func TestAuditFlags(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	flags, err := auditFlags(dir, "CAPZ")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(flags).To(HaveKeyWithValue("audit-log-path", filepath.Join(dir, "CAPZ-audit.log")))
	policy, err := os.ReadFile(flags["audit-policy-file"])
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(policy)).To(ContainSubstring(`verbs: ["create", "update", "patch", "delete", "deletecollection"]`))
}
