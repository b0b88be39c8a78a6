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
	"fmt"
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

// publicChildMode runs the test binary as a client of the public cloud (see publicChild).
const publicChildMode = "public"

// publicARM is the public cloud's Resource Manager.
const publicARM = "https://management.azure.com"

// publicChild gets a token and GETs the subscription and the resource SKUs as CAPZ does: azcore's public cloud (set
// in code, no AZURE_AUTHORITY_HOST), a service principal's secret, and the default transports, which trust
// SSL_CERT_FILE and go through HTTPS_PROXY.
func publicChild() int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cred, err := azidentity.NewClientSecretCredential(os.Getenv("AZURE_TENANT_ID"), os.Getenv("AZURE_CLIENT_ID"), os.Getenv("AZURE_CLIENT_SECRET"),
		&azidentity.ClientSecretCredentialOptions{ClientOptions: azcore.ClientOptions{Cloud: cloud.AzurePublic}})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	pl, err := armruntime.NewPipeline("fakearm-test", "v0.0.0", cred, runtime.PipelineOptions{}, &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{Cloud: cloud.AzurePublic, Retry: policy.RetryOptions{MaxRetries: -1}}, DisableRPRegistration: true,
	})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	for _, path := range []string{
		"/subscriptions/" + testSubscription + "?api-version=2022-12-01",
		"/subscriptions/" + testSubscription + "/providers/Microsoft.Compute/skus?api-version=2021-07-01&$filter=" + url.QueryEscape("location eq 'eastus'"),
	} {
		req, err := runtime.NewRequest(ctx, http.MethodGet, publicARM+path)
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
			fmt.Println("GET", path, resp.Status)
			return 1
		}
	}
	return 0
}

// TestPublicCloud_Process: a process that knows only the public cloud, with SSL_CERT_FILE=CAFile() and
// HTTPS_PROXY=ProxyURL() and nothing else of the fake, gets its token from login.microsoftonline.com and reaches
// ARM at management.azure.com, both answered by the fake through its proxy.
func TestPublicCloud_Process(t *testing.T) {
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
	cmd.Env = append(cmd.Env, childEnv+"="+publicChildMode,
		"AZURE_TENANT_ID="+testTenant, "AZURE_CLIENT_ID=client", "AZURE_CLIENT_SECRET=secret",
		"SSL_CERT_FILE="+s.CAFile(), "HTTPS_PROXY="+s.ProxyURL())
	out, err := cmd.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "%s", out)

	s.mu.Lock()
	defer s.mu.Unlock()
	g.Expect(s.entra).To(ContainElement(entraRequest{Method: "POST", Host: "login.microsoftonline.com", Path: "/" + testTenant + "/oauth2/v2.0/token", Status: 200}))
	g.Expect(s.entra).To(HaveEach(HaveField("Host", "login.microsoftonline.com")), "a client of the public cloud talks to its Entra ID only")
	g.Expect(s.requests).To(HaveLen(2))
	g.Expect(s.requests).To(HaveEach(HaveField("Status", http.StatusOK)))
	g.Expect(s.requests[1].Path).To(Equal("/subscriptions/" + testSubscription + "/providers/Microsoft.Compute/skus"))
}

// publicClient sends requests to management.azure.com through the fake's proxy, with tokens of the public cloud's
// Entra ID, as CAPZ's clients do.
func publicClient(t *testing.T, s *Server) armClient {
	t.Helper()
	client := httpClient(t, s)
	cred, err := azidentity.NewClientSecretCredential(testTenant, "client", "secret", &azidentity.ClientSecretCredentialOptions{
		ClientOptions: azcore.ClientOptions{Cloud: cloud.AzurePublic, Transport: client},
	})
	if err != nil {
		t.Fatalf("failed to create the credential: %v", err)
	}
	pl, err := armruntime.NewPipeline("fakearm-test", "v0.0.0", cred, runtime.PipelineOptions{}, &arm.ClientOptions{
		ClientOptions:         policy.ClientOptions{Cloud: cloud.AzurePublic, Transport: client, Retry: policy.RetryOptions{MaxRetries: -1}},
		DisableRPRegistration: true,
	})
	if err != nil {
		t.Fatalf("failed to create the pipeline: %v", err)
	}
	return armClient{t: t, s: s, pl: pl, endpoint: publicARM}
}

// TestPublicCloud_Operations: a long-running PUT and DELETE sent to management.azure.com are polled there, where the
// public cloud's token is good, and complete through azcore's pollers.
func TestPublicCloud_Operations(t *testing.T) {
	g := NewWithT(t)
	s := start(t, Options{Polls: 1})
	c := publicClient(t, s)
	c.create(testRG, map[string]any{"location": "eastus"})
	nsg := network + "/networkSecurityGroups/nsg"
	resp, p := c.beginPut(nsg, map[string]any{"location": "eastus"})
	operation, err := url.Parse(resp.Header.Get("Azure-AsyncOperation"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(operation.Host).To(Equal("management.azure.com"))
	result, polls, err := resume(c, p)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(polls).To(Equal(2))
	g.Expect(at(map[string]any(result), "properties", "provisioningState")).To(Equal("Succeeded"))

	resp, deleting := c.beginDelete(nsg)
	g.Expect(resp.Header.Get("Location")).To(HavePrefix(publicARM + "/"))
	_, _, err = resume(c, deleting)
	g.Expect(err).NotTo(HaveOccurred())
	_, exists := s.Resource(nsg)
	g.Expect(exists).To(BeFalse())
}

// TestPublicCloud_Audiences: a token of the public cloud is good only on requests sent to management.azure.com, and a
// token for the fake's own audience only on the fake's own address.
func TestPublicCloud_Audiences(t *testing.T) {
	g := NewWithT(t)
	s := start(t, Options{})
	subscription := "/subscriptions/" + testSubscription
	public, own := publicClient(t, s), newARMClient(t, s)
	for _, c := range []armClient{public, own} {
		status, _ := c.get(subscription)
		g.Expect(status).To(Equal(http.StatusOK))
	}

	// The other's token, on each address.
	public.endpoint, own.endpoint = s.URL(), publicARM
	for _, c := range []armClient{public, own} {
		resp := c.do(http.MethodGet, subscription, nil, apiVersion)
		g.Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
		g.Expect(errorCode(t, resp)).To(Equal("InvalidAuthenticationTokenAudience"))
	}
}
