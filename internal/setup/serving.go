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

package setup

import (
	"crypto/tls"
	"fmt"
	"maps"
	"slices"

	"github.com/spf13/pflag"
	"k8s.io/apiserver/pkg/server/routes"
	"sigs.k8s.io/cluster-api/util/flags"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// The metrics filter (controller-runtime's WithAuthenticationAndAuthorization) asks the API server who sent a
// bearer token and whether that user may get the path.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// DiagnosticsLogLevelPath is the diagnostics server's path that sets -v at run time (PUT a number).
const DiagnosticsLogLevelPath = "/debug/flags/v"

// ServingOptions are the manager's settings for its two servers: the diagnostics server (metrics and pprof) and
// the admission webhook server.
type ServingOptions struct {
	// ManagerOptions are Cluster API's flags, with Cluster API's names and defaults: --diagnostics-address
	// (:8443), --insecure-diagnostics, --tls-min-version (VersionTLS12), --tls-cipher-suites and
	// --tls-curve-preferences. The TLS settings apply to both servers.
	flags.ManagerOptions
	// EnableHTTP2 lets both servers negotiate HTTP/2. It is off by default: HTTP/2's stream handling has been the
	// door of denial-of-service attacks (HTTP/2 Rapid Reset, CVE-2023-44487 and CVE-2023-39325), and neither the
	// API server calling webhooks nor Prometheus needs it.
	EnableHTTP2 bool
	// WebhookPort is the webhook server's port.
	WebhookPort int
	// WebhookCertDir holds the webhook server's tls.crt and tls.key.
	WebhookCertDir string
}

// AddFlags adds the serving flags to fs.
func (o *ServingOptions) AddFlags(fs *pflag.FlagSet) {
	flags.AddManagerOptions(fs, &o.ManagerOptions)
	fs.BoolVar(&o.EnableHTTP2, "enable-http2", false,
		"Let the diagnostics (metrics) and webhook servers negotiate HTTP/2; off by default, they speak HTTP/1.1 only.")
	fs.IntVar(&o.WebhookPort, "webhook-port", 9443, "Port of the admission webhook server.")
	fs.StringVar(&o.WebhookCertDir, "webhook-cert-dir", "/tmp/k8s-webhook-server/serving-certs/", "Directory with the webhook server's tls.crt and tls.key.")
}

// Servers returns the options of the manager's diagnostics (metrics) server and webhook server. Unless
// --insecure-diagnostics is set, the diagnostics server serves HTTPS and answers only requests whose bearer token
// the API server authenticates and whose user may get the path (a ClusterRole with nonResourceURLs /metrics).
// Both servers use the TLS settings, and speak HTTP/1.1 only unless EnableHTTP2.
func (o ServingOptions) Servers() (metricsserver.Options, webhook.Options, error) {
	tlsOpts, metrics, err := flags.GetManagerOptions(o.ManagerOptions)
	if err != nil {
		return metricsserver.Options{}, webhook.Options{}, fmt.Errorf("invalid serving flags: %w", err)
	}
	// A fresh slice: Cluster API's metrics options share tlsOpts.
	tlsOpts = slices.Clone(tlsOpts)
	if !o.EnableHTTP2 {
		tlsOpts = append(tlsOpts, disableHTTP2)
	}
	if metrics.SecureServing {
		metrics.TLSOpts = tlsOpts
		// Cluster API's handler sets any -v; ours refuses what would log request bodies (see MaxLogVerbosity).
		metrics.ExtraHandlers = maps.Clone(metrics.ExtraHandlers)
		metrics.ExtraHandlers[DiagnosticsLogLevelPath] = routes.StringFlagPutHandler(SetLogVerbosity)
	}
	return *metrics, webhook.Options{Port: o.WebhookPort, CertDir: o.WebhookCertDir, TLSOpts: tlsOpts}, nil
}

// disableHTTP2 offers only HTTP/1.1 in the TLS handshake (ALPN), so no client can switch to HTTP/2.
func disableHTTP2(c *tls.Config) {
	c.NextProtos = []string{"http/1.1"}
}
