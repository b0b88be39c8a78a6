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
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	armruntime "github.com/Azure/azure-sdk-for-go/sdk/azcore/arm/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	. "github.com/onsi/gomega"
)

// managedIdentityChildMode runs the test binary as ASO runs a credential Secret with AUTH_MODE podidentity (see
// managedIdentityChild).
const managedIdentityChildMode = "managed-identity"

// managedIdentityChild builds azidentity's ManagedIdentityCredential exactly as ASO does for AUTH_MODE podidentity
// (the client ID, the cloud from AZURE_*, the default transport: trust from SSL_CERT_FILE, the proxy from
// HTTPS_PROXY, the managed identity source from IDENTITY_ENDPOINT and IDENTITY_HEADER) and GETs the subscription.
func managedIdentityChild() int {
	c := cloudFromEnvironment()
	cred, err := azidentity.NewManagedIdentityCredential(&azidentity.ManagedIdentityCredentialOptions{
		ClientOptions: azcore.ClientOptions{Cloud: c},
		ID:            azidentity.ClientID(os.Getenv("AZURE_CLIENT_ID")),
	})
	return getSubscriptionWith(c, cred, err)
}

// uniqueClientID is a client ID no other test (nor another run of this one) uses: MSAL caches managed identity
// tokens per process by client ID and resource, whatever the endpoint.
func uniqueClientID(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "00000000-0000-0000-0000-" + hex.EncodeToString(b)
}

// getSubscription GETs the test subscription with a bearer token and returns the status.
func getSubscription(t *testing.T, s *Server, client *http.Client, tok string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL()+"/subscriptions/"+testSubscription+"?api-version=2022-12-01", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// TestEntra_ClientSecrets: a client registered with a secret (by Options or RegisterClientSecret, whatever the
// case of its ID) gets a token with that secret only; a wrong secret or a client assertion is refused (401
// invalid_client, AADSTS7000215 for the secret) and no token issued; an unregistered client gets one with any
// secret. Every token request is logged, refused ones too, and no log holds a secret.
func TestEntra_ClientSecrets(t *testing.T) {
	const (
		platform, other, tenantClient = "00000000-0000-0000-0000-00000000000c", "00000000-0000-0000-0000-0000000000c2", "00000000-0000-0000-0000-0000000000d1"
		platformSecret, otherSecret   = "the-platform-secret", "the-other-secret"
	)
	s := start(t, Options{ClientSecrets: map[string]string{platform: platformSecret}})
	s.RegisterClientSecret(strings.ToUpper(other), otherSecret)
	client := httpClient(t, s)
	tokenURL := s.URL() + "/" + testTenant + "/oauth2/v2.0/token"
	secret := func(v string) url.Values { return url.Values{"client_secret": {v}} }
	assertion := url.Values{"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}, "client_assertion": {"a.federated.jwt"}}

	tests := []struct {
		name       string
		clientID   string
		credential url.Values
		wantStatus int
		wantCode   string
		wantDesc   string
	}{
		{name: "the registered secret", clientID: platform, credential: secret(platformSecret), wantStatus: http.StatusOK},
		{name: "a guessed secret", clientID: platform, credential: secret("fake-client-secret"), wantStatus: http.StatusUnauthorized, wantCode: "invalid_client", wantDesc: "AADSTS7000215: Invalid client secret provided."},
		{name: "another client's secret", clientID: platform, credential: secret(otherSecret), wantStatus: http.StatusUnauthorized, wantCode: "invalid_client", wantDesc: "AADSTS7000215"},
		{name: "the secret with a trailing space", clientID: platform, credential: secret(platformSecret + " "), wantStatus: http.StatusUnauthorized, wantCode: "invalid_client"},
		{name: "a client assertion", clientID: platform, credential: assertion, wantStatus: http.StatusUnauthorized, wantCode: "invalid_client", wantDesc: "AADSTS70021"},
		{name: "the client ID upper-cased", clientID: strings.ToUpper(platform), credential: secret("guess"), wantStatus: http.StatusUnauthorized, wantCode: "invalid_client"},
		{name: "registered by RegisterClientSecret, lower-cased", clientID: other, credential: secret(otherSecret), wantStatus: http.StatusOK},
		{name: "registered by RegisterClientSecret, wrong", clientID: other, credential: secret(platformSecret), wantStatus: http.StatusUnauthorized, wantCode: "invalid_client"},
		{name: "an unregistered client, any secret", clientID: tenantClient, credential: secret("anything"), wantStatus: http.StatusOK},
		{name: "an unregistered client, an assertion", clientID: tenantClient, credential: assertion, wantStatus: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			issued, requested := len(s.IssuedTokens()), len(s.TokenRequests())
			form := url.Values{"grant_type": {"client_credentials"}, "client_id": {tt.clientID}, "scope": {audience + ".default"}}
			for k, v := range tt.credential {
				form[k] = v
			}
			resp, err := client.PostForm(tokenURL, form)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(resp.StatusCode).To(Equal(tt.wantStatus))
			body := object(t, resp)
			requests := s.TokenRequests()[requested:]
			g.Expect(requests).To(ConsistOf(And(
				HaveField("Identity", Identity{ClientID: tt.clientID, TenantID: testTenant}),
				HaveField("Audience", strings.TrimSuffix(audience, "/")),
				HaveField("Status", tt.wantStatus),
				HaveField("Error", tt.wantCode),
			)))
			if tt.wantStatus != http.StatusOK {
				g.Expect(body).To(HaveKeyWithValue("error", tt.wantCode))
				g.Expect(body).To(HaveKeyWithValue("error_description", ContainSubstring(tt.wantDesc)))
				g.Expect(body).NotTo(HaveKey("access_token"))
				g.Expect(s.IssuedTokens()).To(HaveLen(issued), "no token is issued")
				return
			}
			tok := str(body, "access_token")
			g.Expect(tok).To(HavePrefix("fakearm."))
			g.Expect(s.IssuedTokens()[issued:]).To(ConsistOf(And(
				HaveField("Identity", Identity{ClientID: tt.clientID, TenantID: testTenant}), HaveField("ManagedIdentity", false))))
			g.Expect(getSubscription(t, s, client, tok)).To(Equal(http.StatusOK))
			g.Expect(s.Requests()[len(s.Requests())-1].Identity).To(Equal(Identity{ClientID: tt.clientID, TenantID: testTenant}))
		})
	}

	g := NewWithT(t)
	g.Expect(s.TokenRequests()).To(HaveLen(len(tests)))
	g.Expect(s.TokenRequests()).To(ContainElement(HaveField("Credential", ClientAssertion)))
	g.Expect(s.TokenRequests()).To(ContainElement(HaveField("Credential", ClientSecret)))
	logs := fmt.Sprintf("%+v %+v %+v", s.TokenRequests(), s.IssuedTokens(), s.Requests())
	for _, hidden := range []string{platformSecret, otherSecret, "fake-client-secret", "a.federated.jwt"} {
		g.Expect(logs).NotTo(ContainSubstring(hidden))
	}
}

// TestEntra_ClientSecretCredentialRegistered: azidentity's service principal credential gets a token for a registered
// client with its secret, and an authentication error with another, as from Entra ID.
func TestEntra_ClientSecretCredentialRegistered(t *testing.T) {
	g := NewWithT(t)
	const platform = "00000000-0000-0000-0000-00000000000c"
	s := start(t, Options{ClientSecrets: map[string]string{platform: "right"}})
	client := httpClient(t, s)
	for _, tt := range []struct {
		secret  string
		wantErr bool
	}{{secret: "right"}, {secret: "wrong", wantErr: true}} {
		cred, err := azidentity.NewClientSecretCredential(testTenant, platform, tt.secret, &azidentity.ClientSecretCredentialOptions{
			ClientOptions: azcore.ClientOptions{Cloud: cloudOf(s), Transport: client},
		})
		g.Expect(err).NotTo(HaveOccurred())
		_, err = cred.GetToken(t.Context(), policy.TokenRequestOptions{Scopes: []string{s.Audience() + "/.default"}})
		if !tt.wantErr {
			g.Expect(err).NotTo(HaveOccurred())
			continue
		}
		var authErr *azidentity.AuthenticationFailedError
		g.Expect(err).To(BeAssignableToTypeOf(authErr))
		g.Expect(err.Error()).To(ContainSubstring("AADSTS7000215"))
	}
	g.Expect(s.IssuedTokens()).To(HaveLen(1))
	g.Expect(s.TokenRequests()).To(HaveExactElements(
		And(HaveField("ClientID", platform), HaveField("Status", http.StatusOK)),
		And(HaveField("ClientID", platform), HaveField("Status", http.StatusUnauthorized), HaveField("Error", "invalid_client")),
	))
}

// TestManagedIdentity_Endpoint: a request as MSAL's App Service source sends it gets a token of the managed identity
// it names, in App Service's shape (expires_on a string of Unix seconds), and ARM records that identity behind the
// requests made with it; what the endpoint refuses issues no token and is logged.
func TestManagedIdentity_Endpoint(t *testing.T) {
	const platform = "00000000-0000-0000-0000-00000000000c"
	s := start(t, Options{ClientSecrets: map[string]string{platform: "secret"}})
	client := httpClient(t, s)
	endpoint, header := s.ManagedIdentityEndpoint()
	NewWithT(t).Expect(endpoint).To(Equal(s.URL() + "/msi/token"))
	NewWithT(t).Expect(header).To(HaveLen(32))
	managed := uniqueClientID(t)
	query := func(kv ...string) string {
		v := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return endpoint + "?" + v.Encode()
	}
	msal := query("api-version", "2019-08-01", "resource", audience, "client_id", managed)

	tests := []struct {
		name, method, url, header string
		wantStatus                int
		wantClientID              string
	}{
		{name: "as MSAL sends it", method: http.MethodGet, url: msal, header: header, wantStatus: http.StatusOK, wantClientID: managed},
		{name: "no header", method: http.MethodGet, url: msal, wantStatus: http.StatusUnauthorized, wantClientID: managed},
		{name: "a wrong header", method: http.MethodGet, url: msal, header: header + "0", wantStatus: http.StatusUnauthorized, wantClientID: managed},
		{name: "POST", method: http.MethodPost, url: msal, header: header, wantStatus: http.StatusMethodNotAllowed, wantClientID: managed},
		{name: "another api-version", method: http.MethodGet, url: query("api-version", "2017-09-01", "resource", audience, "client_id", managed), header: header, wantStatus: http.StatusBadRequest, wantClientID: managed},
		{name: "no resource", method: http.MethodGet, url: query("api-version", "2019-08-01", "client_id", managed), header: header, wantStatus: http.StatusBadRequest, wantClientID: managed},
		{name: "system-assigned", method: http.MethodGet, url: query("api-version", "2019-08-01", "resource", audience), header: header, wantStatus: http.StatusBadRequest},
		{name: "by object ID", method: http.MethodGet, url: query("api-version", "2019-08-01", "resource", audience, "object_id", managed), header: header, wantStatus: http.StatusBadRequest},
		{name: "a service principal with a secret", method: http.MethodGet, url: query("api-version", "2019-08-01", "resource", audience, "client_id", platform), header: header, wantStatus: http.StatusBadRequest, wantClientID: platform},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			issued, requested := len(s.IssuedTokens()), len(s.TokenRequests())
			req, err := http.NewRequestWithContext(t.Context(), tt.method, tt.url, nil)
			g.Expect(err).NotTo(HaveOccurred())
			if tt.header != "" {
				req.Header.Set("X-IDENTITY-HEADER", tt.header)
			}
			resp, err := client.Do(req)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(resp.StatusCode).To(Equal(tt.wantStatus))
			body := object(t, resp)
			g.Expect(s.TokenRequests()[requested:]).To(ConsistOf(And(
				HaveField("Identity", Identity{ClientID: tt.wantClientID, TenantID: defaultTenant}),
				HaveField("Credential", ManagedIdentity),
				HaveField("Status", tt.wantStatus),
			)))
			if tt.wantStatus != http.StatusOK {
				g.Expect(body).NotTo(HaveKey("access_token"))
				g.Expect(body).To(HaveKeyWithValue("message", Not(BeEmpty())))
				g.Expect(s.IssuedTokens()).To(HaveLen(issued), "no token is issued")
				return
			}
			g.Expect(body).To(HaveKeyWithValue("token_type", "Bearer"))
			g.Expect(body).To(HaveKeyWithValue("resource", audience))
			g.Expect(body).To(HaveKeyWithValue("client_id", managed))
			expiresOn, err := strconv.ParseInt(str(body, "expires_on"), 10, 64)
			g.Expect(err).NotTo(HaveOccurred(), "expires_on is a string of Unix seconds")
			g.Expect(time.Unix(expiresOn, 0)).To(BeTemporally("~", time.Now().Add(time.Hour), 5*time.Minute))
			tok := str(body, "access_token")
			g.Expect(tok).To(HavePrefix("fakearm."))
			g.Expect(s.IssuedTokens()[issued:]).To(ConsistOf(And(
				HaveField("Identity", Identity{ClientID: managed, TenantID: defaultTenant}),
				HaveField("Audience", strings.TrimSuffix(audience, "/")),
				HaveField("ManagedIdentity", true),
			)))
			g.Expect(getSubscription(t, s, client, tok)).To(Equal(http.StatusOK))
			g.Expect(s.Requests()[len(s.Requests())-1].Identity).To(Equal(Identity{ClientID: managed, TenantID: defaultTenant}))
		})
	}
	g := NewWithT(t)
	g.Expect(fmt.Sprintf("%+v", s.TokenRequests())).NotTo(ContainSubstring(header), "no log holds the header")
	s.mu.Lock()
	defer s.mu.Unlock()
	g.Expect(s.entra).To(BeEmpty(), "the managed identity endpoint is not Entra ID")
}

// TestManagedIdentity_Credential: azidentity's ManagedIdentityCredential, in an environment with IDENTITY_ENDPOINT
// and IDENTITY_HEADER (MSAL's App Service source), gets a token of the client ID it names and ARM records that
// client behind the requests; a wrong header and a service principal's client ID get an authentication error.
func TestManagedIdentity_Credential(t *testing.T) {
	const platform = "00000000-0000-0000-0000-00000000000c"
	s := start(t, Options{ClientSecrets: map[string]string{platform: "secret"}})
	client := httpClient(t, s)
	endpoint, header := s.ManagedIdentityEndpoint()
	for _, name := range []string{"IDENTITY_SERVER_THUMBPRINT", "MSI_ENDPOINT", "MSI_SECRET", "IMDS_ENDPOINT"} {
		t.Setenv(name, "")
	}
	t.Setenv("IDENTITY_ENDPOINT", endpoint)
	t.Setenv("IDENTITY_HEADER", header)
	newCredential := func(g Gomega, clientID string) *azidentity.ManagedIdentityCredential {
		cred, err := azidentity.NewManagedIdentityCredential(&azidentity.ManagedIdentityCredentialOptions{
			ClientOptions: azcore.ClientOptions{Cloud: cloudOf(s), Transport: client},
			ID:            azidentity.ClientID(clientID),
		})
		g.Expect(err).NotTo(HaveOccurred())
		return cred
	}

	t.Run("its client ID", func(t *testing.T) {
		g := NewWithT(t)
		managed := uniqueClientID(t)
		cred := newCredential(g, managed)
		tok, err := cred.GetToken(t.Context(), policy.TokenRequestOptions{Scopes: []string{s.Audience() + "/.default"}})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(tok.Token).To(HavePrefix("fakearm."))
		g.Expect(tok.ExpiresOn).To(BeTemporally("~", time.Now().Add(time.Hour), 5*time.Minute))

		pl, err := armruntime.NewPipeline("fakearm-test", "v0.0.0", cred, runtime.PipelineOptions{}, &arm.ClientOptions{
			ClientOptions:         policy.ClientOptions{Cloud: cloudOf(s), Transport: client, Retry: policy.RetryOptions{MaxRetries: -1}},
			DisableRPRegistration: true,
		})
		g.Expect(err).NotTo(HaveOccurred())
		req, err := runtime.NewRequest(t.Context(), http.MethodGet, s.URL()+"/subscriptions/"+testSubscription+"?api-version=2022-12-01")
		g.Expect(err).NotTo(HaveOccurred())
		resp, err := pl.Do(req)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
		_ = resp.Body.Close()
		g.Expect(s.Requests()).To(ConsistOf(And(
			HaveField("Status", http.StatusOK), HaveField("Identity", Identity{ClientID: managed, TenantID: defaultTenant}))))
		g.Expect(s.IssuedTokens()).To(ConsistOf(And(HaveField("ClientID", managed), HaveField("ManagedIdentity", true))),
			"the pipeline's token came from MSAL's cache")
	})
	t.Run("a wrong header", func(t *testing.T) {
		g := NewWithT(t)
		t.Setenv("IDENTITY_HEADER", "not-"+header)
		_, err := newCredential(g, uniqueClientID(t)).GetToken(t.Context(), policy.TokenRequestOptions{Scopes: []string{s.Audience() + "/.default"}})
		var authErr *azidentity.AuthenticationFailedError
		g.Expect(err).To(BeAssignableToTypeOf(authErr))
		g.Expect(s.TokenRequests()).To(HaveLen(2))
		g.Expect(s.TokenRequests()[1]).To(HaveField("Status", http.StatusUnauthorized))
	})
	t.Run("a service principal's client ID", func(t *testing.T) {
		g := NewWithT(t)
		_, err := newCredential(g, platform).GetToken(t.Context(), policy.TokenRequestOptions{Scopes: []string{s.Audience() + "/.default"}})
		var authErr *azidentity.AuthenticationFailedError
		g.Expect(err).To(BeAssignableToTypeOf(authErr))
		g.Expect(s.TokenRequests()[len(s.TokenRequests())-1]).To(And(HaveField("ClientID", platform), HaveField("Status", http.StatusBadRequest)))
	})
	NewWithT(t).Expect(s.IssuedTokens()).To(HaveLen(1))
}

// TestManagedIdentity_ProcessEnvironment: a process configured as ASO is (the fake as a custom cloud,
// SSL_CERT_FILE=CAFile(), HTTPS_PROXY=ProxyURL()) with IDENTITY_ENDPOINT and IDENTITY_HEADER from
// ManagedIdentityEndpoint builds the credential of a podidentity Secret as ASO does and reaches ARM as that client.
func TestManagedIdentity_ProcessEnvironment(t *testing.T) {
	g := NewWithT(t)
	s := start(t, Options{})
	endpoint, header := s.ManagedIdentityEndpoint()
	managed := uniqueClientID(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		upper := strings.ToUpper(name)
		switch {
		case strings.HasSuffix(upper, "_PROXY"), strings.HasPrefix(upper, "AZURE_"), strings.HasPrefix(upper, "SSL_CERT_"),
			strings.HasPrefix(upper, "IDENTITY_"), strings.HasPrefix(upper, "MSI_"), upper == "IMDS_ENDPOINT":
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, childEnv+"="+managedIdentityChildMode,
		"AZURE_AUTHORITY_HOST="+s.URL(), "AZURE_RESOURCE_MANAGER_ENDPOINT="+s.URL(), "AZURE_RESOURCE_MANAGER_AUDIENCE="+s.Audience(),
		"AZURE_CLIENT_ID="+managed, "IDENTITY_ENDPOINT="+endpoint, "IDENTITY_HEADER="+header,
		"SSL_CERT_FILE="+s.CAFile(), "HTTPS_PROXY="+s.ProxyURL())
	out, err := cmd.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "%s", out)
	g.Expect(s.TokenRequests()).To(ConsistOf(And(HaveField("ClientID", managed), HaveField("Credential", ManagedIdentity), HaveField("Status", http.StatusOK))))
	g.Expect(s.Requests()).To(ConsistOf(And(HaveField("Status", http.StatusOK), HaveField("ClientID", managed))))
	s.mu.Lock()
	defer s.mu.Unlock()
	g.Expect(s.entra).To(BeEmpty(), "a managed identity never asks Entra ID")
}
