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
	"errors"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/switchback"
)

// The steps of docs/migrating-from-capz.md that keep Cluster API from deleting or adding a machine across a switch
// from CAPZ: "Before you start", step 5 (remediation and the Clusters paused), "The switch", steps 3 (the Clusters
// unpaused once the provider is installed) and 5 (remediation resumed once everything is taken over). The run has no
// cluster-autoscaler to stop.

// workerHealthCheck is the name of the MachineHealthCheck the switch run gives each self-managed flavor.
const workerHealthCheck = "workers"

// addHealthChecks gives each self-managed flavor a MachineHealthCheck of its MachineDeployments' machines (Cluster
// API's machine health check controller runs on the side), so that the procedure has remediation to pause and the
// dry run's remediation check has one to judge.
func (s *side) addHealthChecks(ctx context.Context, flavors []Flavor) error {
	for _, f := range flavors {
		if !f.SelfManaged {
			continue
		}
		mhc := &clusterv1.MachineHealthCheck{
			ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace(), Name: workerHealthCheck},
			Spec: clusterv1.MachineHealthCheckSpec{
				ClusterName: f.Cluster,
				Selector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: clusterv1.MachineDeploymentNameLabel, Operator: metav1.LabelSelectorOpExists},
				}},
				Checks: clusterv1.MachineHealthCheckChecks{
					UnhealthyNodeConditions: []clusterv1.UnhealthyNodeCondition{
						{Type: "Ready", Status: "Unknown", TimeoutSeconds: ptr.To[int32](300)},
						{Type: "Ready", Status: "False", TimeoutSeconds: ptr.To[int32](300)},
					},
				},
			},
		}
		if err := s.client.Create(ctx, mhc); err != nil {
			return fmt.Errorf("failed to give %s a MachineHealthCheck: %w", f.Name, err)
		}
	}
	return nil
}

// stopRemediation pauses every MachineHealthCheck of the flavors and then their Clusters, as the doc's step 5
// does, and waits until CAPZ has let go of every infrastructure object: CAPZ removes clusterctl's block-move
// annotation from an object once it has paused its ASO objects (as clusterctl move waits for it to).
func (s *side) stopRemediation(ctx context.Context, flavors []Flavor, timeout time.Duration) error {
	if err := s.setHealthChecksPaused(ctx, flavors, true); err != nil {
		return err
	}
	if err := s.setClustersPaused(ctx, flavors, true); err != nil {
		return err
	}
	var holding string
	err := wait.PollUntilContextTimeout(ctx, 2*time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		holding = s.blockingMove(ctx, flavors)
		return holding == "", nil
	})
	if err != nil {
		return fmt.Errorf("CAPZ did not let go of the paused clusters in %s: %s", timeout, holding)
	}
	return nil
}

// blockingMove names the infrastructure objects of the flavors that still carry clusterctl's block-move
// annotation; "" when none does.
func (s *side) blockingMove(ctx context.Context, flavors []Flavor) string {
	var blocking []string
	for _, f := range flavors {
		names, err := s.infrastructureWhere(ctx, f, func(o unstructured.Unstructured) bool {
			_, ok := o.GetAnnotations()[clusterctlv1.BlockMoveAnnotation]
			return ok
		})
		if err != nil {
			return err.Error()
		}
		for _, name := range names {
			blocking = append(blocking, f.Namespace()+": "+name)
		}
	}
	return strings.Join(blocking, ", ")
}

// setClustersPaused sets spec.paused of the flavors' Clusters.
func (s *side) setClustersPaused(ctx context.Context, flavors []Flavor, paused bool) error {
	for _, f := range flavors {
		cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace(), Name: f.Cluster}}
		patch := client.RawPatch(client.Merge.Type(), fmt.Appendf(nil, `{"spec":{"paused":%t}}`, paused))
		if err := s.client.Patch(ctx, cluster, patch); err != nil {
			return fmt.Errorf("failed to set the Cluster of %s paused=%t: %w", f.Name, paused, err)
		}
	}
	return nil
}

// setHealthChecksPaused adds or removes Cluster API's paused annotation on every MachineHealthCheck of the flavors'
// namespaces.
func (s *side) setHealthChecksPaused(ctx context.Context, flavors []Flavor, paused bool) error {
	for _, f := range flavors {
		checks := &clusterv1.MachineHealthCheckList{}
		if err := s.reader.List(ctx, checks, client.InNamespace(f.Namespace())); err != nil {
			return fmt.Errorf("failed to list the MachineHealthChecks of %s: %w", f.Name, err)
		}
		for i := range checks.Items {
			mhc := &checks.Items[i]
			value := "null"
			if paused {
				value = `""`
			}
			patch := client.RawPatch(client.Merge.Type(), fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%s}}}`, clusterv1.PausedAnnotation, value))
			if err := s.client.Patch(ctx, mhc, patch); err != nil {
				return fmt.Errorf("failed to set MachineHealthCheck %s/%s paused=%t: %w", mhc.Namespace, mhc.Name, paused, err)
			}
		}
	}
	return nil
}

// switchFromCAPZ does the doc's switch from CAPZ to the provider: remediation and the Clusters paused, and CAPZ let
// go of them; the dry run; CAPZ's manager stopped and the provider started (switchToOurs); the Clusters unpaused.
// It returns, by flavor, what the dry run found that blocks the switch. Remediation stays paused until the caller
// has seen every flavor taken over (resumeRemediation).
func (s *side) switchFromCAPZ(ctx context.Context, o Options) (map[string][]string, error) {
	if err := s.stopRemediation(ctx, o.Flavors, o.Timeout); err != nil {
		return nil, err
	}
	blocked, err := s.dryRunProblems(ctx, o.Flavors)
	if err != nil {
		return nil, err
	}
	if err := s.switchToOurs(ctx, o.Logger); err != nil {
		return nil, err
	}
	return blocked, s.setClustersPaused(ctx, o.Flavors, false)
}

// resumeRemediation removes the paused annotation of the flavors' MachineHealthChecks, once the provider took every
// flavor over (the doc's step 5 of the switch).
func (s *side) resumeRemediation(ctx context.Context, flavors []Flavor) error {
	return s.setHealthChecksPaused(ctx, flavors, false)
}

// switchBack runs a part of the way back's step (what cmd/capz-switch-back does, internal/switchback) through a client
// of its own that reads the API server, as the command's does. The API server may go on validating with the
// provider's schema for a moment after CAPZ's CRDs replaced it, so a failed part is tried again for 30 s.
func (s *side) switchBack(ctx context.Context, part func(context.Context, client.Client, switchback.Options) (switchback.Report, error)) error {
	c, err := client.New(s.management.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		return err
	}
	var last error
	err = wait.PollUntilContextTimeout(ctx, time.Second, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, last = part(ctx, c, switchback.Options{})
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("the way back's step failed: %w", errors.Join(err, last))
	}
	return nil
}

// notCAPZs tells what keeps a flavor from being CAPZ's again after the way back: an infrastructure object whose
// v1beta1 status.ready CAPZ has not written true (the provider's schema has no such field, so the API server pruned
// it from every object the provider wrote, and only CAPZ writes it again); "" once every one is.
func (s *side) notCAPZs(ctx context.Context, f Flavor) string {
	waiting, err := s.infrastructureWhere(ctx, f, func(o unstructured.Unstructured) bool {
		ready, _, _ := unstructured.NestedBool(o.Object, "status", "ready")
		return !ready
	})
	if err != nil {
		return err.Error()
	}
	if len(waiting) == 0 {
		return ""
	}
	return "not ready under CAPZ: " + strings.Join(waiting, ", ")
}
