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

package parity

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// TestAsProvider: the provider's controllers write with the provider's User-Agent, the rest of the manager with its
// own, so that the audit log tells them apart. The API server is a stub that records who wrote.
func TestAsProvider(t *testing.T) {
	g := NewWithT(t)
	var mu sync.Mutex
	writers := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api":
			_, _ = io.WriteString(w, `{"kind":"APIVersions","versions":["v1"]}`)
		case r.URL.Path == "/apis":
			_, _ = io.WriteString(w, `{"kind":"APIGroupList","groups":[]}`)
		case r.URL.Path == "/api/v1":
			_, _ = io.WriteString(w, `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","namespaced":true,"kind":"ConfigMap","verbs":["create","get"]}]}`)
		case r.Method == http.MethodPost:
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			writers[string(body)] = r.UserAgent()
			mu.Unlock()
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write(body)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	mgr, err := ctrl.NewManager(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: "application/json"}}, ctrl.Options{Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	g.Expect(err).NotTo(HaveOccurred())
	provider, err := asProvider(mgr, client.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(provider.GetCache()).To(BeIdenticalTo(mgr.GetCache()), "the provider reads from the shared cache")

	create := func(c client.Client, name string) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
		g.Expect(c.Create(context.Background(), cm)).To(Succeed())
	}
	create(provider.GetClient(), "by-provider")
	create(mgr.GetClient(), "by-cluster-api")
	mu.Lock()
	defer mu.Unlock()
	g.Expect(writers).To(HaveLen(2))
	for body, ua := range writers {
		if strings.Contains(body, "by-provider") {
			g.Expect(ua).To(Equal(providerUserAgent))
			g.Expect(writerOf(ua)).To(Equal(WriterManager))
		} else {
			g.Expect(writerOf(ua)).To(Equal(WriterClusterAPI), ua)
		}
	}
}

// TestAuditFlags: the policy logs writes only, into the side's audit log in the log directory.
func TestAuditFlags(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	flags, err := auditFlags(dir, "CAPZ")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(flags).To(HaveKeyWithValue("audit-log-path", filepath.Join(dir, "CAPZ-audit.log")))
	policy, err := os.ReadFile(flags["audit-policy-file"])
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(policy)).To(ContainSubstring(`verbs: ["create", "update", "patch", "delete", "deletecollection"]`))
}
