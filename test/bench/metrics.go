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
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// metricFamilies are parsed Prometheus metrics.
type metricFamilies map[string]*dto.MetricFamily

func parseMetrics(data []byte) (metricFamilies, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("failed to parse metrics: %w", err)
	}
	return families, nil
}

// sum adds the values of a counter or gauge, grouped by the given labels ("" when none is given).
func (m metricFamilies) sum(name string, by ...string) map[string]float64 {
	out := map[string]float64{}
	f := m[name]
	if f == nil {
		return out
	}
	for _, metric := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range metric.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		var parts []string
		for _, b := range by {
			parts = append(parts, labels[b])
		}
		key := strings.Join(parts, " ")
		switch {
		case metric.GetCounter() != nil:
			out[key] += metric.GetCounter().GetValue()
		case metric.GetGauge() != nil:
			out[key] += metric.GetGauge().GetValue()
		case metric.GetUntyped() != nil:
			out[key] += metric.GetUntyped().GetValue()
		}
	}
	return out
}

// histogram adds the sums and counts of a histogram, grouped by one label.
func (m metricFamilies) histogram(name, by string) (sums, counts map[string]float64) {
	sums, counts = map[string]float64{}, map[string]float64{}
	f := m[name]
	if f == nil {
		return sums, counts
	}
	for _, metric := range f.GetMetric() {
		h := metric.GetHistogram()
		if h == nil {
			continue
		}
		key := ""
		for _, l := range metric.GetLabel() {
			if l.GetName() == by {
				key = l.GetValue()
			}
		}
		sums[key] += h.GetSampleSum()
		counts[key] += float64(h.GetSampleCount())
	}
	return sums, counts
}

// value is the single value of a metric without labels, or 0.
func (m metricFamilies) value(name string) float64 { return m.sum(name)[""] }

// delta subtracts before from after, key by key, dropping zeros.
func delta(before, after map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// apiServerMetrics reads the API server's metrics with the admin client.
func apiServerMetrics(ctx context.Context, admin *rest.Config) (metricFamilies, error) {
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return nil, err
	}
	data, err := cs.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to read the API server's metrics: %w", err)
	}
	return parseMetrics(data)
}

// apiServerWrites are the mutating requests the API server counted (every user), by "VERB resource[/sub]".
func apiServerWrites(m metricFamilies) map[string]float64 {
	out := map[string]float64{}
	for key, v := range m.sum("apiserver_request_total", "verb", "resource", "subresource") {
		parts := strings.SplitN(key, " ", 3)
		switch parts[0] {
		case "POST", "PUT", "PATCH", "APPLY", "DELETE", "DELETECOLLECTION":
		default:
			continue
		}
		name := parts[0] + " " + parts[1]
		if parts[2] != "" {
			name += "/" + parts[2]
		}
		out[name] += v
	}
	return out
}

// metricsScraper reads the provider manager's metrics endpoint: over HTTP as the benchmark starts it
// (--insecure-diagnostics) and, when it serves HTTPS with authentication and authorization (its default), with a
// service account token allowed to GET /metrics.
type metricsScraper struct {
	addr  string
	admin *rest.Config

	mu     sync.Mutex
	https  bool
	token  string
	client *http.Client
}

func newMetricsScraper(addr string, admin *rest.Config) *metricsScraper {
	return &metricsScraper{addr: addr, admin: admin, client: &http.Client{
		Timeout: 10 * time.Second,
		// The manager's serving certificate is self-signed; what is read is not sensitive here.
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec
	}}
}

func (s *metricsScraper) scrape(ctx context.Context) (metricFamilies, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.https {
		data, status, err := s.get(ctx, "http://"+s.addr+"/metrics", "")
		if err == nil && status == http.StatusOK {
			return parseMetrics(data)
		}
		// An HTTPS server answers plain HTTP with 400; anything else is a failure to report.
		if err != nil || status != http.StatusBadRequest {
			return nil, fmt.Errorf("failed to read the manager's metrics over HTTP (status %d): %v", status, err)
		}
		s.https = true
	}
	if s.token == "" {
		token, err := metricsToken(ctx, s.admin)
		if err != nil {
			return nil, err
		}
		s.token = token
	}
	data, status, err := s.get(ctx, "https://"+s.addr+"/metrics", s.token)
	if err != nil || status != http.StatusOK {
		return nil, fmt.Errorf("failed to read the manager's metrics over HTTPS (status %d): %v", status, err)
	}
	return parseMetrics(data)
}

func (s *metricsScraper) get(ctx context.Context, url, token string) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return data, resp.StatusCode, err
}

// metricsReader is the service account whose token reads a metrics endpoint that authorizes with the API server.
const metricsReader = "capzaso-bench-metrics"

// metricsToken returns a token of a service account allowed to GET /metrics.
func metricsToken(ctx context.Context, admin *rest.Config) (string, error) {
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return "", err
	}
	ns := metav1.NamespaceDefault
	objs := []func() error{
		func() error {
			_, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: metricsReader}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
				ObjectMeta: metav1.ObjectMeta{Name: metricsReader},
				Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}},
			}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: metricsReader},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: metricsReader},
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: metricsReader, Namespace: ns}},
			}, metav1.CreateOptions{})
			return err
		},
	}
	for _, create := range objs {
		if err := create(); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", fmt.Errorf("failed to set up the metrics reader: %w", err)
		}
	}
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, metricsReader, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(24 * 3600))},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("failed to get a token of the metrics reader: %w", err)
	}
	return tr.Status.Token, nil
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
