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
	"net/http"
	"regexp"
	"strings"
)

// Fault makes matching ARM requests fail with an ARM error.
type Fault struct {
	Method string         // "PUT", "GET", "DELETE", "POST"; empty matches any
	ID     *regexp.Regexp // matched against the lower-cased request path; nil matches any
	Status int            // HTTP status to answer, e.g. 400, 409, 429, 500 (0: 500)
	// Code is the ARM error code, e.g. "InvalidParameter", "QuotaExceeded", "Conflict" (empty: InternalServerError).
	Code    string
	Message string
	Times   int // how many requests it answers; 0 = until Clear
}

// fault is an injected Fault and its count.
type fault struct {
	Fault
	id, hits int
	cleared  bool
}

// Inject makes matching requests (after the token check) answer f's error, and returns an id for Clear and Hits.
// Faults match in the order injected. A 429 or 503 carries Retry-After: 1.
func (s *Server) Inject(f Fault) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := len(s.faults) + 1
	s.faults = append(s.faults, &fault{Fault: f, id: id})
	return id
}

// Clear stops a fault; its hits stay readable.
func (s *Server) Clear(id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id > 0 && id <= len(s.faults) {
		s.faults[id-1].cleared = true
	}
}

// Hits is how many requests a fault answered.
func (s *Server) Hits(id int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id > 0 && id <= len(s.faults) {
		return s.faults[id-1].hits
	}
	return 0
}

// fault answers a request with the first active fault that matches it.
func (s *Server) fault(method, path string) (answer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lower := strings.ToLower(path)
	for _, f := range s.faults {
		switch {
		case f.cleared, f.Times > 0 && f.hits >= f.Times:
			continue
		case f.Method != "" && !strings.EqualFold(f.Method, method):
			continue
		case f.ID != nil && !f.ID.MatchString(lower):
			continue
		}
		f.hits++
		e := &armError{status: f.Status, code: f.Code, message: f.Message}
		if e.status == 0 {
			e.status = http.StatusInternalServerError
		}
		if e.code == "" {
			e.code = "InternalServerError"
		}
		if e.message == "" {
			e.message = "Injected by the fake ARM."
		}
		a := errorAnswer(e)
		if e.status == http.StatusTooManyRequests || e.status == http.StatusServiceUnavailable {
			a.header = http.Header{"Retry-After": {"1"}}
		}
		return a, true
	}
	return answer{}, false
}
