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
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// audience is the ARM token audience: not the endpoint's URL, so that a client that confuses the two fails.
const audience = "https://management.fakearm.test/"

// publicAudiences are the audiences the public cloud's Resource Manager accepts (azcore's cloud.AzurePublic asks
// for the first); a token for them is good only on requests sent to management.azure.com.
var publicAudiences = []string{"https://management.core.windows.net/", "https://management.azure.com/"}

// Options configure a Server.
type Options struct {
	// Kubeconfig returns the kubeconfig that listClusterUserCredential / listClusterAdminCredential return for the
	// managed cluster with this ARM ID (nil: a placeholder kubeconfig pointing at the cluster's fqdn).
	Kubeconfig func(managedClusterID string) ([]byte, error)
	// Polls is how many status polls a long-running PUT or DELETE stays in progress (Retry-After: 1) before it
	// completes; 0 answers every PUT and DELETE synchronously.
	Polls int
	// ClientSecrets are the service principals whose secret Entra ID checks, by client ID (see
	// RegisterClientSecret); any other client ID gets a token with any secret.
	ClientSecrets map[string]string
}

// Request is one ARM request, as received.
type Request struct {
	Method, Path, APIVersion string
	// Body is exactly as received.
	Body []byte
	// Status is the status answered.
	Status int
	Time   time.Time
	// Identity is who the request's bearer token was issued to, if the fake issued it, even when the request was
	// refused (a token of another audience); empty without a token or with one the fake did not issue.
	Identity
	// UserAgent is the request's User-Agent header: it tells which client sent it (ASO's, or another SDK client).
	UserAgent string
}

// Server is a fake Azure Resource Manager and Entra ID. It is safe for concurrent use.
type Server struct {
	opts                Options
	dir, caFile         string
	url, proxyURL       string
	server, proxyServer *http.Server
	// intercepted hands the connections the proxy takes over to server.
	intercepted *connListener

	mu        sync.Mutex
	resources map[string]*resource
	// removed counts, by key, the resources of an ID that were deleted: the next one created there is a new
	// instance, with new unique IDs (a VM's vmId), as Azure gives it.
	removed map[string]int
	// ops are the long-running operations by lower-cased path.
	ops        map[string]*operation
	opSeq      int
	requests   []Request
	entra      []entraRequest
	tokens     map[string]token
	issued     []IssuedToken
	faults     []*fault
	requestSeq int
	etagSeq    int
	// secrets are the registered client secrets by lower-cased client ID.
	secrets       map[string]string
	tokenRequests []TokenRequest
	// identityHeader is the managed identity endpoint's IDENTITY_HEADER.
	identityHeader string
}

// Start serves a new fake on 127.0.0.1, on random ports, with a certificate authority of its own.
func Start(opts Options) (*Server, error) {
	if opts.Polls < 0 {
		return nil, fmt.Errorf("failed to start the fake ARM: Polls %d is negative", opts.Polls)
	}
	certs, err := newCertificates(interceptedHosts)
	if err != nil {
		return nil, fmt.Errorf("failed to start the fake ARM: %w", err)
	}
	identityHeader, err := newIdentityHeader()
	if err != nil {
		return nil, fmt.Errorf("failed to start the fake ARM: %w", err)
	}
	dir, err := os.MkdirTemp("", "fakearm-")
	if err != nil {
		return nil, fmt.Errorf("failed to start the fake ARM: %w", err)
	}
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, certs.caPEM, 0o600); err != nil {
		return nil, errors.Join(fmt.Errorf("failed to start the fake ARM: %w", err), os.RemoveAll(dir))
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errors.Join(fmt.Errorf("failed to start the fake ARM: %w", err), os.RemoveAll(dir))
	}
	proxyListener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errors.Join(fmt.Errorf("failed to start the fake ARM's proxy: %w", err), listener.Close(), os.RemoveAll(dir))
	}
	quiet := log.New(io.Discard, "", 0) // clients that do not trust the CA would fill a test's output
	s := &Server{
		opts:        opts,
		dir:         dir,
		caFile:      caFile,
		url:         "https://" + listener.Addr().String(),
		proxyURL:    "http://" + proxyListener.Addr().String(),
		intercepted: newConnListener(proxyListener.Addr()),
		resources:   map[string]*resource{},
		removed:     map[string]int{},
		ops:         map[string]*operation{},
		tokens:      map[string]token{},
		secrets:     map[string]string{},
		// The managed identity endpoint's header, as App Service sets IDENTITY_HEADER: a secret of the host.
		identityHeader: identityHeader,
	}
	for clientID, secret := range opts.ClientSecrets {
		s.secrets[strings.ToLower(clientID)] = secret
	}
	s.server = &http.Server{
		Handler:           http.HandlerFunc(s.serve),
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{certs.leaf}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: time.Minute,
		ErrorLog:          quiet,
	}
	s.proxyServer = &http.Server{Handler: http.HandlerFunc(s.serveProxy), ReadHeaderTimeout: time.Minute, ErrorLog: quiet}
	go func() { _ = s.server.ServeTLS(listener, "", "") }()
	go func() { _ = s.server.ServeTLS(s.intercepted, "", "") }()
	go func() { _ = s.proxyServer.Serve(proxyListener) }()
	return s, nil
}

// URL is both the ARM endpoint and the Entra authority host: https://127.0.0.1:PORT.
func (s *Server) URL() string { return s.url }

// Audience is the ARM token audience to configure (AZURE_RESOURCE_MANAGER_AUDIENCE).
func (s *Server) Audience() string { return audience }

// CAFile is the path of a PEM file holding only the fake's certificate authority (SSL_CERT_FILE).
func (s *Server) CAFile() string { return s.caFile }

// ProxyURL is an HTTP proxy (HTTPS_PROXY) that answers the public cloud's Entra ID (login.microsoftonline.com,
// where MSAL sends instance discovery whatever the authority host) and Resource Manager (management.azure.com)
// itself, and refuses every other host.
func (s *Server) ProxyURL() string { return s.proxyURL }

// Close stops serving and removes the CA file.
func (s *Server) Close() error {
	return errors.Join(s.server.Close(), s.proxyServer.Close(), s.intercepted.Close(), os.RemoveAll(s.dir))
}

// Requests lists every ARM request (not Entra's), in the order answered.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		r.Body = append([]byte(nil), r.Body...)
		out[i] = r
	}
	return out
}

// serve tells ARM's requests from Entra's: on the fake's own address by path (ARM's start with subscriptions or
// providers, the managed identity endpoint's is managedIdentityPath), on the public cloud's hosts by host.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	switch {
	case isHost(r.Host, armHost):
		s.serveARM(w, r)
	case !isInterceptedHost(r.Host) && r.URL.Path == managedIdentityPath:
		s.serveManagedIdentity(w, r)
	case !isInterceptedHost(r.Host) && (strings.EqualFold(first, "subscriptions") || strings.EqualFold(first, "providers")):
		s.serveARM(w, r)
	default:
		s.serveEntra(w, r)
	}
}

// baseURL is where a request's follow-ups (operation URLs) go: the host it was sent to, the public cloud's
// Resource Manager or the fake's own address, so that the client's token is good there too.
func (s *Server) baseURL(r *http.Request) string {
	if isHost(r.Host, armHost) {
		return "https://" + armHost
	}
	return s.url
}

// answer is a response, written once the lock is released.
type answer struct {
	status int
	header http.Header
	// body is encoded as JSON, unless nil.
	body any
}

func errorAnswer(e *armError) answer {
	return answer{status: e.status, body: map[string]any{"error": map[string]any{"code": e.code, "message": e.message}}}
}

// write sends an answer; requestID becomes x-ms-request-id, which ASO's errors quote.
func (a answer) write(w http.ResponseWriter, requestID string) {
	for k, v := range a.header {
		w.Header()[k] = v
	}
	if requestID != "" {
		w.Header().Set("x-ms-request-id", requestID)
	}
	if a.body == nil {
		w.WriteHeader(a.status)
		return
	}
	raw, err := json.Marshal(a.body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(a.status)
	_, _ = w.Write(raw)
}
