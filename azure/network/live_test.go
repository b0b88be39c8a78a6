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

package network

import (
	"testing"
	"time"

	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/capzaso/cluster-api-provider-azure/azure"
)

func TestSSHRuleFor(t *testing.T) {
	const (
		lbName  = "my-cluster-public-lb"
		machine = "my-cluster-control-plane-mine"
	)
	lbID := azure.ResourceID(testCluster.SubscriptionID, testCluster.ResourceGroup, azure.TypeLoadBalancer, lbName)
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// object is the provider's rule object of a machine on lb, created minutes after the epoch.
	object := func(lb, machine string, port, minutes int) azure.Object {
		r := InboundNATRule(testCluster, machine, SSHRule{LoadBalancer: lb, Frontend: lb + "-frontEnd", FrontendPort: port})
		r.CreationTimestamp = metav1.NewTime(epoch.Add(time.Duration(minutes) * time.Minute))
		return r
	}
	ours := func(machine string, port, minutes int) azure.Object { return object(lbName, machine, port, minutes) }
	// held is a rule Azure holds on the load balancer, as ASO lists it in the load balancer's status.
	held := func(name string, port int) asonetwork.InboundNatRule_STATUS_LoadBalancer_SubResourceEmbedded {
		return asonetwork.InboundNatRule_STATUS_LoadBalancer_SubResourceEmbedded{
			Name: ptr.To(name), Id: ptr.To(azure.ChildID(lbID, "inboundNatRules", name)), FrontendPort: ptr.To(port),
		}
	}
	// inAzure is the load balancer's object as ASO reports it, with the rules Azure holds on it.
	inAzure := func(id string, rules ...asonetwork.InboundNatRule_STATUS_LoadBalancer_SubResourceEmbedded) azure.Object {
		lb := LoadBalancerRef(lbName).(*asonetwork.LoadBalancer)
		if id != "" {
			lb.Status.Id = ptr.To(id)
		}
		lb.Status.InboundNatRules = rules
		return lb
	}
	tests := []struct {
		name  string
		rules []azure.Object
		lb    azure.Object
		want  int
	}{
		// Nothing in Azure: the rule objects decide, as before.
		{name: "the first rule takes 22", want: 22},
		{name: "a new rule takes the first free port", rules: []azure.Object{ours("a", 22, 0), ours("b", 2202, 1)}, want: 2201},
		{name: "a rule keeps its port", rules: []azure.Object{ours("a", 22, 0), ours(machine, 2202, 1)}, want: 2202},
		{name: "two at once: the older keeps 22", rules: []azure.Object{ours("a", 22, 1), ours(machine, 22, 0)}, want: 22},
		{name: "two at once: the younger moves", rules: []azure.Object{ours("a", 22, 0), ours(machine, 22, 1)}, want: 2201},
		{name: "rules of another load balancer do not count", rules: []azure.Object{object("other-lb", "a", 22, 0)}, want: 22},
		{name: "a load balancer object without status", rules: []azure.Object{ours("a", 22, 0)}, lb: inAzure(""), want: 2201},
		{
			name: "the status of another load balancer does not count",
			lb:   inAzure(azure.ResourceID(testCluster.SubscriptionID, "another-rg", azure.TypeLoadBalancer, lbName), held(machine, 2203), held("a", 22)),
			want: 22,
		},

		// Azure holds the machine's rule (CAPZ made it): its port, whatever the rule objects say.
		{name: "Azure's port of the machine's rule", lb: inAzure(lbID, held("a", 22), held(machine, 2202), held("b", 2201)), want: 2202},
		{name: "Azure's port over the rule object's", rules: []azure.Object{ours(machine, 22, 0)}, lb: inAzure(lbID, held(machine, 2201)), want: 2201},
		{
			name:  "Azure's port over an older rule object's",
			rules: []azure.Object{ours("a", 22, 0), ours(machine, 2201, 1)},
			lb:    inAzure(lbID, held(machine, 22), held("a", 2201)),
			want:  22,
		},
		{name: "the rule's name in any case", lb: inAzure(lbID, held("My-Cluster-Control-Plane-MINE", 2204)), want: 2204},
		{
			name: "the rule's name from its ID",
			lb: inAzure(lbID, asonetwork.InboundNatRule_STATUS_LoadBalancer_SubResourceEmbedded{
				Id: ptr.To(azure.ChildID(lbID, "inboundNatRules", machine)), FrontendPort: ptr.To(2205),
			}),
			want: 2205,
		},

		// Azure holds other rules: their ports are taken.
		{name: "ports Azure holds are skipped", lb: inAzure(lbID, held("a", 22), held("b", 2201)), want: 2202},
		{name: "ports of Azure's rules and of rule objects", rules: []azure.Object{ours("c", 2202, 0)}, lb: inAzure(lbID, held("a", 22), held("b", 2201)), want: 2203},
		{name: "a user's rule on an SSH port", lb: inAzure(lbID, held("my-debug-rule", 22)), want: 2201},
		{
			name:  "a rule object moves off a port Azure holds for another rule",
			rules: []azure.Object{ours(machine, 22, 0)},
			lb:    inAzure(lbID, held("capz-machine", 22)),
			want:  2201,
		},
		{
			name: "a backend pool rule's port range",
			lb: inAzure(lbID, held("a", 22), asonetwork.InboundNatRule_STATUS_LoadBalancer_SubResourceEmbedded{
				Name: ptr.To("pool-rule"), FrontendPortRangeStart: ptr.To(2000), FrontendPortRangeEnd: ptr.To(2203),
			}),
			want: 2204,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := SSHRule{LoadBalancer: lbName, Frontend: lbName + "-frontEnd", Unattached: true}
			got, err := SSHRuleFor(in, lbID, machine, tt.rules, tt.lb)
			if err != nil {
				t.Fatalf("SSHRuleFor() error = %v", err)
			}
			if got.FrontendPort != tt.want {
				t.Errorf("SSHRuleFor() port = %d, want %d", got.FrontendPort, tt.want)
			}
			if in.FrontendPort = got.FrontendPort; *got != in {
				t.Errorf("SSHRuleFor() = %+v, want the rule given with its port: %+v", *got, in)
			}
		})
	}
}

// TestSSHRuleFor_NoFreePort: when Azure and the rule objects hold every SSH port, the machine's rule has none.
func TestSSHRuleFor_NoFreePort(t *testing.T) {
	lbID := azure.ResourceID(testCluster.SubscriptionID, testCluster.ResourceGroup, azure.TypeLoadBalancer, "lb")
	lb := LoadBalancerRef("lb").(*asonetwork.LoadBalancer)
	lb.Status.Id = ptr.To(lbID)
	var rules []azure.Object
	for i, port := range sshPortCandidates() {
		if i%2 == 0 {
			name := "capz-" + string(rune('a'+i))
			lb.Status.InboundNatRules = append(lb.Status.InboundNatRules, asonetwork.InboundNatRule_STATUS_LoadBalancer_SubResourceEmbedded{Name: ptr.To(name), FrontendPort: ptr.To(port)})
			continue
		}
		rules = append(rules, InboundNATRule(testCluster, "ours-"+string(rune('a'+i)), SSHRule{LoadBalancer: "lb", Frontend: "fe", FrontendPort: port}))
	}
	if got, err := SSHRuleFor(SSHRule{LoadBalancer: "lb", Frontend: "fe"}, lbID, "new", rules, lb); err == nil {
		t.Fatalf("SSHRuleFor() = %+v, want an error", *got)
	}
}

func TestReadFromAzure(t *testing.T) {
	read := LoadBalancerRef("lb").(*asonetwork.LoadBalancer)
	read.Status.Id = ptr.To("/subscriptions/s/resourceGroups/g/providers/Microsoft.Network/loadBalancers/lb")
	for _, tc := range []struct {
		name string
		lb   azure.Object
		want bool
	}{
		{name: "no object", lb: nil},
		{name: "not read yet", lb: LoadBalancerRef("lb")},
		{name: "read", lb: read, want: true},
		{name: "another kind", lb: InboundNATRules()},
	} {
		if got := ReadFromAzure(tc.lb); got != tc.want {
			t.Errorf("%s: ReadFromAzure() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
