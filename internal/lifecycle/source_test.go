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
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// sendsAfterStop starts a channel source on an unbuffered channel, as the ClusterCache makes them, stops the
// controller (its context and queue), then sends events as the ClusterCache does, one after the other. It returns
// how many of them were read before one blocked for wait (or all of them). The reader may still be running when the
// first sends come (a select on a cancelled context and a ready channel picks either): many sends make the outcome
// certain.
func sendsAfterStop(t *testing.T, wrap func(source.Source) source.Source, wait time.Duration) int {
	t.Helper()
	const sends = 20
	ch := make(chan event.GenericEvent)
	src := wrap(source.Channel(ch, &handler.EnqueueRequestForObject{}))
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	ctx, stop := context.WithCancel(context.Background())
	if err := src.Start(ctx, queue); err != nil {
		t.Fatal(err)
	}
	stop()
	queue.ShutDown()
	for n := range sends {
		select {
		case ch <- event.GenericEvent{Object: &clusterv1.Cluster{}}:
		case <-time.After(wait):
			return n
		}
	}
	return sends
}

// TestDrainedSource_SendAfterStopDoesNotBlock: a cluster event sent after the controller stopped is read (and
// dropped), so the ClusterCache's reconciler, and the manager's shutdown, never wait on it; a plain channel source
// leaves the sender blocked.
func TestDrainedSource_SendAfterStopDoesNotBlock(t *testing.T) {
	if n := sendsAfterStop(t, func(s source.Source) source.Source { return drainedSource{Source: s} }, 10*time.Second); n != 20 {
		t.Fatalf("send %d blocked: nothing read the channel after the controller stopped", n+1)
	}
	if n := sendsAfterStop(t, func(s source.Source) source.Source { return s }, time.Second); n == 20 {
		t.Fatal("a plain channel source read every send after its controller stopped: the wrapper guards nothing")
	}
}
