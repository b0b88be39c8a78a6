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

package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/capzaso/cluster-api-provider-azure/test/audit"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// The users of the management API server, one per actor, so that the audit log attributes every request. The
// provider's manager runs as env.ProviderUser (the name the API server gives its ServiceAccount), bound to its
// generated ClusterRole.
const (
	// RawUser applies the raw floor's copies, bound to the same ClusterRole (same API priority and fairness).
	RawUser = "capzaso-raw"
	// CAPIUser runs Cluster API's reconcilers.
	CAPIUser = "capi-manager"
	// ASOUser runs the ASO simulator.
	ASOUser = "asosim"
)

// Actors, as the results name them.
const (
	actorProvider = "provider"
	actorRaw      = "raw"
	actorCAPI     = "capi"
	actorASO      = "asosim"
	actorOther    = "other"
)

func actorOf(user string) string {
	switch user {
	case env.ProviderUser:
		return actorProvider
	case RawUser:
		return actorRaw
	case CAPIUser:
		return actorCAPI
	case ASOUser:
		return actorASO
	}
	return actorOther
}

// readVerbs are the audit verbs that read without watching.
var readVerbs = map[string]bool{"get": true, "list": true}

// request is one API request from the audit log.
type request struct {
	at       time.Time
	actor    string
	verb     string
	resource string // resource[/subresource]
	group    string
	code     int
	// uri is the request URI, kept for lists and watches only (memory accounting replays the provider's lists).
	uri string
}

func (r request) isWrite() bool { return audit.IsWrite(r.verb) }
func (r request) isRead() bool  { return readVerbs[r.verb] }

// auditLog reads the API server's audit log as it grows.
type auditLog struct {
	path string

	mu       sync.Mutex
	offset   int64
	requests []request
}

// sync reads the complete lines written since the last call.
func (a *auditLog) sync() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	f, err := os.Open(a.path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() < a.offset {
		return fmt.Errorf("the audit log %s shrank (rotated?): requests after offset %d are lost", a.path, a.offset)
	}
	if _, err := f.Seek(a.offset, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			return nil // an incomplete last line is read next time
		}
		if err != nil {
			return err
		}
		a.offset += int64(len(line))
		if req, ok := parseAuditLine(line); ok {
			a.requests = append(a.requests, req)
		}
	}
}

func parseAuditLine(line []byte) (request, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return request{}, false
	}
	var e audit.Event
	if err := json.Unmarshal(line, &e); err != nil || !e.Logged() {
		return request{}, false
	}
	req := request{
		at:       e.RequestReceivedTimestamp,
		actor:    actorOf(e.User.Username),
		verb:     e.Verb,
		resource: e.ObjectRef.Resource,
		group:    e.ObjectRef.APIGroup,
	}
	if e.ObjectRef.Subresource != "" {
		req.resource += "/" + e.ObjectRef.Subresource
	}
	req.code = e.Code()
	if req.verb == "list" || req.verb == "watch" {
		req.uri = e.RequestURI
	}
	return req, true
}

// between returns the requests received in [from, to).
func (a *auditLog) between(from, to time.Time) []request {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []request
	for _, r := range a.requests {
		if !r.at.Before(from) && r.at.Before(to) {
			out = append(out, r)
		}
	}
	return out
}

// lastWrite returns when the actor last wrote, or the zero time.
func (a *auditLog) lastWrite(actor string) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	var last time.Time
	for _, r := range a.requests {
		if r.actor == actor && r.isWrite() && r.at.After(last) {
			last = r.at
		}
	}
	return last
}

// Count is a number of requests for one resource and verb.
type Count struct {
	// Resource is resource[/subresource], Group its API group.
	Resource string `json:"resource"`
	Group    string `json:"group,omitempty"`
	Verb     string `json:"verb"`
	Count    int    `json:"count"`
	// Failed counts the requests the API server answered with an error (a conflict, mostly).
	Failed int `json:"failed,omitempty"`
}

// countBy counts the requests that match, by resource and verb, largest first.
func countBy(reqs []request, match func(request) bool) []Count {
	type key struct{ resource, group, verb string }
	counts := map[key]*Count{}
	for _, r := range reqs {
		if !match(r) {
			continue
		}
		k := key{r.resource, r.group, r.verb}
		c := counts[k]
		if c == nil {
			c = &Count{Resource: r.resource, Group: r.group, Verb: r.verb}
			counts[k] = c
		}
		c.Count++
		if r.code >= 300 {
			c.Failed++
		}
	}
	out := make([]Count, 0, len(counts))
	for _, c := range counts {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return fmt.Sprint(out[i].Resource, out[i].Verb) < fmt.Sprint(out[j].Resource, out[j].Verb)
	})
	return out
}

// total sums counts.
func total(counts []Count) int {
	n := 0
	for _, c := range counts {
		n += c.Count
	}
	return n
}

// writesByActor counts the writes of each actor.
func writesByActor(reqs []request) map[string]int {
	out := map[string]int{}
	for _, r := range reqs {
		if r.isWrite() {
			out[r.actor]++
		}
	}
	return out
}

// providerListURIs returns the distinct lists (URIs without paging, resource version or watch parameters) the
// provider listed or watched: its informers' lists, and its direct lists.
func providerListURIs(reqs []request) []string {
	seen := map[string]bool{}
	for _, r := range reqs {
		if r.actor != actorProvider || (r.verb != "list" && r.verb != "watch") || r.uri == "" {
			continue
		}
		path, query, _ := strings.Cut(r.uri, "?")
		var keep []string
		for _, p := range strings.Split(query, "&") {
			name, _, _ := strings.Cut(p, "=")
			switch name {
			case "", "limit", "resourceVersion", "resourceVersionMatch", "continue", "timeout", "timeoutSeconds",
				"allowWatchBookmarks", "sendInitialEvents", "watch":
				continue
			}
			keep = append(keep, p)
		}
		uri := path
		if len(keep) > 0 {
			sort.Strings(keep)
			uri += "?" + strings.Join(keep, "&")
		}
		seen[uri] = true
	}
	out := make([]string, 0, len(seen))
	for uri := range seen {
		out = append(out, uri)
	}
	sort.Strings(out)
	return out
}
