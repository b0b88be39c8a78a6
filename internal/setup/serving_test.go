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

package setup_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	. "github.com/onsi/gomega"
	"github.com/spf13/pflag"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/yaml"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// servingPlane is an API server with the provider's roles bound to its ServiceAccount, which the managers of the test
// run as, the metrics-reader ClusterRole of config/rbac, and bearer tokens of ServiceAccounts with and without it.
type servingPlane struct {
	cp *env.ControlPlane
	// manager is the manager's identity: the provider's ServiceAccount (env.ProviderConfig).
	manager *rest.Config
	// readerToken is the token of a ServiceAccount bound to metrics-reader; otherToken of one bound to nothing.
	readerToken, otherToken string
}

func startServingPlane(t *testing.T, g *WithT) *servingPlane {
	t.Helper()
	ctx := t.Context()
	cp, err := env.StartControlPlane(ctx, env.ControlPlaneOptions{WithoutASO: true})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Errorf("failed to stop the control plane: %v", err)
		}
	})
	admin, err := kubernetes.NewForConfig(cp.Config)
	g.Expect(err).NotTo(HaveOccurred())

	bind := func(role, kind, name, namespace string) {
		_, err := admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{GenerateName: role + "-"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{Kind: kind, Name: name, Namespace: namespace}},
		}, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
	}
	data, err := os.ReadFile(filepath.Join(cp.RootDir, "config", "rbac", "metrics_reader_role.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	role := &rbacv1.ClusterRole{}
	g.Expect(yaml.Unmarshal(data, role)).To(Succeed())
	_, err = admin.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())

	// The managers run as the provider's ServiceAccount, bound to its generated roles only.
	g.Expect(cp.InstallProviderRBAC(ctx)).To(Succeed())
	manager, err := env.ProviderConfig(cp.Config)
	g.Expect(err).NotTo(HaveOccurred())

	token := func(name string) string {
		_, err := admin.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		tr, err := admin.CoreV1().ServiceAccounts("default").CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		return tr.Status.Token
	}
	p := &servingPlane{cp: cp, manager: manager, readerToken: token("prometheus"), otherToken: token("someone")}
	bind("metrics-reader", rbacv1.ServiceAccountKind, "prometheus", "default")
	return p
}

// servers are the addresses of a running manager's diagnostics and webhook servers.
type servers struct {
	diagnostics, webhook string
}

// startManager parses args (after the addresses and certificate directory) with the manager's flags, builds the
// servers' options as main.go does and starts a manager with them as the manager's user.
func (p *servingPlane) startManager(t *testing.T, g *WithT, args ...string) servers {
	t.Helper()
	certDir := t.TempDir()
	cert, key, err := certutil.GenerateSelfSignedCertKey("localhost", []net.IP{net.IPv4(127, 0, 0, 1)}, nil)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(os.WriteFile(filepath.Join(certDir, "tls.crt"), cert, 0o600)).To(Succeed())
	g.Expect(os.WriteFile(filepath.Join(certDir, "tls.key"), key, 0o600)).To(Succeed())

	s := servers{diagnostics: freeAddress(t, g), webhook: freeAddress(t, g)}
	_, webhookPort, _ := net.SplitHostPort(s.webhook)
	opts := setup.ServingOptions{}
	fs := pflag.NewFlagSet("manager", pflag.ContinueOnError)
	opts.AddFlags(fs)
	g.Expect(fs.Parse(append([]string{"--diagnostics-address=" + s.diagnostics, "--webhook-port=" + webhookPort, "--webhook-cert-dir=" + certDir}, args...))).To(Succeed())
	metrics, webhookOptions, err := opts.Servers()
	g.Expect(err).NotTo(HaveOccurred())
	// main.go's webhook server listens on every interface; the test's on loopback.
	webhookOptions.Host = "127.0.0.1"

	mgr, err := ctrl.NewManager(p.manager, ctrl.Options{
		Scheme:                 scheme.New(),
		Logger:                 testr.New(t),
		Metrics:                metrics,
		HealthProbeBindAddress: "0",
		WebhookServer:          webhook.NewServer(webhookOptions),
	})
	g.Expect(err).NotTo(HaveOccurred())
	// A webhook server with no webhook does not start.
	mgr.GetWebhookServer().Register("/ping", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "pong") }))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	for _, addr := range []string{s.diagnostics, s.webhook} {
		g.Eventually(func() error {
			conn, err := net.Dial("tcp", addr)
			if err == nil {
				_ = conn.Close()
			}
			return err
		}, 30*time.Second, 50*time.Millisecond).Should(Succeed(), addr)
	}
	return s
}

func freeAddress(t *testing.T, g *WithT) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	defer l.Close()
	return l.Addr().String()
}

// handshake connects to addr offering HTTP/2 and HTTP/1.1 with TLS versions min to max, and returns the protocol
// the server chose.
func handshake(addr string, minVersion, maxVersion uint16) (string, error) {
	conn, err := tls.Dial("tcp", addr, &tls.Config{
		InsecureSkipVerify: true, //nolint:gosec // the servers' certificates are self-signed
		MinVersion:         minVersion,
		MaxVersion:         maxVersion,
		NextProtos:         []string{"h2", "http/1.1"},
	})
	if err != nil {
		return "", err
	}
	defer func() { _ = conn.Close() }() // the handshake is done; closing it has nothing left to report
	return conn.ConnectionState().NegotiatedProtocol, nil
}

// request sends method path to the diagnostics server with the bearer token, if any, and returns the status code
// and body.
func request(g Gomega, addr, method, path, token, body string) (int, string) {
	req, err := http.NewRequest(method, "https://"+addr+path, strings.NewReader(body))
	g.Expect(err).NotTo(HaveOccurred())
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // self-signed
	resp, err := c.Do(req)
	g.Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	g.Expect(err).NotTo(HaveOccurred())
	return resp.StatusCode, string(out)
}

// TestServers_Diagnostics: with the manager's default flags, /metrics answers only a bearer token whose user may get
// it (the metrics-reader ClusterRole), and so do pprof and the log level; the manager's generated ClusterRole is
// enough to check tokens. --insecure-diagnostics serves plain HTTP to anyone.
func TestServers_Diagnostics(t *testing.T) {
	g := NewWithT(t)
	p := startServingPlane(t, g)
	s := p.startManager(t, g)

	tests := []struct {
		name       string
		method     string
		path       string
		token      string
		body       string
		wantStatus int
	}{
		{name: "no token", method: http.MethodGet, path: "/metrics", wantStatus: http.StatusUnauthorized},
		// The API server's TokenReview reports an error for a token it cannot read, which controller-runtime's filter
		// answers with 500; either way, no metrics.
		{name: "a token the API server cannot read", method: http.MethodGet, path: "/metrics", token: "not-a-token", wantStatus: http.StatusInternalServerError},
		{name: "a ServiceAccount without metrics-reader", method: http.MethodGet, path: "/metrics", token: p.otherToken, wantStatus: http.StatusForbidden},
		{name: "a ServiceAccount with metrics-reader", method: http.MethodGet, path: "/metrics", token: p.readerToken, wantStatus: http.StatusOK},
		{name: "metrics-reader does not open pprof", method: http.MethodGet, path: "/debug/pprof/", token: p.readerToken, wantStatus: http.StatusForbidden},
		{name: "metrics-reader does not set the log level", method: http.MethodPut, path: setup.DiagnosticsLogLevelPath, token: p.readerToken, body: "2", wantStatus: http.StatusForbidden},
		{name: "pprof needs a token", method: http.MethodGet, path: "/debug/pprof/", wantStatus: http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			status, body := request(g, s.diagnostics, tt.method, tt.path, tt.token, tt.body)
			g.Expect(status).To(Equal(tt.wantStatus), body)
			if status == http.StatusOK {
				g.Expect(body).To(ContainSubstring("# TYPE "))
			}
		})
	}

	t.Run("the log level stops below request bodies", func(t *testing.T) {
		g := NewWithT(t)
		ctx := t.Context()
		admin, err := kubernetes.NewForConfig(p.cp.Config)
		g.Expect(err).NotTo(HaveOccurred())
		_, err = admin.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "log-level"},
			Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{setup.DiagnosticsLogLevelPath}, Verbs: []string{"put"}}},
		}, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		_, err = admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "log-level"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "log-level"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "someone", Namespace: "default"}},
		}, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		// The authorizer remembers a denial for a while; the token's user was only ever denied another path.
		status, body := request(g, s.diagnostics, http.MethodPut, setup.DiagnosticsLogLevelPath, p.otherToken, strconv.Itoa(setup.MaxLogVerbosity+1))
		g.Expect(status).To(Equal(http.StatusBadRequest), body)
		status, body = request(g, s.diagnostics, http.MethodPut, setup.DiagnosticsLogLevelPath, p.otherToken, "0")
		g.Expect(status).To(Equal(http.StatusOK), body)
	})

	t.Run("insecure diagnostics", func(t *testing.T) {
		g := NewWithT(t)
		s := p.startManager(t, g, "--insecure-diagnostics")
		resp, err := http.Get("http://" + s.diagnostics + "/metrics")
		g.Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
		_, err = handshake(s.diagnostics, tls.VersionTLS12, tls.VersionTLS13)
		g.Expect(err).To(HaveOccurred(), "plain HTTP")
	})
}

// TestServers_TLS: both servers speak HTTP/1.1 only unless --enable-http2, and refuse TLS versions below
// --tls-min-version (TLS 1.2 by default).
func TestServers_TLS(t *testing.T) {
	g := NewWithT(t)
	p := startServingPlane(t, g)

	tests := []struct {
		name         string
		args         []string
		wantProtocol string
		refused      []uint16
		accepted     []uint16
	}{
		{
			name:         "defaults",
			wantProtocol: "http/1.1",
			refused:      []uint16{tls.VersionTLS10, tls.VersionTLS11},
			accepted:     []uint16{tls.VersionTLS12, tls.VersionTLS13},
		},
		{
			name:         "--enable-http2",
			args:         []string{"--enable-http2"},
			wantProtocol: "h2",
			refused:      []uint16{tls.VersionTLS11},
			accepted:     []uint16{tls.VersionTLS12, tls.VersionTLS13},
		},
		{
			name:         "--tls-min-version=VersionTLS13",
			args:         []string{"--tls-min-version=VersionTLS13"},
			wantProtocol: "http/1.1",
			refused:      []uint16{tls.VersionTLS11, tls.VersionTLS12},
			accepted:     []uint16{tls.VersionTLS13},
		},
		{
			name:         "--tls-min-version=VersionTLS11 lets TLS 1.1 in",
			args:         []string{"--tls-min-version=VersionTLS11"},
			wantProtocol: "http/1.1",
			refused:      []uint16{tls.VersionTLS10},
			accepted:     []uint16{tls.VersionTLS11, tls.VersionTLS12},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			s := p.startManager(t, g, tt.args...)
			for server, addr := range map[string]string{"diagnostics": s.diagnostics, "webhook": s.webhook} {
				for _, v := range tt.refused {
					_, err := handshake(addr, v, v)
					g.Expect(err).To(HaveOccurred(), "%s server, %s", server, tls.VersionName(v))
				}
				for _, v := range tt.accepted {
					protocol, err := handshake(addr, v, v)
					g.Expect(err).NotTo(HaveOccurred(), "%s server, %s", server, tls.VersionName(v))
					g.Expect(protocol).To(Equal(tt.wantProtocol), "%s server, %s", server, tls.VersionName(v))
				}
			}
		})
	}
}

func TestServers_InvalidFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{name: "unknown TLS version", args: []string{"--tls-min-version=VersionTLS99"}},
		{name: "unknown cipher suite", args: []string{"--tls-cipher-suites=TLS_NOT_A_SUITE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			opts := setup.ServingOptions{}
			fs := pflag.NewFlagSet("manager", pflag.ContinueOnError)
			opts.AddFlags(fs)
			g.Expect(fs.Parse(tt.args)).To(Succeed())
			_, _, err := opts.Servers()
			g.Expect(err).To(HaveOccurred())
		})
	}
}
