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

package v1beta1

import (
	"fmt"
	"regexp"

	"k8s.io/utils/ptr"
)

// agentPoolNamePattern is AKS's rule for agent pool names: lowercase letters and digits, starting with a letter.
var agentPoolNamePattern = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

// agentPoolNameProblem says why a name is not a valid agent pool name for the operating system, or returns "".
func agentPoolNameProblem(name string, osType AgentPoolOSType) string {
	limit := 12
	if osType == AgentPoolOSTypeWindows {
		limit = 6
	}
	if len(name) > limit {
		return fmt.Sprintf("%s agent pool names are at most %d characters long", osType, limit)
	}
	if !agentPoolNamePattern.MatchString(name) {
		return "agent pool names may contain only lowercase letters and digits, starting with a letter"
	}
	return ""
}

// SetDefaults fills in CAPZ's AzureManagedMachinePool defaults. The agent pool takes the object's name when that
// is a valid agent pool name; otherwise spec.name must be set, and validation says so.
func (p *AzureManagedMachinePool) SetDefaults() {
	p.Spec.setDefaults()
	if ptr.Deref(p.Spec.Name, "") == "" && agentPoolNameProblem(p.Name, *p.Spec.OSType) == "" {
		p.Spec.Name = ptr.To(p.Name)
	}
}

// setDefaults fills in the defaults that do not depend on the machine pool's name; templates share them.
func (s *AzureManagedMachinePoolClassSpec) setDefaults() {
	if s.OSType == nil {
		s.OSType = ptr.To(AgentPoolOSTypeLinux)
	}
	for i := range s.ASOPatches {
		if s.ASOPatches[i].Type == "" {
			s.ASOPatches[i].Type = MergePatchType
		}
	}
}
