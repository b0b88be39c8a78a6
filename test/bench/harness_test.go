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

package bench

import (
	"fmt"
	"testing"
	"time"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asoconditions "github.com/Azure/azure-service-operator/v2/pkg/genruntime/conditions"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

func TestParseAuditLine(t *testing.T) {
	tests := []struct {
		name string
		line string
		want *request
	}{
		{
			name: "a status patch of the provider",
			line: `{"stage":"ResponseComplete","verb":"patch","requestURI":"/apis/x/v1/namespaces/n/azuremachines/m/status","user":{"username":"system:serviceaccount:capz-system:capz-manager"},"objectRef":{"resource":"azuremachines","apiGroup":"infrastructure.cluster.x-k8s.io","subresource":"status"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-01-02T03:04:05.123456Z"}`,
			want: &request{at: time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC), actor: actorProvider, verb: "patch", resource: "azuremachines/status", group: "infrastructure.cluster.x-k8s.io", code: 200},
		},
		{
			name: "a conflict of Cluster API",
			line: `{"stage":"ResponseComplete","verb":"update","user":{"username":"capi-manager"},"objectRef":{"resource":"machines"},"responseStatus":{"code":409},"requestReceivedTimestamp":"2026-01-02T03:04:05Z"}`,
			want: &request{at: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), actor: actorCAPI, verb: "update", resource: "machines", code: 409},
		},
		{
			name: "a watch when it starts, with its URI",
			line: `{"stage":"ResponseStarted","verb":"watch","requestURI":"/apis/x/v1/azuremachines?watch=true","user":{"username":"system:serviceaccount:capz-system:capz-manager"},"objectRef":{"resource":"azuremachines"},"requestReceivedTimestamp":"2026-01-02T03:04:05Z"}`,
			want: &request{at: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), actor: actorProvider, verb: "watch", resource: "azuremachines", uri: "/apis/x/v1/azuremachines?watch=true"},
		},
		{
			name: "a watch when it ends is not counted again",
			line: `{"stage":"ResponseComplete","verb":"watch","user":{"username":"system:serviceaccount:capz-system:capz-manager"},"objectRef":{"resource":"azuremachines"}}`,
		},
		{
			name: "a request's first stage is not counted",
			line: `{"stage":"RequestReceived","verb":"get","user":{"username":"asosim"},"objectRef":{"resource":"secrets"}}`,
		},
		{
			name: "a non-resource request is not counted",
			line: `{"stage":"ResponseComplete","verb":"get","requestURI":"/healthz","user":{"username":"asosim"}}`,
		},
		{name: "not JSON", line: `{"stage":`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got, ok := parseAuditLine([]byte(tt.line))
			if tt.want == nil {
				g.Expect(ok).To(BeFalse())
				return
			}
			g.Expect(ok).To(BeTrue())
			g.Expect(got).To(Equal(*tt.want))
		})
	}
}

func TestCountBy(t *testing.T) {
	g := NewWithT(t)
	reqs := []request{
		{actor: actorProvider, verb: "patch", resource: "azuremachines/status", code: 200},
		{actor: actorProvider, verb: "patch", resource: "azuremachines/status", code: 409},
		{actor: actorProvider, verb: "patch", resource: "virtualmachines", code: 200},
		{actor: actorProvider, verb: "get", resource: "secrets", code: 200},
		{actor: actorCAPI, verb: "patch", resource: "azuremachines", code: 200},
	}
	writes := countBy(reqs, func(r request) bool { return r.actor == actorProvider && r.isWrite() })
	g.Expect(writes).To(Equal([]Count{
		{Resource: "azuremachines/status", Verb: "patch", Count: 2, Failed: 1},
		{Resource: "virtualmachines", Verb: "patch", Count: 1},
	}))
	g.Expect(total(writes)).To(Equal(3))
	g.Expect(writesByActor(reqs)).To(Equal(map[string]int{actorProvider: 3, actorCAPI: 1}))
}

func TestProviderListURIs(t *testing.T) {
	g := NewWithT(t)
	reqs := []request{
		{actor: actorProvider, verb: "watch", uri: "/apis/g/v1/vms?allowWatchBookmarks=true&labelSelector=owned&resourceVersion=5&sendInitialEvents=true&watch=true"},
		{actor: actorProvider, verb: "list", uri: "/apis/g/v1/vms?labelSelector=owned&limit=500&resourceVersion=0"},
		{actor: actorProvider, verb: "list", uri: "/apis/g/v1/machines?limit=500"},
		{actor: actorCAPI, verb: "list", uri: "/api/v1/secrets"},
		{actor: actorProvider, verb: "get", uri: ""},
	}
	g.Expect(providerListURIs(reqs)).To(Equal([]string{"/apis/g/v1/machines", "/apis/g/v1/vms?labelSelector=owned"}))
}

func TestChangedFields(t *testing.T) {
	base := func() map[string]any {
		return map[string]any{
			"metadata": map[string]any{"resourceVersion": "1", "annotations": map[string]any{"a": "1"}, "finalizers": []any{"f"}},
			"spec":     map[string]any{"vmSize": "D2"},
			"status": map[string]any{
				"conditions": []any{
					map[string]any{"type": "Ready", "status": "False", "reason": "Provisioning", "lastTransitionTime": "t1"},
					map[string]any{"type": "Paused", "status": "False"},
				},
				"resources": []any{map[string]any{"resource": map[string]any{"kind": "VirtualMachine"}, "ready": false}},
			},
		}
	}
	tests := []struct {
		name   string
		change func(m map[string]any)
		want   []string
	}{
		{name: "only the resource version", change: func(m map[string]any) {
			m["metadata"].(map[string]any)["resourceVersion"] = "2"
		}},
		{name: "a condition turns true", change: func(m map[string]any) {
			c := m["status"].(map[string]any)["conditions"].([]any)[0].(map[string]any)
			c["status"], c["reason"], c["lastTransitionTime"] = "True", "Ready", "t2"
		}, want: []string{"status.conditions[Ready].reason+status"}},
		{name: "a resource is ready and the spec changes", change: func(m map[string]any) {
			m["status"].(map[string]any)["resources"] = []any{map[string]any{"resource": map[string]any{"kind": "VirtualMachine"}, "ready": true}}
			m["spec"].(map[string]any)["providerID"] = "azure:///x"
		}, want: []string{"spec.providerID", "status.resources[VirtualMachine].ready"}},
		{name: "metadata", change: func(m map[string]any) {
			md := m["metadata"].(map[string]any)
			md["annotations"] = map[string]any{"a": "1", "b": "2"}
			md["finalizers"] = []any{}
		}, want: []string{"metadata.annotations[b]", "metadata.finalizers"}},
		{name: "conditions added and removed, a status field", change: func(m map[string]any) {
			st := m["status"].(map[string]any)
			st["conditions"] = []any{map[string]any{"type": "Ready", "status": "False", "reason": "Provisioning", "lastTransitionTime": "t1"}, map[string]any{"type": "VirtualMachineReady"}}
			st["vmState"] = "Succeeded"
		}, want: []string{"status.conditions[Paused] removed", "status.conditions[VirtualMachineReady] added", "status.vmState"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			after := base()
			tt.change(after)
			g.Expect(changedFields(base(), after)).To(Equal(tt.want))
		})
	}
}

func TestWriters(t *testing.T) {
	t0, t1 := metav1.NewTime(time.Unix(0, 0)), metav1.NewTime(time.Unix(1, 0))
	entry := func(manager string, op metav1.ManagedFieldsOperationType, sub string, at metav1.Time) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, Subresource: sub, Time: &at}
	}
	tests := []struct {
		name          string
		before, after []metav1.ManagedFieldsEntry
		want          string
	}{
		{name: "a status update", before: []metav1.ManagedFieldsEntry{entry("m", metav1.ManagedFieldsOperationUpdate, "status", t0)},
			after: []metav1.ManagedFieldsEntry{entry("m", metav1.ManagedFieldsOperationUpdate, "status", t1)}, want: "m (update status)"},
		{name: "a new apply", after: []metav1.ManagedFieldsEntry{entry("capi", metav1.ManagedFieldsOperationApply, "", t0)}, want: "capi (apply)"},
		{name: "nothing changed", before: []metav1.ManagedFieldsEntry{entry("m", metav1.ManagedFieldsOperationUpdate, "", t0)},
			after: []metav1.ManagedFieldsEntry{entry("m", metav1.ManagedFieldsOperationUpdate, "", t0)}, want: "unattributed (same fields, same second)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(writers(tt.before, tt.after)).To(Equal(tt.want))
		})
	}
}

func TestLatencyTracker(t *testing.T) {
	g := NewWithT(t)
	tr := newLatencyTracker()
	vm := func(name string, ready bool) *asocompute.VirtualMachine {
		o := &asocompute.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Generation: 1}}
		status := metav1.ConditionFalse
		if ready {
			status = metav1.ConditionTrue
		}
		o.Status.Conditions = []asoconditions.Condition{{Type: asoconditions.ConditionTypeReady, Status: status, ObservedGeneration: 1}}
		return o
	}
	owner := func(ready map[string]bool) *infrav1.AzureMachine {
		am := &infrav1.AzureMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m"}}
		for name, r := range ready {
			am.Status.Resources = append(am.Status.Resources, infrav1.ResourceStatus{
				Resource: infrav1.StatusResource{Group: "compute.azure.com", Kind: "VirtualMachine", Name: name}, Ready: r})
		}
		return am
	}
	start := time.Now()
	tr.observeOwner(owner(map[string]bool{"a": false, "b": true}))
	tr.observeASO("compute.azure.com", "VirtualMachine", vm("a", false))
	tr.observeASO("compute.azure.com", "VirtualMachine", vm("a", true))
	tr.observeASO("compute.azure.com", "VirtualMachine", vm("b", true)) // its owner shows it ready already: no sample
	time.Sleep(10 * time.Millisecond)
	tr.observeOwner(owner(map[string]bool{"a": true, "b": true}))

	got := tr.between(start, time.Now())
	g.Expect(got).NotTo(BeNil())
	g.Expect(got.Samples).To(Equal(1))
	g.Expect(got.P50MS).To(BeNumerically(">=", 10))
	g.Expect(got.P99MS).To(Equal(got.MaxMS))
	g.Expect(tr.between(time.Now(), time.Now().Add(time.Hour))).To(BeNil(), "no sample later")

	kind := fmt.Sprintf("%T", &infrav1.AzureMachine{})
	g.Expect(tr.provisioning(kind, start, time.Now())).To(And(HaveField("Units", 1), HaveField("NotReady", 1)))
	ready := owner(map[string]bool{"a": true})
	ready.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue}}
	tr.observeOwner(ready)
	p := tr.provisioning(kind, start, time.Now())
	g.Expect(p.Units).To(Equal(1))
	g.Expect(p.NotReady).To(BeZero())
	g.Expect(p.ReadyP99Seconds).To(BeNumerically(">=", 0.01))
}

func TestGCLine(t *testing.T) {
	g := NewWithT(t)
	m := gcLine.FindStringSubmatch("gc 12 @3.456s 2%: 0.010+1.2+0.020 ms clock, 0.020+0.30/1.1/2.2+0.040 ms cpu, 45->46->23 MB, 47 MB goal, 0 MB stacks, 0 MB globals, 2 P")
	g.Expect(m).To(HaveLen(5))
	g.Expect(m[3]).To(Equal("23"), "the live heap after the collection")
	g.Expect(gcLine.FindStringSubmatch(`I1125 07:00:00.000 "Reconciling" gc 1`)).To(BeNil())
}

func TestManagerLimits(t *testing.T) {
	tests := []struct {
		name               string
		args               []string
		qps                float32
		burst, concurrency int
	}{
		{name: "defaults", qps: managerDefaultQPS, burst: managerDefaultBurst, concurrency: 10},
		{name: "flags", args: []string{"--kube-api-qps=50", "--kube-api-burst=80", "--azuremachine-concurrency=4", "--v=2"}, qps: 50, burst: 80, concurrency: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			cfg := Config{ManagerArgs: tt.args}
			qps, burst, workers := cfg.managerLimits()
			g.Expect([]any{qps, burst, workers}).To(Equal([]any{tt.qps, tt.burst, tt.concurrency}))
		})
	}
}
