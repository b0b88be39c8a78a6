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

package contract

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime/conditions"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// Azure is the Azure behind the ASO under test.
type Azure interface {
	// FailPuts makes Azure answer every PUT of the resource id (the ARM resource of obj, of kind) with an Azure
	// error: the HTTP status and the error code. heal stops it.
	FailPuts(obj client.Object, kind, id string, status int, code string) (heal func())
	// Seed creates a resource in Azure, as something other than ASO would.
	Seed(kind, id string, body map[string]any) error
	// Exists tells whether a resource exists in Azure.
	Exists(id string) bool
	// Writes counts the writes (PUTs) of a resource that reached Azure.
	Writes(id string) int
	// ClientIDs are the client IDs of the credentials with which ASO reached Azure for the resource id (its reads,
	// writes and deletes), each once, sorted; none if nothing reached Azure for it.
	ClientIDs(id string) []string
}

// Backend is an ASO under test, on the test environment's API server (test/env): scenarios write as users do, with
// env.Env, and read from the API server.
type Backend struct {
	// Name names the backend in the test output and in Scenario.Differences.
	Name string
	// SubscriptionID is the subscription of ASO's global credential, and ClientID its identity.
	SubscriptionID, ClientID string
	Azure                    Azure
}

// Outcome is what ASO reports of an object. The Ready condition's observedGeneration must equal the object's
// generation.
type Outcome struct {
	Ready    metav1.ConditionStatus
	Severity conditions.ConditionSeverity
	Reason   string
	// Finalizer tells whether ASO's finalizer is on the object.
	Finalizer bool
	// ResourceID is the resource-id annotation ("": none).
	ResourceID string
}

// asoFinalizer is the finalizer ASO puts on the objects it claims.
const asoFinalizer = "serviceoperator.azure.com/finalizer"

// reported is what the object's metadata and status say, as an Outcome, and whether the Ready condition is of the
// object's generation.
func reported(obj client.Object) (Outcome, bool) {
	out := Outcome{
		Finalizer:  controllerutil.ContainsFinalizer(obj, asoFinalizer),
		ResourceID: obj.GetAnnotations()[genruntime.ResourceIDAnnotation],
	}
	ready := genruntime.GetReadyCondition(obj.(genruntime.MetaObject))
	if ready == nil {
		return out, false
	}
	out.Ready, out.Severity, out.Reason = ready.Status, ready.Severity, ready.Reason
	return out, ready.ObservedGeneration == obj.GetGeneration()
}

// Session is one scenario's run: its namespace, and helpers that fail the test on error.
type Session struct {
	t   *testing.T
	g   *WithT
	ctx context.Context
	b   Backend
	// Namespace is the scenario's namespace, and its resource group's name in Azure.
	Namespace string
	namespace *corev1.Namespace
	created   []client.Object
	heals     []func()
}

// timeout bounds a wait for ASO; the real ASO retries a Warning after seconds.
const timeout = 2 * time.Minute

// Create creates an object, deleted (and waited for) when the scenario ends.
func (s *Session) Create(obj client.Object) {
	s.t.Helper()
	obj.SetNamespace(s.Namespace)
	s.g.Expect(env.Env.Create(s.ctx, obj)).To(Succeed())
	s.created = append(s.created, obj)
}

// Update changes an object as a user would, retrying on conflicts.
func (s *Session) Update(obj client.Object, change func()) {
	s.t.Helper()
	s.g.Eventually(func(g Gomega) {
		g.Expect(env.Env.GetAPIReader().Get(s.ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
		change()
		g.Expect(env.Env.Update(s.ctx, obj)).To(Succeed())
	}, timeout, 100*time.Millisecond).Should(Succeed())
}

// Expect waits until ASO reports want of obj for obj's current generation, and leaves obj as last read.
func (s *Session) Expect(obj client.Object, want Outcome) {
	s.t.Helper()
	s.g.Eventually(func(g Gomega) {
		g.Expect(env.Env.GetAPIReader().Get(s.ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
		got, current := reported(obj)
		g.Expect(current).To(BeTrue(), "the Ready condition is of generation %d: %+v", obj.GetGeneration(), got)
		g.Expect(cmp.Diff(want, got)).To(BeEmpty(), "%s %s (-want +got)", kindOf(obj), obj.GetName())
	}, timeout, 250*time.Millisecond).Should(Succeed())
}

// Delete deletes an object and waits until it is gone.
func (s *Session) Delete(obj client.Object) {
	s.t.Helper()
	s.g.Expect(client.IgnoreNotFound(env.Env.Delete(s.ctx, obj))).To(Succeed())
	s.g.Eventually(func() error {
		return env.Env.GetAPIReader().Get(s.ctx, client.ObjectKeyFromObject(obj), obj)
	}, timeout, 250*time.Millisecond).Should(Satisfy(apierrors.IsNotFound), "%s %s is deleted", kindOf(obj), obj.GetName())
}

// FailPuts makes Azure refuse the PUTs of obj's resource (of kind, at id) until the scenario ends or heal.
func (s *Session) FailPuts(obj client.Object, kind, id string, status int, code string) (heal func()) {
	obj.SetNamespace(s.Namespace)
	heal = s.b.Azure.FailPuts(obj, kind, id, status, code)
	s.heals = append(s.heals, heal)
	return heal
}

// Azure is the backend's Azure.
func (s *Session) Azure() Azure { return s.b.Azure }

// GroupName is the Azure name of the scenario's resource group: its namespace's, unique as the tests of a package
// share one Azure.
func (s *Session) GroupName() string { return s.Namespace }

// GroupID is the ARM ID of the scenario's resource group.
func (s *Session) GroupID() string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s", s.b.SubscriptionID, s.GroupName())
}

// SubscriptionID is the subscription of ASO's global credential.
func (s *Session) SubscriptionID() string { return s.b.SubscriptionID }

// ClientID is the client ID of ASO's global credential.
func (s *Session) ClientID() string { return s.b.ClientID }

// ConfigMap creates a ConfigMap that nothing owns.
func (s *Session) ConfigMap(name string, data map[string]string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}
	s.Create(cm)
	return cm
}

// cleanup heals Azure and deletes what the scenario created, newest first, waiting for ASO to let each go, then
// the namespace (without waiting: a test API server may have no namespace controller).
func (s *Session) cleanup() {
	for _, heal := range s.heals {
		heal()
	}
	for i := len(s.created) - 1; i >= 0; i-- {
		s.Delete(s.created[i])
	}
	s.g.Expect(client.IgnoreNotFound(env.Env.Delete(s.ctx, s.namespace))).To(Succeed())
}

// Run runs every scenario against the backend, in parallel.
func Run(t *testing.T, b Backend) {
	for _, sc := range Scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			if why, differs := sc.Differences[b.Name]; differs {
				t.Skipf("a known difference of %s: %s", b.Name, why)
			}
			ctx := t.Context()
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "contract-"}}
			g := NewWithT(t)
			g.Expect(env.Env.Create(ctx, ns)).To(Succeed())
			// The cleanup runs after the test's context ends.
			s := &Session{t: t, g: g, ctx: context.WithoutCancel(ctx), b: b, Namespace: ns.Name, namespace: ns}
			t.Cleanup(s.cleanup)
			sc.Run(s)
		})
	}
}

// kindOf is an object's kind, from its Go type.
func kindOf(obj client.Object) string {
	name := fmt.Sprintf("%T", obj)
	return name[strings.LastIndex(name, ".")+1:]
}
