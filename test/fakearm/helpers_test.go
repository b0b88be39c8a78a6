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
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	armruntime "github.com/Azure/azure-sdk-for-go/sdk/azcore/arm/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
)

const (
	testSubscription = "00000000-0000-0000-0000-000000000001"
	testTenant       = "00000000-0000-0000-0000-00000000000a"
	testRG           = "/subscriptions/" + testSubscription + "/resourceGroups/rg"
	network          = testRG + "/providers/Microsoft.Network"
	apiVersion       = "2024-03-01"
)

// armResource and armDeleted are the pollers' result types (azcore's resume tokens need named types).
type (
	armResource map[string]any
	armDeleted  struct{}
)

// start starts a fake that the test closes.
func start(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatalf("failed to start the fake ARM: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("failed to close the fake ARM: %v", err)
		}
	})
	return s
}

// startClient starts a fake that the test closes and an ARM client of it.
func startClient(t *testing.T, opts Options) (*Server, armClient) {
	t.Helper()
	s := start(t, opts)
	return s, newARMClient(t, s)
}

// startInGroup is startClient with the resource group testRG created in eastus.
func startInGroup(t *testing.T, opts Options) (*Server, armClient) {
	t.Helper()
	s, c := startClient(t, opts)
	c.create(testRG, map[string]any{"location": "eastus"})
	return s, c
}

// httpClient trusts the fake's CA (read from CAFile, not through SSL_CERT_FILE) and proxies as
// http.ProxyFromEnvironment does with HTTPS_PROXY=ProxyURL(): every host but a loopback one.
func httpClient(t *testing.T, s *Server) *http.Client {
	t.Helper()
	ca, err := os.ReadFile(s.CAFile())
	if err != nil {
		t.Fatalf("failed to read the CA: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatalf("no certificate in %s", s.CAFile())
	}
	proxy, err := url.Parse(s.ProxyURL())
	if err != nil {
		t.Fatalf("failed to parse the proxy URL: %v", err)
	}
	return &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		Proxy: func(r *http.Request) (*url.URL, error) {
			if ip := net.ParseIP(r.URL.Hostname()); r.URL.Hostname() == "localhost" || (ip != nil && ip.IsLoopback()) {
				return nil, nil
			}
			return proxy, nil
		},
	}}
}

// cloudOf is the fake as the custom cloud ASO builds from its environment.
func cloudOf(s *Server) cloud.Configuration {
	return cloud.Configuration{
		ActiveDirectoryAuthorityHost: s.URL(),
		Services:                     map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {Endpoint: s.URL(), Audience: s.Audience()}},
	}
}

// credential is a service principal, as ASO's global credential is.
func credential(t *testing.T, s *Server, client *http.Client) azcore.TokenCredential {
	t.Helper()
	cred, err := azidentity.NewClientSecretCredential(testTenant, "client", "secret", &azidentity.ClientSecretCredentialOptions{
		ClientOptions: azcore.ClientOptions{Cloud: cloudOf(s), Transport: client},
	})
	if err != nil {
		t.Fatalf("failed to create the credential: %v", err)
	}
	return cred
}

// armClient sends requests through azcore's ARM pipeline, built as ASO's generic client builds it (no retries, no
// resource provider registration).
type armClient struct {
	t  *testing.T
	s  *Server
	pl runtime.Pipeline
	// endpoint is where requests go; empty is the fake's own URL.
	endpoint string
}

func newARMClient(t *testing.T, s *Server) armClient {
	t.Helper()
	client := httpClient(t, s)
	pl, err := armruntime.NewPipeline("fakearm-test", "v0.0.0", credential(t, s, client), runtime.PipelineOptions{}, &arm.ClientOptions{
		ClientOptions:         policy.ClientOptions{Cloud: cloudOf(s), Transport: client, Retry: policy.RetryOptions{MaxRetries: -1}},
		DisableRPRegistration: true,
	})
	if err != nil {
		t.Fatalf("failed to create the pipeline: %v", err)
	}
	return armClient{t: t, s: s, pl: pl}
}

// do sends a request with a JSON body (raw bytes as they are) and api-version (none if empty).
func (c armClient) do(method, path string, body any, version string) *http.Response {
	c.t.Helper()
	resp, err := c.pl.Do(c.requestVersion(method, path, body, version))
	if err != nil {
		c.t.Fatalf("%s %s failed: %v", method, path, err)
	}
	return resp
}

// request is a request with a JSON body and the test's api-version, for do's caller to change before sending.
func (c armClient) request(method, path string, body any) *policy.Request {
	c.t.Helper()
	return c.requestVersion(method, path, body, apiVersion)
}

func (c armClient) requestVersion(method, path string, body any, version string) *policy.Request {
	c.t.Helper()
	endpoint := c.endpoint
	if endpoint == "" {
		endpoint = c.s.URL()
	}
	req, err := runtime.NewRequest(context.Background(), method, runtime.JoinPaths(endpoint, path))
	if err != nil {
		c.t.Fatalf("failed to create the request: %v", err)
	}
	if version != "" {
		q := req.Raw().URL.Query()
		q.Set("api-version", version)
		req.Raw().URL.RawQuery = q.Encode()
	}
	req.Raw().Header.Set("Accept", "application/json")
	switch b := body.(type) {
	case nil:
	case []byte:
		if err := req.SetBody(streaming.NopCloser(bytes.NewReader(b)), "application/json"); err != nil {
			c.t.Fatalf("failed to set the body: %v", err)
		}
	default:
		if err := runtime.MarshalAsJSON(req, b); err != nil {
			c.t.Fatalf("failed to set the body: %v", err)
		}
	}
	return req
}

// object reads a response's JSON object.
func object(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("failed to read the response: %v", err)
	}
	out := map[string]any{}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("the response is not a JSON object: %v: %s", err, raw)
	}
	return out
}

// errorCode is the code of an ARM error response.
func errorCode(t *testing.T, resp *http.Response) string {
	t.Helper()
	e, _ := object(t, resp)["error"].(map[string]any)
	return str(e, "code")
}

// beginPut sends a PUT and makes a poller of the answer, as ASO's BeginCreateOrUpdateByID does.
func (c armClient) beginPut(id string, body any) (*http.Response, *runtime.Poller[armResource]) {
	c.t.Helper()
	resp := c.do(http.MethodPut, id, body, apiVersion)
	if !runtime.HasStatusCode(resp, http.StatusOK, http.StatusCreated, http.StatusAccepted) {
		c.t.Fatalf("PUT %s: %d %v", id, resp.StatusCode, object(c.t, resp))
	}
	p, err := runtime.NewPoller[armResource](resp, c.pl, nil)
	if err != nil {
		c.t.Fatalf("failed to make a poller for PUT %s: %v", id, err)
	}
	return resp, p
}

// beginDelete sends a DELETE and makes a poller of the answer, as ASO's BeginDeleteByID does.
func (c armClient) beginDelete(id string) (*http.Response, *runtime.Poller[armDeleted]) {
	c.t.Helper()
	resp := c.do(http.MethodDelete, id, nil, apiVersion)
	if !runtime.HasStatusCode(resp, http.StatusOK, http.StatusAccepted, http.StatusNoContent) {
		c.t.Fatalf("DELETE %s: %d %v", id, resp.StatusCode, object(c.t, resp))
	}
	p, err := runtime.NewPoller[armDeleted](resp, c.pl, nil)
	if err != nil {
		c.t.Fatalf("failed to make a poller for DELETE %s: %v", id, err)
	}
	return resp, p
}

// resume drives a poller the way ASO's reconciler does, one reconcile at a time: a new poller from the resume token,
// one Poll, and Result once done. It returns the result and how many polls it took (at most 20).
func resume[T any](c armClient, p *runtime.Poller[T]) (T, int, error) {
	c.t.Helper()
	var zero T
	ctx := context.Background()
	for polls := 0; polls < 20; polls++ {
		if p.Done() {
			result, err := p.Result(ctx)
			return result, polls, err
		}
		token, err := p.ResumeToken()
		if err != nil {
			return zero, polls, err
		}
		if p, err = runtime.NewPollerFromResumeToken[T](token, c.pl, nil); err != nil {
			return zero, polls, err
		}
		if _, err := p.Poll(ctx); err != nil {
			return zero, polls + 1, err
		}
	}
	return zero, 20, nil
}

// create PUTs a resource and waits for it, failing the test on an error.
func (c armClient) create(id string, body any) armResource {
	c.t.Helper()
	_, p := c.beginPut(id, body)
	result, _, err := resume(c, p)
	if err != nil {
		c.t.Fatalf("PUT %s failed: %v", id, err)
	}
	return result
}

// remove DELETEs a resource and waits for it, failing the test on an error.
func (c armClient) remove(id string) {
	c.t.Helper()
	_, p := c.beginDelete(id)
	if _, _, err := resume(c, p); err != nil {
		c.t.Fatalf("DELETE %s failed: %v", id, err)
	}
}

// get GETs a resource: its status and body.
func (c armClient) get(id string) (int, map[string]any) {
	c.t.Helper()
	resp := c.do(http.MethodGet, id, nil, apiVersion)
	return resp.StatusCode, object(c.t, resp)
}

// at follows a path of keys through decoded JSON (nil where it stops).
func at(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// names lists the names of a JSON list of objects.
func names(v any) []string {
	list, _ := v.([]any)
	out := []string{}
	for _, e := range list {
		out = append(out, str(e.(map[string]any), "name"))
	}
	return out
}
