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
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// CredentialKind is how a token request authenticated its client.
type CredentialKind string

const (
	// ClientSecret is a client_secret sent to Entra ID's token endpoint.
	ClientSecret CredentialKind = "ClientSecret"
	// ClientAssertion is a client_assertion (a federated token or a certificate's signed JWT) sent to Entra ID's
	// token endpoint.
	ClientAssertion CredentialKind = "ClientAssertion"
	// ManagedIdentity is a request to the host's managed identity endpoint (ManagedIdentityEndpoint), which takes
	// no credential but the endpoint's header.
	ManagedIdentity CredentialKind = "ManagedIdentity"
)

// TokenRequest is one token request, issued or refused: to Entra ID's token endpoint or to the managed identity
// endpoint. It holds no secret, assertion or token.
type TokenRequest struct {
	// Identity is the client ID the request asked a token for and the tenant the token would be (or was) issued
	// in: the token endpoint's tenant, or the fake's own tenant for a managed identity.
	Identity
	// Audience is the requested resource less its trailing slash ("" if the request named none).
	Audience string
	// Credential is how the client authenticated ("" if it sent no credential).
	Credential CredentialKind
	// Status is the status answered: 200 if a token was issued.
	Status int
	// Error is the error of a refusal: OAuth's error code (invalid_client, ...) for Entra ID, the status text for
	// the managed identity endpoint; empty when a token was issued.
	Error string
	Time  time.Time
}

// managedIdentityPath is the path of the managed identity endpoint on the fake's own address.
const managedIdentityPath = "/msi/token"

// managedIdentityAPIVersion is the api-version of App Service's managed identity endpoint, the source MSAL (and so
// azidentity's ManagedIdentityCredential) uses when IDENTITY_ENDPOINT and IDENTITY_HEADER are set.
const managedIdentityAPIVersion = "2019-08-01"

// RegisterClientSecret makes a client ID a service principal whose only credential is this secret (as
// Options.ClientSecrets does): Entra ID's token endpoint then refuses it any other secret and any client assertion
// (401 invalid_client), and the managed identity endpoint refuses it, since it is no managed identity. A client ID
// that is not registered gets a token with any secret or assertion, as the tenants' own service principals do.
func (s *Server) RegisterClientSecret(clientID, secret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secrets[strings.ToLower(clientID)] = secret
}

// ManagedIdentityEndpoint is the managed identity endpoint of the host the fake's clients run on, as App Service
// serves it: a process with IDENTITY_ENDPOINT=endpoint and IDENTITY_HEADER=header gets, through azidentity's
// ManagedIdentityCredential for a client ID, a token of the managed identity with that client ID, in the fake's own
// tenant. Every client ID is a managed identity of the host but those registered with a client secret (service
// principals); the endpoint serves user-assigned identities by client ID only, and requires the header.
func (s *Server) ManagedIdentityEndpoint() (endpoint, header string) {
	return s.url + managedIdentityPath, s.identityHeader
}

// TokenRequests lists every token request, issued or refused, in the order answered.
func (s *Server) TokenRequests() []TokenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]TokenRequest(nil), s.tokenRequests...)
}

// checkClientCredential refuses a client registered with a secret whatever credential but that secret; any other
// client passes.
func (s *Server) checkClientCredential(clientID string, form url.Values) *answer {
	s.mu.Lock()
	want, registered := s.secrets[strings.ToLower(clientID)]
	s.mu.Unlock()
	if !registered {
		return nil
	}
	if form.Get("client_assertion") != "" && form.Get("client_secret") == "" {
		a := oauthError(http.StatusUnauthorized, "invalid_client", fmt.Sprintf(
			"AADSTS70021: No matching federated identity record found for presented assertion. The application '%s' has a client secret only.", clientID))
		return &a
	}
	if subtle.ConstantTimeCompare([]byte(form.Get("client_secret")), []byte(want)) != 1 {
		a := oauthError(http.StatusUnauthorized, "invalid_client", fmt.Sprintf(
			"AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '%s'.", clientID))
		return &a
	}
	return nil
}

// credentialOf is how a token request's form authenticates its client.
func credentialOf(form url.Values) CredentialKind {
	switch {
	case form.Get("client_secret") != "":
		return ClientSecret
	case form.Get("client_assertion") != "":
		return ClientAssertion
	}
	return ""
}

// newToken issues an opaque token to id for resource and records it. The caller does not hold s.mu.
func (s *Server) newToken(id Identity, resource string, managedIdentity bool) (string, error) {
	random := make([]byte, 24)
	if _, err := rand.Read(random); err != nil {
		return "", err
	}
	issued := "fakearm." + hex.EncodeToString(random)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[issued] = token{Identity: id, resource: resource}
	s.issued = append(s.issued, IssuedToken{
		Identity: id, Audience: strings.TrimSuffix(resource, "/"), ManagedIdentity: managedIdentity, Time: time.Now(),
	})
	return issued, nil
}

// recordTokenRequest logs a token request with the answer it got.
func (s *Server) recordTokenRequest(req TokenRequest, a answer) {
	req.Status = a.status
	if a.status != http.StatusOK {
		req.Error = http.StatusText(a.status)
		if body, ok := a.body.(map[string]any); ok {
			if code, ok := body["error"].(string); ok {
				req.Error = code
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokenRequests = append(s.tokenRequests, req)
}

// serveManagedIdentity answers what MSAL's App Service source sends: GET IDENTITY_ENDPOINT with the header
// X-IDENTITY-HEADER: IDENTITY_HEADER and the query api-version=2019-08-01, resource (a v1 resource, the scope less
// "/.default") and client_id (a user-assigned identity); App Service's answer carries expires_on as a string of
// Unix seconds.
func (s *Server) serveManagedIdentity(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := TokenRequest{
		Identity:   Identity{ClientID: q.Get("client_id"), TenantID: defaultTenant},
		Audience:   strings.TrimSuffix(q.Get("resource"), "/"),
		Credential: ManagedIdentity,
		Time:       time.Now(),
	}
	a := s.managedIdentityToken(r, req.Identity)
	s.recordTokenRequest(req, a)
	a.write(w, "")
}

func (s *Server) managedIdentityToken(r *http.Request, id Identity) answer {
	refuse := func(status int, message string) answer {
		return answer{status: status, body: map[string]any{"statusCode": status, "message": message}}
	}
	q := r.URL.Query()
	s.mu.Lock()
	_, servicePrincipal := s.secrets[strings.ToLower(id.ClientID)]
	s.mu.Unlock()
	switch {
	case r.Method != http.MethodGet:
		return refuse(http.StatusMethodNotAllowed, "The managed identity endpoint serves GET only.")
	case subtle.ConstantTimeCompare([]byte(r.Header.Get("X-IDENTITY-HEADER")), []byte(s.identityHeader)) != 1:
		return refuse(http.StatusUnauthorized, "The request's X-IDENTITY-HEADER is missing or wrong.")
	case q.Get("api-version") != managedIdentityAPIVersion:
		return refuse(http.StatusBadRequest, fmt.Sprintf("The api-version must be %s.", managedIdentityAPIVersion))
	case q.Get("resource") == "":
		return refuse(http.StatusBadRequest, "The request names no resource.")
	case q.Get("object_id") != "" || q.Get("principal_id") != "" || q.Get("mi_res_id") != "":
		return refuse(http.StatusBadRequest, "The fake's managed identity endpoint knows user-assigned identities by client_id only.")
	case id.ClientID == "":
		return refuse(http.StatusBadRequest, "The fake's host has no system-assigned identity: name a user-assigned one by client_id.")
	case servicePrincipal:
		return refuse(http.StatusBadRequest, fmt.Sprintf("Unable to load the proper Managed Identity: %s is a service principal with a client secret, not a managed identity of this host.", id.ClientID))
	}
	resource := q.Get("resource")
	issued, err := s.newToken(id, resource, true)
	if err != nil {
		return refuse(http.StatusInternalServerError, err.Error())
	}
	return answer{status: http.StatusOK, body: map[string]any{
		"access_token": issued,
		"expires_on":   strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10),
		"resource":     resource,
		"token_type":   "Bearer",
		"client_id":    id.ClientID,
	}}
}

// newIdentityHeader is a managed identity endpoint's secret header value.
func newIdentityHeader() (string, error) {
	random := make([]byte, 16)
	if _, err := rand.Read(random); err != nil {
		return "", err
	}
	return hex.EncodeToString(random), nil
}
