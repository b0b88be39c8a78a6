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

package env

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/capzaso/cluster-api-provider-azure/test/audit"
)

// RBACUsageDirEnvVar names an environment variable: when it names a directory, StartControlPlane turns on the API
// server's audit log for the provider's ServiceAccount, and Stop of a control plane with the provider's RBAC installed
// writes the requests the provider made, aggregated, to a new rbac-usage-*.json file (an RBACUsage) there. `make test` sets it for every package and then checks with
// test/rbaccheck that the provider used every rule of its roles and was never denied.
const RBACUsageDirEnvVar = "CAPZASO_RBAC_USAGE_DIR"

// RBACRequest is one kind of request of the provider, as the API server authorized it.
type RBACRequest struct {
	Verb        string `json:"verb"`
	APIGroup    string `json:"apiGroup,omitempty"`
	Resource    string `json:"resource"`
	Subresource string `json:"subresource,omitempty"`
	// Namespace is set for requests in the provider's own namespace (where its Role applies), Name for requests
	// on cluster-scoped objects: neither matters for the ClusterRole's rules (which do not name namespaced objects),
	// and the tests' namespaces and objects have random names.
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	// Created is set for a patch (server-side apply) that created the object: the API server authorized it as a
	// create too.
	Created bool `json:"created,omitempty"`
	// Forbidden is set when the API server's authorizer denied the request (not when admission refused it).
	Forbidden bool `json:"forbidden,omitempty"`
}

// RBACUsage is the content of a usage file.
type RBACUsage struct {
	// Source is the working directory of the test binary that wrote it: its package.
	Source string `json:"source"`
	// Requests are the distinct requests, sorted, with how often each was made.
	Requests []RBACRequestCount `json:"requests"`
}

// RBACRequestCount is a request and how often the provider made it.
type RBACRequestCount struct {
	RBACRequest
	Count int `json:"count"`
}

// ProviderAudit is what the RBAC usage record logs: every resource request of the provider. A suite that sends the
// API server's audit events elsewhere too (an audit webhook) logs as much, since both backends share the API
// server's one policy.
var ProviderAudit = audit.Scope{Users: []string{ProviderUser}}

// usageRecorder holds the audit log of one control plane while it runs.
type usageRecorder struct {
	outDir  string
	tmpDir  string
	logPath string
}

// newUsageRecorder returns nil, nil when RBACUsageDirEnvVar is not set; otherwise a recorder and the
// kube-apiserver flags that turn the audit log on.
func newUsageRecorder() (*usageRecorder, map[string]string, error) {
	outDir := os.Getenv(RBACUsageDirEnvVar)
	if outDir == "" {
		return nil, nil, nil
	}
	tmp, err := os.MkdirTemp("", "capzaso-rbac-audit-")
	if err != nil {
		return nil, nil, err
	}
	policy := filepath.Join(tmp, "policy.yaml")
	if err := os.WriteFile(policy, []byte(ProviderAudit.Policy()), 0o600); err != nil {
		return nil, nil, errors.Join(err, os.RemoveAll(tmp))
	}
	r := &usageRecorder{outDir: outDir, tmpDir: tmp, logPath: filepath.Join(tmp, "audit.log")}
	return r, map[string]string{
		"audit-policy-file": policy,
		"audit-log-path":    r.logPath,
		// One file, never rotated (the default rotates at 100 MB).
		"audit-log-maxsize": "1000000",
	}, nil
}

// discard removes the audit log; a nil recorder does nothing.
func (r *usageRecorder) discard() error {
	if r == nil {
		return nil
	}
	return os.RemoveAll(r.tmpDir)
}

// finish reads the audit log (the API server has stopped), writes the usage file and removes the log; a nil
// recorder does nothing.
func (r *usageRecorder) finish() (err error) {
	if r == nil {
		return nil
	}
	defer func() { err = errors.Join(err, os.RemoveAll(r.tmpDir)) }()
	f, err := os.Open(r.logPath)
	if errors.Is(err, os.ErrNotExist) {
		return r.write(nil) // the provider made no request
	}
	if err != nil {
		return err
	}
	defer f.Close()
	counts, err := parseRBACAudit(f)
	if err != nil {
		return fmt.Errorf("failed to read the audit log %s: %w", r.logPath, err)
	}
	return r.write(counts)
}

func (r *usageRecorder) write(counts map[RBACRequest]int) error {
	wd, _ := os.Getwd()
	usage := RBACUsage{Source: wd, Requests: []RBACRequestCount{}}
	for req, n := range counts {
		usage.Requests = append(usage.Requests, RBACRequestCount{RBACRequest: req, Count: n})
	}
	sort.Slice(usage.Requests, func(i, j int) bool {
		a, b := usage.Requests[i], usage.Requests[j]
		return fmt.Sprint(a.RBACRequest) < fmt.Sprint(b.RBACRequest)
	})
	data, err := json.MarshalIndent(usage, "", " ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(r.outDir, 0o755); err != nil {
		return err
	}
	out, err := os.CreateTemp(r.outDir, "rbac-usage-*.json")
	if err != nil {
		return err
	}
	_, err = out.Write(data)
	return errors.Join(err, out.Close())
}

// The audit annotation in which the API server's authorization filter records its decision, and its value for a
// denial. A 403 alone is no RBAC denial: admission refuses writes with 403 too (a webhook's denial, a new object in
// a terminating namespace).
const (
	authorizationDecisionAnnotation = "authorization.k8s.io/decision"
	authorizationForbid             = "forbid"
)

// parseRBACAudit counts the provider's resource requests in an audit log: one event per request (a watch when it
// starts, anything else when it completes).
func parseRBACAudit(r io.Reader) (map[RBACRequest]int, error) {
	counts := map[RBACRequest]int{}
	err := audit.Read(r, func(e audit.Event) {
		if req, ok := rbacRequestOf(e); ok {
			counts[req]++
		}
	})
	return counts, err
}

func rbacRequestOf(e audit.Event) (RBACRequest, bool) {
	if !e.Logged() || e.User.Username != ProviderUser {
		return RBACRequest{}, false
	}
	req := RBACRequest{
		Verb: e.Verb, APIGroup: e.ObjectRef.APIGroup, Resource: e.ObjectRef.Resource, Subresource: e.ObjectRef.Subresource,
	}
	switch e.ObjectRef.Namespace {
	case ProviderNamespace:
		req.Namespace = ProviderNamespace
	case "":
		req.Name = e.ObjectRef.Name
	}
	req.Forbidden = e.Annotations[authorizationDecisionAnnotation] == authorizationForbid
	req.Created = e.Verb == "patch" && e.Code() == 201
	return req, true
}
