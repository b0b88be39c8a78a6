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

package fakearm

import (
	"fmt"
	"net/http"
	"strings"
)

// preconditions are a write's If-Match and If-None-Match headers, with which a client (CAPZ's network security
// group and load balancer services) makes sure it replaces the version it read.
type preconditions struct {
	ifMatch, ifNoneMatch string
}

func preconditionsOf(r *http.Request) preconditions {
	return preconditions{ifMatch: r.Header.Get("If-Match"), ifNoneMatch: r.Header.Get("If-None-Match")}
}

// check answers 412 when the resource's current version does not meet the preconditions: If-Match "*" or an etag
// needs the resource to exist with that etag, If-None-Match "*" needs it not to exist. The lock is held.
func (p preconditions) check(r *resource) *armError {
	switch {
	case p.ifMatch != "" && r == nil:
		return &armError{http.StatusPreconditionFailed, "PreconditionFailed",
			fmt.Sprintf("The specified precondition 'If-Match = %s' failed: the resource does not exist.", p.ifMatch)}
	case p.ifMatch != "" && p.ifMatch != "*" && p.ifMatch != r.etag:
		return &armError{http.StatusPreconditionFailed, "PreconditionFailed",
			fmt.Sprintf("The specified precondition 'If-Match = %s' failed: the resource's etag is %s.", p.ifMatch, r.etag)}
	case p.ifNoneMatch == "*" && r != nil:
		return &armError{http.StatusPreconditionFailed, "PreconditionFailed",
			"The specified precondition 'If-None-Match = *' failed: the resource exists."}
	}
	return nil
}

// newETag is a new version's etag, in the weak form Azure's network resources report. The lock is held.
func (s *Server) newETag() string {
	s.etagSeq++
	return fmt.Sprintf(`W/"00000000-0000-0000-0002-%012x"`, s.etagSeq)
}

// reportsETag tells whether Azure reports a resource's etag in its body: network resources do.
func reportsETag(id armID) bool {
	return strings.EqualFold(id.namespace, "Microsoft.Network")
}
