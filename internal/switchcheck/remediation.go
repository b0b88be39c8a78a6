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

package switchcheck

import (
	"context"
	"fmt"

	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// checkRemediation reports what could delete or add machines of the switching clusters between `clusterctl delete`
// and the provider's takeover of every machine and pool (docs/migrating-from-capz.md, "The switch"): a Cluster that
// is not paused (Cluster API's controllers, rollouts and remediation act on it), a MachineHealthCheck without
// Cluster API's paused annotation (it would remediate once the Cluster is unpaused, before the takeover is over),
// and node groups of the cluster-autoscaler, which runs outside the management cluster's view: only a warning.
func checkRemediation(ctx context.Context, c client.Reader, opts Options) ([]Finding, error) {
	clusters, err := switchingClusters(ctx, c, opts)
	if err != nil {
		return nil, err
	}
	var findings []Finding
	add := func(severity Severity, kind string, obj client.Object, msg string, args ...any) {
		findings = append(findings, Finding{Severity: severity, Check: CheckRemediation, Object: objectName(kind, obj), Message: fmt.Sprintf(msg, args...)})
	}

	for _, cl := range clusters {
		if !ptr.Deref(cl.Spec.Paused, false) {
			add(Block, "Cluster", cl, "is not paused: pause it right before clusterctl delete (kubectl patch cluster -n %s %s "+
				"--type merge -p '{\"spec\":{\"paused\":true}}') and unpause it once clusterctl init has installed the "+
				"provider (docs/migrating-from-capz.md, The switch)", cl.Namespace, cl.Name)
		}
	}

	checks := &clusterv1.MachineHealthCheckList{}
	if _, err := list(ctx, c, opts, checks); err != nil {
		return nil, err
	}
	for i := range checks.Items {
		mhc := &checks.Items[i]
		if !clusters.has(mhc.Namespace, mhc.Spec.ClusterName) {
			continue
		}
		if _, paused := mhc.Annotations[clusterv1.PausedAnnotation]; !paused {
			add(Block, "MachineHealthCheck", mhc, "could remediate (delete) a machine of Cluster %s before the provider "+
				"has taken it over: annotate it (kubectl annotate machinehealthcheck -n %s %s %s=) until every machine "+
				"and pool is taken over, then remove the annotation (docs/migrating-from-capz.md, The switch)",
				mhc.Spec.ClusterName, mhc.Namespace, mhc.Name, clusterv1.PausedAnnotation)
		}
	}

	autoscaled := func(kind string, obj client.Object, clusterName string) {
		if !clusters.has(obj.GetNamespace(), clusterName) {
			return
		}
		annotations := obj.GetAnnotations()
		_, hasMin := annotations[clusterv1.AutoscalerMinSizeAnnotation]
		_, hasMax := annotations[clusterv1.AutoscalerMaxSizeAnnotation]
		if !hasMin && !hasMax {
			return
		}
		add(Warn, kind, obj, "is a node group of the cluster-autoscaler (%s, %s): stop the cluster-autoscaler of Cluster %s "+
			"(scale its Deployment to 0) before clusterctl delete, and start it again once every machine and pool is "+
			"taken over (docs/migrating-from-capz.md, The switch)",
			clusterv1.AutoscalerMinSizeAnnotation, clusterv1.AutoscalerMaxSizeAnnotation, clusterName)
	}
	mds := &clusterv1.MachineDeploymentList{}
	if _, err := list(ctx, c, opts, mds); err != nil {
		return nil, err
	}
	for i := range mds.Items {
		autoscaled("MachineDeployment", &mds.Items[i], mds.Items[i].Spec.ClusterName)
	}
	pools := &clusterv1.MachinePoolList{}
	if _, err := list(ctx, c, opts, pools); err != nil {
		return nil, err
	}
	for i := range pools.Items {
		autoscaled("MachinePool", &pools.Items[i], pools.Items[i].Spec.ClusterName)
	}
	return findings, nil
}
