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
	"context"
	"fmt"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// StartWorkloadCluster starts a control plane without CRDs that plays workload clusters (Clusters reach it through
// kubeconfig Secrets of its KubeConfig), and a client of it with client-go's kinds, with which tests write Nodes and
// pods. Stop must be called to end it.
func StartWorkloadCluster(ctx context.Context) (*ControlPlane, client.Client, error) {
	cp, err := StartControlPlane(ctx, ControlPlaneOptions{Workload: true})
	if err != nil {
		return nil, nil, fmt.Errorf("failed to start the workload cluster: %w", err)
	}
	c, err := client.New(cp.Config, client.Options{Scheme: clientgoscheme.Scheme})
	if err != nil {
		_ = cp.Stop()
		return nil, nil, fmt.Errorf("failed to create a client for the workload cluster: %w", err)
	}
	return cp, c, nil
}
