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

// Package fakearm is a fake Azure Resource Manager and Entra ID token endpoint, served over HTTPS on the loopback
// interface, for running Azure Service Operator's own controller against in tests.
//
// ASO is pointed at it as a custom cloud: AZURE_RESOURCE_MANAGER_ENDPOINT and AZURE_AUTHORITY_HOST are URL(),
// AZURE_RESOURCE_MANAGER_AUDIENCE is Audience(), SSL_CERT_FILE is CAFile() (the fake's own certificate authority)
// and HTTPS_PROXY is ProxyURL(). The proxy is needed because MSAL, for an authority host it does not know, asks
// login.microsoftonline.com for instance discovery: the proxy takes that connection and answers it itself (with a
// certificate of the same authority), and refuses every other host. Go never proxies loopback addresses, so ASO's
// calls to the fake and to the API server go direct.
//
// A client that knows only Azure's public cloud (CAPZ, whose clouds are set in code) needs only SSL_CERT_FILE and
// HTTPS_PROXY: the proxy answers login.microsoftonline.com (Entra ID) and management.azure.com (ARM) too, where ARM
// accepts the public cloud's token audiences and polls its long-running operations on the same host.
//
// Entra ID: instance discovery, OpenID configuration and client-credentials tokens for any tenant and any client;
// tokens are opaque and ARM accepts only tokens it issued for its audience. A client registered with a secret
// (Options.ClientSecrets, RegisterClientSecret) gets a token with that secret only, as in Entra ID; any other
// client with any secret or assertion. The fake also serves the managed identity endpoint of the host its clients
// run on (ManagedIdentityEndpoint: App Service's protocol, IDENTITY_ENDPOINT and IDENTITY_HEADER), through which
// azidentity's ManagedIdentityCredential gets a token of the managed identity with the client ID it asks. The fake
// records whom it issued each token to (IssuedTokens: the request's client_id and the tenant, never a secret or the
// token) and every token request, refused ones too (TokenRequests).
//
// ARM: a store of resources by ID (case-insensitive, keeping the case of the first PUT), with PUT, GET, PATCH,
// DELETE and HEAD, Azure's parent rules (a resource group, a parent resource, the scope of an extension resource),
// cascading deletes, the child collections that Azure lists on a parent (subnets on a virtual network, agent pool
// profiles on a managed cluster, ...), the fields Azure computes (identities' principals, addresses, FQDNs, versions)
// and long-running operations answered the way azcore's pollers expect (Options.Polls); network resources report
// etags, and a PUT or PATCH with If-Match or If-None-Match is refused (412) unless the resource meets it. The
// resource SKU list (Microsoft.Compute/skus) names a few virtual machine sizes, the disk types and the aligned
// availability set of the regions of SKULocations, with their zones and capabilities. Managed clusters answer
// listClusterUserCredential and listClusterAdminCredential; the built-in role definitions are listed for ASO's
// role assignments. Faults can be injected by method and ID, and every ARM request is logged with its body exactly
// as received and the identity behind it (Request.ClientID and TenantID: whom its bearer token was issued to), so
// that a test judges which credential reached Azure.
package fakearm
