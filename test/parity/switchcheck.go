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
	"context"
	"fmt"

	"github.com/capzaso/cluster-api-provider-azure/internal/switchcheck"
)

// dryRunChecks are the checks of the switch's dry run (docs/migrating-from-capz.md, "Before you start") that a run
// must pass before CAPZ stops: CAPZ's release, the CRDs' stored versions, every object judged by the provider's
// admission, and remediation (the run pauses the Clusters and MachineHealthChecks as the doc says; it has no
// autoscaler). Not the readiness check: the fake ARM makes no instance of a Uniform scale set, so such a
// MachinePool never has its replicas, and the run waits for its own measure of settled flavors (progressOf)
// instead.
var dryRunChecks = []string{switchcheck.CheckCAPZVersion, switchcheck.CheckCRDVersions, switchcheck.CheckFields, switchcheck.CheckRemediation}

// dryRunProblems runs the switch's dry run (cmd/capz-switch-check) on each flavor's namespace, as a user runs it
// before `clusterctl delete`, and returns, by flavor, every finding that would block the switch, as a problem.
func (s *side) dryRunProblems(ctx context.Context, flavors []Flavor) (map[string][]string, error) {
	problems := map[string][]string{}
	for _, f := range flavors {
		findings, err := switchcheck.Run(ctx, s.reader, switchcheck.Options{Namespace: f.Namespace(), Checks: dryRunChecks})
		if err != nil {
			return nil, fmt.Errorf("the dry run of the switch failed: %w", err)
		}
		for _, finding := range findings {
			if finding.Severity == switchcheck.Block {
				problems[f.Name] = append(problems[f.Name], fmt.Sprintf("the dry run of the switch blocks it: %s %s: %s",
					finding.Check, finding.Object, finding.Message))
			}
		}
	}
	return problems, nil
}
