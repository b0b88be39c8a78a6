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
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	armruntime "github.com/Azure/azure-sdk-for-go/sdk/azcore/arm/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	. "github.com/onsi/gomega"
)

// childEnv marks the test binary run as a process configured only through the environment, as ASO is.
const childEnv = "FAKEARM_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
	case publicChildMode:
		os.Exit(publicChild())
	case managedIdentityChildMode:
		os.Exit(managedIdentityChild())
	default:
		os.Exit(child())
	}
	os.Exit(m.Run())
}

// child gets a token and GETs the subscription with azidentity's and azcore's default transports, configured as ASO
// configures them: the cloud from AZURE_* variables, trust from SSL_CERT_FILE, the proxy from HTTPS_PROXY.
func child() int {
	c := cloudFromEnvironment()
	cred, err := azidentity.NewClientSecretCredential(os.Getenv("AZURE_TENANT_ID"), os.Getenv("AZURE_CLIENT_ID"), os.Getenv("AZURE_CLIENT_SECRET"),
		&azidentity.ClientSecretCredentialOptions{ClientOptions: azcore.ClientOptions{Cloud: c}})
	return getSubscriptionWith(c, cred, err)
}

// TestEntra_ClientSecretCredential: azidentity's service principal credential, with the fake as a custom cloud, gets a
// token through MSAL's whole flow for an authority it does not know (instance discovery through the proxy, the
// tenant's OpenID configuration, the token), every request answered; the next token comes from MSAL's cache, which
// needs the discovery's aliases; ARM accepts the token.
func TestEntra_ClientSecretCredential(t *testing.T) {
	g := NewWithT(t)
	s := start(t, Options{})
	cred := credential(t, s, httpClient(t, s))
	host := strings.TrimPrefix(s.URL(), "https://")

	tok, err := cred.GetToken(t.Context(), policy.TokenRequestOptions{Scopes: []string{s.Audience() + "/.default"}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(tok.Token).To(HavePrefix("fakearm."))
	g.Expect(tok.ExpiresOn).To(BeTemporally("~", time.Now().Add(time.Hour), 5*time.Minute))

	s.mu.Lock()
	seen := append([]entraRequest(nil), s.entra...)
	s.mu.Unlock()
	g.Expect(seen).To(ContainElements(
		entraRequest{Method: "GET", Host: "login.microsoftonline.com", Path: "/common/discovery/instance", Status: 200},
		entraRequest{Method: "GET", Host: host, Path: "/" + testTenant + "/v2.0/.well-known/openid-configuration", Status: 200},
		entraRequest{Method: "POST", Host: host, Path: "/" + testTenant + "/oauth2/v2.0/token", Status: 200},
	))
	g.Expect(seen).To(HaveEach(HaveField("Status", 200)), "MSAL's every request is answered")
	t.Logf("MSAL's requests: %+v", seen)
	g.Expect(s.Requests()).To(BeEmpty(), "Entra's requests are not ARM's")

	again, err := cred.GetToken(t.Context(), policy.TokenRequestOptions{Scopes: []string{s.Audience() + "/.default"}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(again.Token).To(Equal(tok.Token))
	s.mu.Lock()
	g.Expect(s.entra).To(HaveLen(len(seen)), "the second token comes from MSAL's cache")
	s.mu.Unlock()

	c := newARMClient(t, s)
	status, body := c.get("/subscriptions/" + testSubscription)
	g.Expect(status).To(Equal(http.StatusOK))
	g.Expect(body).To(HaveKeyWithValue("tenantId", testTenant))
}

// TestEntra_ProcessEnvironment: a process configured as ASO is, by environment only (AZURE_AUTHORITY_HOST and the
// resource manager's endpoint and audience, SSL_CERT_FILE=CAFile(), HTTPS_PROXY=ProxyURL()), gets a token and reaches
// ARM with azcore's default transport; the proxy carried only MSAL's instance discovery.
func TestEntra_ProcessEnvironment(t *testing.T) {
	g := NewWithT(t)
	s := start(t, Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		upper := strings.ToUpper(name)
		if !strings.HasSuffix(upper, "_PROXY") && !strings.HasPrefix(upper, "AZURE_") && !strings.HasPrefix(upper, "SSL_CERT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, childEnv+"=1",
		"AZURE_AUTHORITY_HOST="+s.URL(), "AZURE_RESOURCE_MANAGER_ENDPOINT="+s.URL(), "AZURE_RESOURCE_MANAGER_AUDIENCE="+s.Audience(),
		"AZURE_TENANT_ID="+testTenant, "AZURE_CLIENT_ID=client", "AZURE_CLIENT_SECRET=secret",
		"SSL_CERT_FILE="+s.CAFile(), "HTTPS_PROXY="+s.ProxyURL())
	out, err := cmd.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "%s", out)

	s.mu.Lock()
	defer s.mu.Unlock()
	var proxied []string
	for _, r := range s.entra {
		if r.Host == "login.microsoftonline.com" {
			proxied = append(proxied, r.Method+" "+r.Path)
		}
	}
	g.Expect(proxied).NotTo(BeEmpty())
	g.Expect(proxied).To(HaveEach("GET /common/discovery/instance"))
	g.Expect(s.requests).To(ConsistOf(HaveField("Status", http.StatusOK)))
}

// TestEntra_Errors: what the token endpoint and discovery refuse, in OAuth's error shape.
func TestEntra_Errors(t *testing.T) {
	s := start(t, Options{})
	client := httpClient(t, s)
	tokenURL := s.URL() + "/" + testTenant + "/oauth2/v2.0/token"
	form := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	tests := []struct {
		name       string
		do         func() (*http.Response, error)
		wantStatus int
		wantError  string
	}{
		{
			name: "another grant",
			do: func() (*http.Response, error) {
				return client.PostForm(tokenURL, form("grant_type", "password", "client_id", "c", "client_secret", "s", "scope", audience+".default"))
			},
			wantStatus: http.StatusBadRequest, wantError: "unsupported_grant_type",
		},
		{
			name: "no client",
			do: func() (*http.Response, error) {
				return client.PostForm(tokenURL, form("grant_type", "client_credentials", "client_secret", "s", "scope", audience+".default"))
			},
			wantStatus: http.StatusBadRequest, wantError: "invalid_request",
		},
		{
			name: "no secret",
			do: func() (*http.Response, error) {
				return client.PostForm(tokenURL, form("grant_type", "client_credentials", "client_id", "c", "scope", audience+".default"))
			},
			wantStatus: http.StatusUnauthorized, wantError: "invalid_client",
		},
		{
			name: "no .default scope",
			do: func() (*http.Response, error) {
				return client.PostForm(tokenURL, form("grant_type", "client_credentials", "client_id", "c", "client_secret", "s", "scope", "openid"))
			},
			wantStatus: http.StatusBadRequest, wantError: "invalid_scope",
		},
		{
			name: "discovery without an authority",
			do: func() (*http.Response, error) {
				return client.Get(s.URL() + "/common/discovery/instance?api-version=1.1")
			},
			wantStatus: http.StatusBadRequest, wantError: "invalid_instance",
		},
		{
			name:       "an unknown path",
			do:         func() (*http.Response, error) { return client.Get(s.URL() + "/" + testTenant + "/saml2") },
			wantStatus: http.StatusNotFound, wantError: "invalid_request",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			resp, err := tt.do()
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(resp.StatusCode).To(Equal(tt.wantStatus))
			g.Expect(object(t, resp)).To(HaveKeyWithValue("error", tt.wantError))
		})
	}
	g := NewWithT(t)
	g.Expect(s.Requests()).To(BeEmpty())
	g.Expect(s.tokens).To(BeEmpty(), "no token was issued")
}

// TestARM_Authorization: ARM takes only a bearer token the fake issued for its audience (401 in ARM's shape
// otherwise), and logs the refused requests too.
func TestARM_Authorization(t *testing.T) {
	s := start(t, Options{})
	client := httpClient(t, s)
	forAudience := func(resource string) string {
		resp, err := client.PostForm(s.URL()+"/"+testTenant+"/oauth2/v2.0/token", url.Values{
			"grant_type": {"client_credentials"}, "client_id": {"c"}, "client_secret": {"s"}, "scope": {resource + "/.default openid"},
		})
		if err != nil {
			t.Fatalf("failed to get a token: %v", err)
		}
		return str(object(t, resp), "access_token")
	}
	tests := []struct {
		name          string
		authorization string
		wantStatus    int
		wantCode      string
	}{
		{name: "no token", wantStatus: http.StatusUnauthorized, wantCode: "AuthenticationFailed"},
		{name: "a token it did not issue", authorization: "Bearer nope", wantStatus: http.StatusUnauthorized, wantCode: "InvalidAuthenticationToken"},
		{name: "another audience", authorization: "Bearer " + forAudience("https://vault.azure.net"), wantStatus: http.StatusUnauthorized, wantCode: "InvalidAuthenticationTokenAudience"},
		{name: "its audience", authorization: "Bearer " + forAudience(audience), wantStatus: http.StatusOK},
		{name: "its audience without the trailing slash", authorization: "Bearer " + forAudience(strings.TrimSuffix(audience, "/")), wantStatus: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL()+"/subscriptions/"+testSubscription+"?api-version=2022-12-01", nil)
			g.Expect(err).NotTo(HaveOccurred())
			if tt.authorization != "" {
				req.Header.Set("Authorization", tt.authorization)
			}
			before := len(s.Requests())
			resp, err := client.Do(req)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(resp.StatusCode).To(Equal(tt.wantStatus))
			if tt.wantCode != "" {
				g.Expect(errorCode(t, resp)).To(Equal(tt.wantCode))
			}
			g.Expect(s.Requests()[before:]).To(ConsistOf(HaveField("Status", tt.wantStatus)))
		})
	}
}

// TestProxy: the proxy tunnels only to the public cloud's Entra ID and Resource Manager and refuses the rest, so
// nothing leaves the machine.
func TestProxy(t *testing.T) {
	s := start(t, Options{})
	tests := []struct {
		name       string
		request    string
		wantStatus int
	}{
		{name: "discovery host", request: "CONNECT login.microsoftonline.com:443 HTTP/1.1\r\nHost: login.microsoftonline.com:443\r\n\r\n", wantStatus: http.StatusOK},
		{name: "public Resource Manager", request: "CONNECT management.azure.com:443 HTTP/1.1\r\nHost: management.azure.com:443\r\n\r\n", wantStatus: http.StatusOK},
		{name: "another host", request: "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", wantStatus: http.StatusForbidden},
		{name: "another port", request: "CONNECT login.microsoftonline.com:80 HTTP/1.1\r\nHost: login.microsoftonline.com:80\r\n\r\n", wantStatus: http.StatusForbidden},
		{name: "plain HTTP", request: "GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", wantStatus: http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			conn, err := net.Dial("tcp", strings.TrimPrefix(s.ProxyURL(), "http://"))
			g.Expect(err).NotTo(HaveOccurred())
			defer conn.Close()
			_, err = conn.Write([]byte(tt.request))
			g.Expect(err).NotTo(HaveOccurred())
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(resp.StatusCode).To(Equal(tt.wantStatus))
		})
	}
}

// TestARM_Identity: the fake records whom it issued each token to (the request's client_id, with a secret or a
// client assertion, and the tenant), and every ARM request carries the identity of the token it presented: the
// right client for each of two clients, that of a token refused for its audience, and none for a token the fake did
// not issue or no token. Neither log holds a secret or a token.
func TestARM_Identity(t *testing.T) {
	g := NewWithT(t)
	s := start(t, Options{})
	client := httpClient(t, s)
	const (
		clientA, clientB = "00000000-0000-0000-0000-0000000000a1", "00000000-0000-0000-0000-0000000000b2"
		tenantB          = "00000000-0000-0000-0000-0000000000bb"
		secret           = "a-client-secret"
	)
	tokenFor := func(tenant, clientID, scope string, credential url.Values) string {
		form := url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}, "scope": {scope + "/.default"}}
		for k, v := range credential {
			form[k] = v
		}
		resp, err := client.PostForm(s.URL()+"/"+tenant+"/oauth2/v2.0/token", form)
		g.Expect(err).NotTo(HaveOccurred())
		tok := str(object(t, resp), "access_token")
		g.Expect(tok).NotTo(BeEmpty())
		return tok
	}
	tokenA := tokenFor(testTenant, clientA, audience, url.Values{"client_secret": {secret}})
	tokenB := tokenFor(tenantB, clientB, audience, url.Values{
		"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}, "client_assertion": {"an.assertion.jwt"},
	})
	otherAudience := tokenFor(testTenant, clientA, "https://vault.azure.net", url.Values{"client_secret": {secret}})

	g.Expect(s.IssuedTokens()).To(HaveExactElements(
		And(HaveField("Identity", Identity{ClientID: clientA, TenantID: testTenant}), HaveField("Audience", audience)),
		And(HaveField("Identity", Identity{ClientID: clientB, TenantID: tenantB}), HaveField("Audience", audience)),
		And(HaveField("Identity", Identity{ClientID: clientA, TenantID: testTenant}), HaveField("Audience", "https://vault.azure.net")),
	))

	get := func(authorization string) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL()+"/subscriptions/"+testSubscription+"?api-version=2022-12-01", nil)
		g.Expect(err).NotTo(HaveOccurred())
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		resp, err := client.Do(req)
		g.Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
	}
	get("Bearer " + tokenA)
	get("Bearer " + tokenB)
	get("Bearer " + tokenA)
	get("Bearer " + otherAudience)
	get("Bearer fakearm.not-issued")
	get("")

	requests := s.Requests()
	g.Expect(requests).To(HaveExactElements(
		And(HaveField("Status", http.StatusOK), HaveField("ClientID", clientA), HaveField("TenantID", testTenant)),
		And(HaveField("Status", http.StatusOK), HaveField("ClientID", clientB), HaveField("TenantID", tenantB)),
		And(HaveField("Status", http.StatusOK), HaveField("ClientID", clientA), HaveField("TenantID", testTenant)),
		And(HaveField("Status", http.StatusUnauthorized), HaveField("ClientID", clientA), HaveField("TenantID", testTenant)),
		And(HaveField("Status", http.StatusUnauthorized), HaveField("Identity", Identity{})),
		And(HaveField("Status", http.StatusUnauthorized), HaveField("Identity", Identity{})),
	))
	// The judge fails on a wrong identity: the second request was not clientA's.
	g.Expect(requests[1].ClientID).NotTo(Equal(clientA))

	logs := fmt.Sprintf("%+v %+v", s.IssuedTokens(), requests)
	for _, hidden := range []string{secret, "an.assertion.jwt", tokenA, tokenB, otherAudience} {
		g.Expect(logs).NotTo(ContainSubstring(hidden))
	}
}

// cloudFromEnvironment is the cloud as ASO configures it from its AZURE_* variables.
func cloudFromEnvironment() cloud.Configuration {
	return cloud.Configuration{
		ActiveDirectoryAuthorityHost: os.Getenv("AZURE_AUTHORITY_HOST"),
		Services: map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {
			Endpoint: os.Getenv("AZURE_RESOURCE_MANAGER_ENDPOINT"), Audience: os.Getenv("AZURE_RESOURCE_MANAGER_AUDIENCE"),
		}},
	}
}

// getSubscriptionWith GETs the subscription through azcore's ARM pipeline with a credential (or reports credErr,
// the error of making it), as a child process: 0 on success, 1 with the reason printed otherwise.
func getSubscriptionWith(c cloud.Configuration, cred azcore.TokenCredential, credErr error) int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := credErr
	if err != nil {
		fmt.Println(err)
		return 1
	}
	pl, err := armruntime.NewPipeline("fakearm-test", "v0.0.0", cred, runtime.PipelineOptions{}, &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{Cloud: c, Retry: policy.RetryOptions{MaxRetries: -1}}, DisableRPRegistration: true,
	})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	req, err := runtime.NewRequest(ctx, http.MethodGet, os.Getenv("AZURE_RESOURCE_MANAGER_ENDPOINT")+"/subscriptions/"+testSubscription+"?api-version=2022-12-01")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	resp, err := pl.Do(req)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Println("GET subscription:", resp.Status)
		return 1
	}
	return 0
}
