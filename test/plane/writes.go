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

package plane

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/capzaso/cluster-api-provider-azure/test/audit"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// auditWebhookConfig is the kubeconfig of the audit webhook: the API server posts the provider's audit events to
// the plane's WriteWatcher.
const auditWebhookConfig = `apiVersion: v1
kind: Config
clusters:
- name: writes
  cluster:
    server: http://%s/audit
users:
- name: writes
  user: {}
contexts:
- name: writes
  context:
    cluster: writes
    user: writes
current-context: writes
`

// WriteWatcher sees every write of the provider's user that the API server completed: the API server's audit
// webhook posts each to it, and waits for the answer before it answers the provider (blocking mode). A trigger
// armed for the Nth write therefore runs after the write is stored and before the provider hears of it: a kill
// there stops the provider in the middle of a pass, between two writes.
type WriteWatcher struct {
	listener net.Listener
	server   *http.Server

	mu       sync.Mutex
	writes   int
	triggers []*trigger
	// objects counts the writes of each object (ObjectWrite).
	objects map[ObjectWrite]int
}

// ObjectWrite names an object the provider wrote: its API group, resource, namespace and name.
type ObjectWrite struct {
	Group, Resource, Namespace, Name string
}

// trigger runs fn once the writes reach at.
type trigger struct {
	at int
	fn func()
}

// startWriteWatcher starts a watcher on a free loopback port and returns the kube-apiserver flags of its audit
// webhook; the files are written into dir.
func startWriteWatcher(dir string) (*WriteWatcher, map[string]string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	w := &WriteWatcher{listener: l, objects: map[ObjectWrite]int{}}
	w.server = &http.Server{Handler: http.HandlerFunc(w.serve), ReadHeaderTimeout: 10 * Interval}
	policy, kubeconfig := filepath.Join(dir, "audit-policy.yaml"), filepath.Join(dir, "audit-webhook.kubeconfig")
	// The API server has one audit policy for all its backends: when it keeps the log of every request of the
	// provider for test/rbaccheck, the webhook receives them all too, and serve counts the writes among them;
	// otherwise it audits the provider's writes only.
	scope := env.ProviderAudit
	if os.Getenv(env.RBACUsageDirEnvVar) == "" {
		scope.Verbs = audit.WriteVerbs
	}
	err = errors.Join(
		os.WriteFile(policy, []byte(scope.Policy()), 0o600),
		os.WriteFile(kubeconfig, fmt.Appendf(nil, auditWebhookConfig, l.Addr()), 0o600),
	)
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	go func() { _ = w.server.Serve(l) }()
	return w, map[string]string{
		"audit-policy-file":         policy,
		"audit-webhook-config-file": kubeconfig,
		"audit-webhook-mode":        "blocking",
	}, nil
}

// isWrite reports whether an event is a completed, successful write of the provider's objects: not of its leader
// election lease or its events, which it writes whatever its controllers do.
func isWrite(e audit.Event) bool {
	if !audit.IsWrite(e.Verb) || !e.Logged() || e.User.Username != env.ProviderUser {
		return false
	}
	switch e.ObjectRef.APIGroup + "/" + e.ObjectRef.Resource {
	case "coordination.k8s.io/leases", "/events", "events.k8s.io/events":
		return false
	}
	return e.ResponseStatus != nil && e.Code() < 300
}

func (w *WriteWatcher) serve(rw http.ResponseWriter, req *http.Request) {
	var list struct {
		Items []audit.Event `json:"items"`
	}
	if err := json.NewDecoder(req.Body).Decode(&list); err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	for _, e := range list.Items {
		if isWrite(e) {
			w.wrote(ObjectWrite{Group: e.ObjectRef.APIGroup, Resource: e.ObjectRef.Resource, Namespace: e.ObjectRef.Namespace, Name: e.ObjectRef.Name})
		}
	}
	rw.WriteHeader(http.StatusOK)
}

// wrote counts a write and runs the triggers it reached, before the API server answers the provider.
func (w *WriteWatcher) wrote(obj ObjectWrite) {
	w.mu.Lock()
	w.writes++
	w.objects[obj]++
	var due []*trigger
	kept := w.triggers[:0]
	for _, t := range w.triggers {
		if t.at <= w.writes {
			due = append(due, t)
		} else {
			kept = append(kept, t)
		}
	}
	w.triggers = kept
	w.mu.Unlock()
	for _, t := range due {
		t.fn()
	}
}

// Writes returns how many writes of the provider the watcher has seen.
func (w *WriteWatcher) Writes() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes
}

// WritesOf returns how many times the provider wrote an object (any subresource of it).
func (w *WriteWatcher) WritesOf(obj ObjectWrite) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.objects[obj]
}

// AfterWrites runs fn once the provider has written n more times, before the API server answers the nth write.
// The returned function disarms it, and reports whether it was still armed.
func (w *WriteWatcher) AfterWrites(n int, fn func()) (disarm func() bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := &trigger{at: w.writes + max(n, 1), fn: fn}
	w.triggers = append(w.triggers, t)
	return func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		for i, armed := range w.triggers {
			if armed == t {
				w.triggers = append(w.triggers[:i], w.triggers[i+1:]...)
				return true
			}
		}
		return false
	}
}

// close stops the watcher.
func (w *WriteWatcher) close() error {
	return w.server.Close()
}
