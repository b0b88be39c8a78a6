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
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
)

// Scope is a kind's scope: the data its phases fill and its status reads. A scope embeds State, which the
// lifecycle reads and fills too.
type Scope interface {
	state() *State
}

// State is the part of a pass's scope that the lifecycle shares with the kind's phases and status: embed it in the
// kind's scope.
type State struct {
	// Kinds are the GroupVersionKinds of the ASO kinds the object may own (Kind.Owns, or Kind.OwnedKinds of the
	// object), set by the lifecycle; a phase that records more (raw resources) adds them.
	Kinds []schema.GroupVersionKind
	// Waiting is set by a phase that must wait (for the cluster's infrastructure, bootstrap data, an identity that
	// may be used): the phases after it do not run in this pass, and Ready says what the object waits for.
	Waiting Wait
	// Credentials is set by the phase that resolves the object's identity (and by Kind.WhilePaused).
	Credentials *aso.Credentials
	// Result is set by the phase that hands the object's ASO objects to the engine, and by the deletion: their
	// state, and the live objects the engine read (aso.Result.Live).
	Result *aso.Result
	// Deleting is set by the lifecycle while the object is deleted: what it deletes (Kind.Deletes), for Ready.
	Deleting string
	// RequeueAfter asks for another pass after a pass whose phases all ran (a kubeconfig ASO rotates, a drain's
	// pods, which are not watched).
	RequeueAfter time.Duration
}

func (s *State) state() *State { return s }

// Facts are the facts the state holds, with the pass's error: what SetConditions needs besides the kind's own
// (Pending).
func (s *State) Facts(err error) Facts {
	return Facts{Deleting: s.Deleting, Credentials: s.Credentials, Err: err, Waiting: s.Waiting, Result: s.Result}
}

// Phase is one step of a live object's pass. It records what it learns in the scope; an error or State.Waiting
// ends the pass.
type Phase[S Scope] func(ctx context.Context, s S) error

// runPhases runs the phases in order, as Cluster API's reconcilers do, until one fails or waits: a later phase may
// need what an earlier one did (credentials, bootstrap data). The result asks for another pass after
// State.RequeueAfter once every phase ran, or a phase waits.
func runPhases[S Scope](ctx context.Context, s S, phases []Phase[S]) (time.Duration, error) {
	st := s.state()
	for _, phase := range phases {
		if err := phase(ctx, s); err != nil {
			return 0, err
		}
		if st.Waiting != (Wait{}) {
			// A wait ends with a watched change, or after RequeueAfter when a phase asked to look again.
			return st.RequeueAfter, nil
		}
	}
	return st.RequeueAfter, nil
}
