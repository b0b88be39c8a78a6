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

package azuremanagedmachinepool

import (
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// updateStatus summarises the pool's state: Ready, status.ready and status.initialization.provisioned.
func updateStatus(s *scope, err error) {
	pool := s.pool
	lifecycle.SetConditions(pool, s.Facts(err))
	pool.Status.Ready = conditions.IsTrue(pool, clusterv1.ReadyCondition)
	if pool.Status.Ready {
		pool.Status.Initialization.Provisioned = ptr.To(true)
	}
}
