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

package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/rest"
)

// Fault is how a matched request fails.
type Fault struct {
	// Code is the HTTP status of the answer: 403, 404, 409, 429, 500, or any other error status.
	Code int
	// Timeout makes the request fail as a client-side timeout instead (Code is ignored).
	Timeout bool
	// Message is the Status message; a default that names the fault is used when empty.
	Message string
}

// Common faults.
var (
	// Denied is an admission webhook's denial.
	Denied = Fault{Code: http.StatusForbidden, Message: `admission webhook "faults.test" denied the request: injected denial`}
	// NotFound pretends the object does not exist.
	NotFound = Fault{Code: http.StatusNotFound}
	// Conflict is an optimistic-concurrency conflict.
	Conflict = Fault{Code: http.StatusConflict}
	// Throttled is API priority and fairness refusing the request.
	Throttled = Fault{Code: http.StatusTooManyRequests}
	// Unavailable is an internal error, e.g. a webhook that cannot be reached.
	Unavailable = Fault{Code: http.StatusInternalServerError, Message: `Internal error occurred: failed calling webhook "faults.test": injected fault: connection refused`}
	// TimedOut is a request that never got an answer.
	TimedOut = Fault{Timeout: true}
)

// Rule selects the requests a fault applies to. Empty fields match anything.
type Rule struct {
	// Verb is the Kubernetes verb: get, list, watch, create, update, patch, delete, deletecollection.
	Verb string
	// Resource is the group and plural resource, e.g. {Group: "network.azure.com", Resource:
	// "networksecuritygroups"}; the group is compared only when Resource is set.
	Resource schema.GroupResource
	// Subresource is e.g. "status"; "-" matches only requests without one.
	Subresource string
	Namespace   string
	Name        string
	// Fault is the answer.
	Fault Fault
	// Times is how many requests fail; 0 fails every matching request until the rule is removed.
	Times int
}

// Injector fails the requests that match its rules.
type Injector struct {
	mu     sync.Mutex
	next   int
	rules  map[int]*activeRule
	parser *request.RequestInfoFactory
	// watches are the watches in progress, which a rule that matches them cuts (Add).
	watches map[*watchBody]struct{}
}

type activeRule struct {
	Rule
	hits int
}

// New returns an injector with no rules: every request passes.
func New() *Injector {
	return &Injector{
		rules:   map[int]*activeRule{},
		watches: map[*watchBody]struct{}{},
		parser: &request.RequestInfoFactory{
			APIPrefixes:          sets.NewString("api", "apis"),
			GrouplessAPIPrefixes: sets.NewString("api"),
		},
	}
}

// Config returns a copy of cfg whose requests pass through the injector.
func (i *Injector) Config(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	previous := out.WrapTransport
	out.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if previous != nil {
			rt = previous(rt)
		}
		return &transport{injector: i, next: rt}
	}
	return out
}

// Add adds a rule and returns its ID, for Hits and Remove. A rule that matches watches in progress cuts them, as a
// dropped connection or a restarted API server does, and counts a hit for each: the client watches again (or lists
// and watches), and those requests meet the rule.
func (i *Injector) Add(r Rule) int {
	i.mu.Lock()
	i.next++
	rule := &activeRule{Rule: r}
	i.rules[i.next] = rule
	var cut []*watchBody
	for w := range i.watches {
		if rule.matches(w.info) && (r.Times == 0 || rule.hits < r.Times) {
			rule.hits++
			cut = append(cut, w)
			delete(i.watches, w)
		}
	}
	id := i.next
	i.mu.Unlock()
	for _, w := range cut {
		w.cut()
	}
	return id
}

// Remove removes a rule; the requests it matched pass again.
func (i *Injector) Remove(id int) {
	i.mu.Lock()
	defer i.mu.Unlock()
	delete(i.rules, id)
}

// Clear removes every rule.
func (i *Injector) Clear() {
	i.mu.Lock()
	defer i.mu.Unlock()
	clear(i.rules)
}

// Hits returns how many requests a rule failed so far.
func (i *Injector) Hits(id int) int {
	i.mu.Lock()
	defer i.mu.Unlock()
	if r, ok := i.rules[id]; ok {
		return r.hits
	}
	return 0
}

// match returns the request's information, and the fault for it, counting the hit, or nil.
func (i *Injector) match(req *http.Request) (*request.RequestInfo, *Fault) {
	info, err := i.parser.NewRequestInfo(req)
	if err != nil || !info.IsResourceRequest {
		return nil, nil
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	for id := 1; id <= i.next; id++ {
		r, ok := i.rules[id]
		if !ok || !r.matches(info) || (r.Times > 0 && r.hits >= r.Times) {
			continue
		}
		r.hits++
		f := r.Fault
		return info, &f
	}
	return info, nil
}

func (r *activeRule) matches(info *request.RequestInfo) bool {
	switch {
	case r.Verb != "" && r.Verb != info.Verb:
		return false
	case r.Resource.Resource != "" && (r.Resource.Resource != info.Resource || r.Resource.Group != info.APIGroup):
		return false
	case r.Subresource == "-" && info.Subresource != "", r.Subresource != "" && r.Subresource != "-" && r.Subresource != info.Subresource:
		return false
	case r.Namespace != "" && r.Namespace != info.Namespace:
		return false
	case r.Name != "" && r.Name != info.Name:
		return false
	}
	return true
}

// transport answers matched requests with their fault and passes the others on.
type transport struct {
	injector *Injector
	next     http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	info, f := t.injector.match(req)
	if f == nil {
		resp, err := t.next.RoundTrip(req)
		if err == nil && info != nil && info.Verb == "watch" && resp.StatusCode == http.StatusOK {
			resp.Body = t.injector.track(info, resp.Body)
		}
		return resp, err
	}
	if req.Body != nil {
		_ = req.Body.Close()
	}
	if f.Timeout {
		return nil, &url.Error{Op: req.Method, URL: req.URL.String(), Err: timeoutError{}}
	}
	return f.response(req), nil
}

// watchBody is the stream of a watch in progress.
type watchBody struct {
	io.ReadCloser
	injector *Injector
	info     *request.RequestInfo
	once     sync.Once
}

// track records a watch in progress until its stream is closed.
func (i *Injector) track(info *request.RequestInfo, body io.ReadCloser) io.ReadCloser {
	w := &watchBody{ReadCloser: body, injector: i, info: info}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.watches[w] = struct{}{}
	return w
}

// cut ends the watch: its reader gets an error, as when the connection drops.
func (w *watchBody) cut() {
	w.once.Do(func() { _ = w.ReadCloser.Close() })
}

func (w *watchBody) Close() error {
	w.injector.mu.Lock()
	delete(w.injector.watches, w)
	w.injector.mu.Unlock()
	var err error
	w.once.Do(func() { err = w.ReadCloser.Close() })
	return err
}

// response is the Status the API server answers a failed request with.
func (f Fault) response(req *http.Request) *http.Response {
	reason := metav1.StatusReasonUnknown
	switch f.Code {
	case http.StatusForbidden:
		reason = metav1.StatusReasonForbidden
	case http.StatusNotFound:
		reason = metav1.StatusReasonNotFound
	case http.StatusConflict:
		reason = metav1.StatusReasonConflict
	case http.StatusTooManyRequests:
		reason = metav1.StatusReasonTooManyRequests
	case http.StatusUnprocessableEntity:
		reason = metav1.StatusReasonInvalid
	case http.StatusInternalServerError:
		reason = metav1.StatusReasonInternalError
	}
	message := f.Message
	if message == "" {
		message = fmt.Sprintf("injected fault: %d %s", f.Code, http.StatusText(f.Code))
	}
	status := metav1.Status{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status:   metav1.StatusFailure, Code: int32(f.Code), Reason: reason, Message: message,
	}
	body, _ := json.Marshal(status)
	header := http.Header{"Content-Type": []string{"application/json"}}
	if f.Code == http.StatusTooManyRequests {
		header.Set("Retry-After", strconv.Itoa(1))
	}
	return &http.Response{
		StatusCode: f.Code, Status: fmt.Sprintf("%d %s", f.Code, http.StatusText(f.Code)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: header, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)),
		Request: req,
	}
}

// timeoutError is a request that timed out, as net/http reports one.
type timeoutError struct{}

func (timeoutError) Error() string   { return "injected fault: the request timed out" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }
