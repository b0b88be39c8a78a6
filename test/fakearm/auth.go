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
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// token is what the fake knows of a token it issued.
type token struct {
	Identity
	// resource is the scope's resource (the scope less "/.default").
	resource string
}

// Identity is who a token was issued to: the client_id of the token request (a service principal's or a managed
// identity's application ID, whether it authenticated with a secret or a client assertion, or asked the managed
// identity endpoint) and the tenant of the token endpoint it was sent to (the fake's own tenant for the managed
// identity endpoint). It holds no secret.
type Identity struct {
	ClientID, TenantID string
}

// IssuedToken is one token the fake issued, without the token itself.
type IssuedToken struct {
	Identity
	// Audience is the token's .default scope less "/.default".
	Audience string
	// ManagedIdentity tells that the token came from the managed identity endpoint (ManagedIdentityEndpoint), not
	// from Entra ID's token endpoint.
	ManagedIdentity bool
	Time            time.Time
}

// entraRequest is one Entra ID request, for the tests: no query, no body, so no secret.
type entraRequest struct {
	Method, Host, Path string
	Status             int
}

// serveEntra answers and logs one Entra ID request.
func (s *Server) serveEntra(w http.ResponseWriter, r *http.Request) {
	a := s.handleEntra(r)
	s.mu.Lock()
	s.entra = append(s.entra, entraRequest{Method: r.Method, Host: r.Host, Path: r.URL.Path, Status: a.status})
	s.mu.Unlock()
	a.write(w, "")
}

// handleEntra routes what MSAL's confidential client sends for an authority it does not know: instance discovery
// (GET /common/discovery/instance, sent to login.microsoftonline.com, see ProxyURL), the tenant's OpenID
// configuration (GET /{tenant}/v2.0/.well-known/openid-configuration) and the token (POST
// /{tenant}/oauth2/v2.0/token).
func (s *Server) handleEntra(r *http.Request) answer {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	is := func(method string, path ...string) bool {
		if r.Method != method || len(segs) != len(path)+1 {
			return false
		}
		for i, p := range path {
			if !strings.EqualFold(segs[i+1], p) {
				return false
			}
		}
		return true
	}
	switch {
	case is(http.MethodGet, "discovery", "instance") && strings.EqualFold(segs[0], "common"):
		return instanceDiscovery(r)
	case is(http.MethodGet, "v2.0", ".well-known", "openid-configuration"):
		return openIDConfiguration(r.Host, segs[0])
	case is(http.MethodPost, "oauth2", "v2.0", "token"):
		return s.issueToken(r, segs[0])
	}
	return oauthError(http.StatusNotFound, "invalid_request", fmt.Sprintf("The fake Entra ID serves no %s %s.", r.Method, r.URL.Path))
}

func oauthError(status int, code, description string) answer {
	return answer{status: status, body: map[string]any{"error": code, "error_description": description}}
}

// instanceDiscovery validates any authority: its tenant discovery endpoint is on the authority's own host, which is
// its only alias.
func instanceDiscovery(r *http.Request) answer {
	authorize, err := url.Parse(r.URL.Query().Get("authorization_endpoint"))
	if err != nil || authorize.Scheme != "https" || authorize.Host == "" {
		return oauthError(http.StatusBadRequest, "invalid_instance", "authorization_endpoint is not an https URL.")
	}
	tenant, _, _ := strings.Cut(strings.TrimPrefix(authorize.Path, "/"), "/")
	if tenant == "" {
		return oauthError(http.StatusBadRequest, "invalid_instance", "authorization_endpoint names no tenant.")
	}
	host := authorize.Host
	return answer{status: http.StatusOK, body: map[string]any{
		"tenant_discovery_endpoint": fmt.Sprintf("https://%s/%s/v2.0/.well-known/openid-configuration", host, tenant),
		"api-version":               "1.1",
		"metadata": []any{map[string]any{
			"preferred_network": host, "preferred_cache": host, "aliases": []any{host},
		}},
	}}
}

// openIDConfiguration is a tenant's v2.0 OpenID configuration on this host; MSAL requires the issuer's host to be
// the authority's.
func openIDConfiguration(host, tenant string) answer {
	base := fmt.Sprintf("https://%s/%s", host, tenant)
	return answer{status: http.StatusOK, body: map[string]any{
		"issuer":                                base + "/v2.0",
		"authorization_endpoint":                base + "/oauth2/v2.0/authorize",
		"token_endpoint":                        base + "/oauth2/v2.0/token",
		"jwks_uri":                              base + "/discovery/v2.0/keys",
		"response_types_supported":              []any{"code", "id_token", "code id_token", "id_token token"},
		"subject_types_supported":               []any{"pairwise"},
		"id_token_signing_alg_values_supported": []any{"RS256"},
		"token_endpoint_auth_methods_supported": []any{"client_secret_post", "private_key_jwt", "client_secret_basic"},
		"scopes_supported":                      []any{"openid", "profile", "email", "offline_access"},
	}}
}

// issueToken answers a client-credentials request with an opaque token for the resource of its .default scope:
// from a client registered with a secret (RegisterClientSecret) only with that secret, from any other client with
// any secret or assertion. It logs the request, issued or refused.
func (s *Server) issueToken(r *http.Request, tenant string) (a answer) {
	req := TokenRequest{Identity: Identity{TenantID: tenant}, Time: time.Now()}
	defer func() { s.recordTokenRequest(req, a) }()
	if err := r.ParseForm(); err != nil {
		return oauthError(http.StatusBadRequest, "invalid_request", err.Error())
	}
	form := r.PostForm
	req.ClientID, req.Credential = form.Get("client_id"), credentialOf(form)
	resource := ""
	for _, scope := range strings.Fields(form.Get("scope")) {
		if strings.HasSuffix(scope, "/.default") {
			resource = strings.TrimSuffix(scope, ".default")
		}
	}
	req.Audience = strings.TrimSuffix(resource, "/")
	switch {
	case form.Get("grant_type") != "client_credentials":
		return oauthError(http.StatusBadRequest, "unsupported_grant_type", "The fake Entra ID grants client_credentials only.")
	case form.Get("client_id") == "":
		return oauthError(http.StatusBadRequest, "invalid_request", "The request body must contain the parameter 'client_id'.")
	case form.Get("client_secret") == "" && form.Get("client_assertion") == "":
		return oauthError(http.StatusUnauthorized, "invalid_client", "The request body must contain 'client_secret' or 'client_assertion'.")
	}
	if refused := s.checkClientCredential(req.ClientID, form); refused != nil {
		return *refused
	}
	if resource == "" {
		return oauthError(http.StatusBadRequest, "invalid_scope", "The scope must name a resource's /.default.")
	}
	issued, err := s.newToken(req.Identity, resource, false)
	if err != nil {
		return oauthError(http.StatusInternalServerError, "temporarily_unavailable", err.Error())
	}
	return answer{status: http.StatusOK, body: map[string]any{
		"token_type": "Bearer", "expires_in": 3600, "ext_expires_in": 3600, "access_token": issued,
	}}
}

// authorize checks an ARM request's bearer token: one this fake issued, for its audience (the public cloud's on a
// request sent to management.azure.com). It returns the token's tenant.
func (s *Server) authorize(r *http.Request) (string, *armError) {
	presented, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || presented == "" {
		return "", &armError{http.StatusUnauthorized, "AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing."}
	}
	s.mu.Lock()
	t, ok := s.tokens[presented]
	s.mu.Unlock()
	if !ok {
		return "", &armError{http.StatusUnauthorized, "InvalidAuthenticationToken", "The access token is invalid."}
	}
	allowed := []string{audience}
	if isHost(r.Host, armHost) {
		allowed = publicAudiences
	}
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimRight(t.resource, "/"), strings.TrimRight(a, "/")) {
			return t.TenantID, nil
		}
	}
	return "", &armError{http.StatusUnauthorized, "InvalidAuthenticationTokenAudience", fmt.Sprintf(
		"The access token has been obtained for wrong audience or resource '%s'. It should exactly match with one of the allowed audiences '%s'.",
		t.resource, strings.Join(allowed, "', '"))}
}

// IssuedTokens lists the tokens the fake issued, in order: to whom and for which audience.
func (s *Server) IssuedTokens() []IssuedToken {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]IssuedToken(nil), s.issued...)
}

// identityOf is the identity of the bearer token a request presents, if the fake issued it (whatever its audience);
// the zero Identity otherwise. The caller holds s.mu.
func (s *Server) identityOf(r *http.Request) Identity {
	presented, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || presented == "" {
		return Identity{}
	}
	return s.tokens[presented].Identity
}
