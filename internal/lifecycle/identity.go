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

	ctrl "sigs.k8s.io/controller-runtime"
)

// ensureCredentials is the first phase of a kind that carries its cluster's identity (Kind.Identity): it turns the
// identity into ASO's credential secret, and makes the object wait while the identity may not be used.
func (k *Kind[T, S]) ensureCredentials(obj T) Phase[S] {
	return func(ctx context.Context, s S) error {
		st := s.state()
		in := k.Identity(obj, s)
		in.Kinds = st.Kinds
		creds, err := k.Engine.EnsureCredentials(ctx, obj, in)
		if err != nil {
			return err
		}
		st.Credentials = &creds
		if !creds.Ready {
			ctrl.LoggerFrom(ctx).Info("Not applying the ASO objects: the identity cannot be used", "reason", creds.Reason)
			st.Waiting = Wait{Reason: creds.Reason, Message: creds.Message}
		}
		return nil
	}
}

// checkCredentialsWhilePaused checks, in a paused pass of a kind that carries its cluster's identity, that the
// identity may still be used, and revokes the credentials when it may not; it writes no credential secret.
func (k *Kind[T, S]) checkCredentialsWhilePaused(ctx context.Context, obj T, s S) error {
	st := s.state()
	in := k.Identity(obj, s)
	in.Kinds = st.Kinds
	creds, err := k.Engine.ClusterCredentials(ctx, obj, in)
	st.Credentials = &creds
	return err
}

// credentialsBeforeDelete resolves, in a deletion pass, the credentials the object's ASO objects are deleted with,
// as a live pass does: ASO reads the credential again whenever it tries to delete a resource, so it is vetted (and
// the cluster's credential secret rewritten, or revoked) before every delete, not only while the object lives.
func (k *Kind[T, S]) credentialsBeforeDelete(ctx context.Context, obj T, s S) error {
	switch {
	case k.Identity != nil:
		return k.ensureCredentials(obj)(ctx, s)
	case k.WhilePaused != nil:
		return k.WhilePaused(ctx, s)
	}
	return nil
}
