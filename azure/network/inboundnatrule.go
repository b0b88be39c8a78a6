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
	"fmt"

	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// The frontend ports of control-plane machines' SSH rules, as CAPZ picks them: 22 for the first machine, then the
// first free one of 2201–2219 (a control plane has 1, 3 or 5 machines, a few more while it rolls out).
const (
	sshPort               = 22
	firstAlternateSSHPort = 2201
	lastAlternateSSHPort  = 2219
)

// SSHRule is the inbound NAT rule that forwards a port of the API server load balancer's first frontend to a
// control-plane machine's SSH port.
type SSHRule struct {
	// LoadBalancer is the API server load balancer's name, in the cluster's resource group.
	LoadBalancer string
	// Frontend is the name of its first frontend IP configuration.
	Frontend string
	// FrontendPort is the port of the frontend that reaches the machine (SSHFrontendPort).
	FrontendPort int
	// Unattached is set for a rule on an internal API server load balancer: CAPZ creates it, but no network
	// interface uses it.
	Unattached bool
}

// SSHFrontendPort returns the port a new SSH rule takes, given the frontend ports the load balancer's other rules
// use: 22 when it is free, otherwise the first free one of 2201–2219.
func SSHFrontendPort(inUse sets.Set[int]) (int, error) {
	for _, port := range sshPortCandidates() {
		if !inUse.Has(port) {
			return port, nil
		}
	}
	return 0, fmt.Errorf("no free SSH frontend port: 22 and %d–%d are in use", firstAlternateSSHPort, lastAlternateSSHPort)
}

// sshPortCandidates are the ports an SSH rule may take, in the order they are handed out.
func sshPortCandidates() []int {
	ports := []int{sshPort}
	for port := firstAlternateSSHPort; port <= lastAlternateSSHPort; port++ {
		ports = append(ports, port)
	}
	return ports
}

// SSHRuleObjectName is the name of the ASO object of a machine's SSH rule.
func SSHRuleObjectName(loadBalancer, machine string) string {
	return azure.ObjectName(loadBalancer, machine)
}

// InboundNATRule returns a machine's SSH rule, named after the machine, as a child of the load balancer (by ARM ID:
// machines do not assume the load balancer has an ASO object): TCP from the frontend port to port 22, four minutes
// of idle timeout, no floating IP, as CAPZ makes it.
func InboundNATRule(c azure.Cluster, machine string, rule SSHRule) *asonetwork.LoadBalancersInboundNatRule {
	lbID := azure.ResourceID(c.SubscriptionID, c.ResourceGroup, azure.TypeLoadBalancer, rule.LoadBalancer)
	return &asonetwork.LoadBalancersInboundNatRule{
		ObjectMeta: metav1.ObjectMeta{Name: SSHRuleObjectName(rule.LoadBalancer, machine)},
		Spec: asonetwork.LoadBalancersInboundNatRule_Spec{
			AzureName:        machine,
			Owner:            &genruntime.KnownResourceReference{ARMID: lbID},
			BackendPort:      ptr.To(sshPort),
			EnableFloatingIP: ptr.To(false),
			FrontendIPConfiguration: &asonetwork.SubResource{
				Reference: &genruntime.ResourceReference{ARMID: azure.ChildID(lbID, "frontendIPConfigurations", rule.Frontend)},
			},
			FrontendPort:         ptr.To(rule.FrontendPort),
			IdleTimeoutInMinutes: ptr.To(4),
			Protocol:             ptr.To(asonetwork.TransportProtocol_Tcp),
		},
	}
}
