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

package lifecycle

import (
	"context"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// drainedSource starts a raw source, such as Cluster API's ClusterCache cluster source, with a context that the
// controller's stop does not cancel. The ClusterCache sends its events on an unbuffered channel without watching its
// context (cluster-api v1.14.2, controllers/clustercache/cluster_cache.go, sendEventsToClusterSources): once the
// channel's reader had stopped with its controller, a send blocked the ClusterCache's reconciler, and with it the
// manager's shutdown until its grace period ran out (test/chaos saw a SIGTERM take longer than a Pod's 30 s). The
// reader now lives as long as the process and hands what it reads to the controller's queue, which drops it once
// shut down.
type drainedSource struct {
	source.Source
}

// Start starts the source with ctx's values but without its cancellation.
func (s drainedSource) Start(ctx context.Context, queue workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	return s.Source.Start(context.WithoutCancel(ctx), queue)
}
