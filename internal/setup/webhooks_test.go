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

package setup_test

import (
	"testing"

	. "github.com/onsi/gomega"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
)

func TestCheckCredentialSettings(t *testing.T) {
	allow := setup.WebhookOptions{AllowASODefaultCredential: true}
	tests := []struct {
		name    string
		policy  aso.CredentialPolicy
		opts    setup.WebhookOptions
		refused bool
	}{
		{name: "permissive", policy: aso.PermissivePolicy},
		{name: "permissive allowing ASO's default credential", policy: aso.PermissivePolicy, opts: allow},
		{name: "strict", policy: aso.StrictPolicy},
		{name: "strict allowing ASO's default credential", policy: aso.StrictPolicy, opts: allow, refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			err := setup.CheckCredentialSettings(tt.policy, tt.opts)
			if !tt.refused {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(err).To(MatchError(And(ContainSubstring("--allow-aso-default-credential"),
				ContainSubstring("--credential-policy=strict"), ContainSubstring("docs/security.md"))))
		})
	}
}
