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

package aso_test

import (
	"testing"

	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/faults"
)

var nsgResource = schema.GroupResource{Group: asonetwork.GroupVersion.Group, Resource: "networksecuritygroups"}

// newFaultyEngine returns an engine whose client and API reader send their requests through the injector; the
// client reads from the manager's cache, like the controllers' engine. Both are authorized as the provider.
func newFaultyEngine(t *testing.T, injector *faults.Injector) *aso.Engine {
	t.Helper()
	cfg := injector.Config(env.Env.ProviderConfig)
	c, err := client.New(cfg, client.Options{Scheme: env.Env.Scheme(), Cache: &client.CacheOptions{Reader: env.Env.Manager.GetCache()}})
	if err != nil {
		t.Fatal(err)
	}
	reader, err := client.New(cfg, client.Options{Scheme: env.Env.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return &aso.Engine{Client: c, APIReader: reader}
}

// A desired object whose write or read fails keeps its live object, shows the API's reason and message, and holds
// the deletion of every object no longer desired until a pass succeeds.
func TestReconcile_FailureNeverDeletes(t *testing.T) {
	tests := []struct {
		name       string
		rule       faults.Rule
		wantReason string
		wantError  bool
	}{
		{name: "webhook denial 403", rule: faults.Rule{Verb: "patch", Fault: faults.Denied}, wantReason: "Forbidden", wantError: true},
		{name: "conflict 409", rule: faults.Rule{Verb: "patch", Fault: faults.Conflict}, wantReason: "Conflict", wantError: true},
		{name: "throttled 429", rule: faults.Rule{Verb: "patch", Fault: faults.Throttled}, wantReason: "TooManyRequests", wantError: true},
		{name: "webhook unreachable 500", rule: faults.Rule{Verb: "patch", Fault: faults.Unavailable}, wantReason: "InternalError", wantError: true},
		{name: "timeout", rule: faults.Rule{Verb: "patch", Fault: faults.TimedOut}, wantReason: "Timeout", wantError: true},
		{name: "failed GET of the live object", rule: faults.Rule{Verb: "get", Fault: faults.Unavailable}, wantReason: "InternalError", wantError: true},
		{name: "invalid value", rule: faults.Rule{Verb: "patch", Fault: faults.Fault{Code: 422, Message: "injected fault: spec.tags: Invalid value"}}, wantReason: infrav1.FailedReason},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx, owner := setup(t, g)
			injector := faults.New()
			e := newFaultyEngine(t, injector)
			opts := options("failure")
			before := func() []aso.Resource {
				return []aso.Resource{resourceGroup("rg"), securityGroup("nsg"), securityGroup("nsg-old")}
			}
			reconcileUntilReady(ctx, g, e, owner, before, opts)

			// The NSG's desired spec changes (a tag) and nsg-old leaves the spec, while requests for the NSG fail.
			rule := tt.rule
			rule.Resource, rule.Namespace, rule.Name = nsgResource, owner.Namespace, "nsg"
			if rule.Verb == "get" {
				// The cache does not have it: the engine asks the API server, which fails.
				g.Expect(env.Env.Manager.GetCache().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "nsg"}, &asonetwork.NetworkSecurityGroup{})).To(Succeed())
				rule.Name = "nsg-new"
			}
			id := injector.Add(rule)
			changed := securityGroup("nsg")
			changed.Object.(*asonetwork.NetworkSecurityGroup).Spec.Tags = map[string]string{"pass": string(rune('a' + i))}
			after := func() []aso.Resource {
				return []aso.Resource{resourceGroup("rg"), changed, securityGroup("nsg-new")}
			}
			failing := rule.Name

			result, err := e.Reconcile(ctx, owner, after(), opts)
			g.Expect(injector.Hits(id)).To(BeNumerically(">", 0), "the fault was injected")
			if tt.wantError {
				g.Expect(err).To(HaveOccurred())
			} else {
				g.Expect(err).NotTo(HaveOccurred())
			}
			g.Expect(result.Resource("NetworkSecurityGroup", failing)).To(And(HaveField("Ready", false), HaveField("Reason", tt.wantReason),
				HaveField("Message", ContainSubstring("injected")), HaveField("Message", Not(BeEmpty()))), "the failing object shows the API's answer")
			if tt.rule.Fault.Message != "" && !tt.rule.Fault.Timeout {
				g.Expect(result.Resource("NetworkSecurityGroup", failing).Message).To(ContainSubstring(tt.rule.Fault.Message))
			}
			g.Expect(result.Resource("NetworkSecurityGroup", "nsg-old")).To(And(HaveField("Ready", false), HaveField("Reason", infrav1.DeletionHeldReason)))
			for _, name := range []string{"nsg", "nsg-old"} {
				live := &asonetwork.NetworkSecurityGroup{}
				g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: name}, live)).To(Succeed())
				g.Expect(live.DeletionTimestamp).To(BeNil(), "%s must not be deleted because a request failed", name)
			}

			// Once the fault clears, the change lands and the object no longer desired goes.
			injector.Remove(id)
			result = reconcileUntilReady(ctx, g, e, owner, after, opts)
			g.Expect(result.Resource("NetworkSecurityGroup", "nsg-old")).To(BeNil())
			live := &asonetwork.NetworkSecurityGroup{}
			g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "nsg"}, live)).To(Succeed())
			g.Expect(live.Spec.Tags).To(HaveKeyWithValue("pass", string(rune('a'+i))))
		})
	}
}

// ASO's own validating webhook refuses a new azureName for a resource it has created (the reproduction of issue #15:
// a user patch that renames a NAT gateway). The engine keeps the live object, and the owner shows ASO's denial.
func TestReconcile_ASODeniesRename(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newFaultyEngine(t, faults.New())
	opts := options("rename")
	desired := func(azureName string) func() []aso.Resource {
		return func() []aso.Resource {
			nsg := securityGroup("nsg")
			if azureName != "" {
				nsg.Object.(*asonetwork.NetworkSecurityGroup).Spec.AzureName = azureName
			}
			return []aso.Resource{resourceGroup("rg"), nsg}
		}
	}
	reconcileUntilReady(ctx, g, e, owner, desired(""), opts)

	result, err := e.Reconcile(ctx, owner, desired("renamed")(), opts)
	g.Expect(err).To(HaveOccurred())
	g.Expect(result.Resource("NetworkSecurityGroup", "nsg")).To(And(HaveField("Ready", false), HaveField("Reason", "Forbidden"),
		HaveField("Message", ContainSubstring("updating 'spec.azureName' is not allowed"))), "ASO's denial reaches the owner")
	live := &asonetwork.NetworkSecurityGroup{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "nsg"}, live)).To(Succeed())
	g.Expect(live.DeletionTimestamp).To(BeNil(), "the denied object is kept")
	g.Expect(live.Spec.AzureName).To(Equal("nsg"))

	// Back to the name Azure has, everything is Ready again.
	reconcileUntilReady(ctx, g, e, owner, desired(""), opts)
}
