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
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
)

var pods = schema.GroupResource{Resource: "pods"}

// server answers every request with 200, and streams a watch until the client goes away.
func server(t *testing.T) *rest.Config {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") != "true" {
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Success"}`)
			return
		}
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(s.Close)
	return &rest.Config{Host: s.URL}
}

func do(t *testing.T, c *http.Client, method, path string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestInjector_Subresource: a rule on status writes fails them with the API's Status, and nothing else.
func TestInjector_Subresource(t *testing.T) {
	g := NewWithT(t)
	cfg := server(t)
	i := New()
	c, err := rest.HTTPClientFor(i.Config(cfg))
	g.Expect(err).NotTo(HaveOccurred())
	id := i.Add(Rule{Verb: "patch", Resource: pods, Subresource: "status", Fault: Conflict})

	resp := do(t, c, http.MethodPatch, cfg.Host+"/api/v1/namespaces/ns/pods/p")
	resp.Body.Close()
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK), "a write of the main resource passes")
	resp = do(t, c, http.MethodPatch, cfg.Host+"/api/v1/namespaces/ns/pods/p/status")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	g.Expect(resp.StatusCode).To(Equal(http.StatusConflict))
	g.Expect(string(body)).To(ContainSubstring(`"reason":"Conflict"`))
	g.Expect(i.Hits(id)).To(Equal(1))
}

// TestInjector_NotFound: a get answers NotFound as the API server does, which a client reads as such.
func TestInjector_NotFound(t *testing.T) {
	g := NewWithT(t)
	cfg := server(t)
	i := New()
	cfg = i.Config(cfg)
	cfg.GroupVersion = &schema.GroupVersion{Version: "v1"}
	cfg.APIPath = "/api"
	cfg.NegotiatedSerializer = statusCodecs()
	rc, err := rest.RESTClientFor(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	i.Add(Rule{Verb: "get", Resource: pods, Name: "p", Fault: NotFound})
	err = rc.Get().Namespace("ns").Resource("pods").Name("p").Do(context.Background()).Error()
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%v", err)
	g.Expect(rc.Get().Namespace("ns").Resource("pods").Name("q").Do(context.Background()).Error()).To(Succeed())
}

// TestInjector_Watch: adding a rule cuts the watches it matches, and fails the next ones until it is removed.
func TestInjector_Watch(t *testing.T) {
	g := NewWithT(t)
	cfg := server(t)
	i := New()
	c, err := rest.HTTPClientFor(i.Config(cfg))
	g.Expect(err).NotTo(HaveOccurred())
	watch := cfg.Host + "/api/v1/namespaces/ns/pods?watch=true"
	other := do(t, c, http.MethodGet, cfg.Host+"/api/v1/namespaces/ns/services?watch=true")
	defer other.Body.Close()
	resp := do(t, c, http.MethodGet, watch)
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, resp.Body)
		ended <- err
	}()
	g.Consistently(ended, 200*time.Millisecond).ShouldNot(Receive(), "the watch streams")

	id := i.Add(Rule{Verb: "watch", Resource: pods, Fault: Unavailable})
	g.Eventually(ended, 5*time.Second).Should(Receive(), "the watch was cut")
	resp.Body.Close()
	g.Expect(i.Hits(id)).To(Equal(1))

	again := do(t, c, http.MethodGet, watch)
	body, _ := io.ReadAll(again.Body)
	again.Body.Close()
	g.Expect(again.StatusCode).To(Equal(http.StatusInternalServerError))
	g.Expect(strings.Contains(string(body), "injected")).To(BeTrue())
	g.Expect(i.Hits(id)).To(Equal(2))

	i.Remove(id)
	resumed := do(t, c, http.MethodGet, watch)
	defer resumed.Body.Close()
	g.Expect(resumed.StatusCode).To(Equal(http.StatusOK))
}

// statusCodecs decodes the API server's Status answers.
func statusCodecs() runtime.NegotiatedSerializer {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return serializer.NewCodecFactory(s).WithoutConversion()
}
