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

package v1beta1_test

// invalidManifests are the mistakes users make most, each applied as a merge patch to the kind's sample in
// config/samples. The API server (schema or webhook) must reject each one with a message naming the field.
var invalidManifests = []invalid{
	// AzureClusterIdentity
	{name: "unknown type", kind: "AzureClusterIdentity", patch: "spec: {type: Magic}", field: "spec.type"},
	{name: "tenant not a GUID", kind: "AzureClusterIdentity", patch: "spec: {tenantID: my-tenant}", field: "spec.tenantID"},
	{name: "service principal without secret", kind: "AzureClusterIdentity", patch: "spec: {clientSecret: null}", field: "spec.clientSecret.name"},
	{name: "cert path on a service principal", kind: "AzureClusterIdentity", patch: "spec: {certPath: /etc/cert.pem}", field: "spec.certPath"},

	// AzureCluster
	{name: "vnet CIDR does not parse", kind: "AzureCluster", patch: "spec: {networkSpec: {vnet: {cidrBlocks: [10.0.0.0/33]}}}", field: "spec.networkSpec.vnet.cidrBlocks[0]"},
	{name: "vnet CIDR has host bits", kind: "AzureCluster", patch: "spec: {networkSpec: {vnet: {cidrBlocks: [10.1.2.3/8]}}}", field: "spec.networkSpec.vnet.cidrBlocks[0]"},
	{name: "subnets overlap", kind: "AzureCluster", patch: "spec: {networkSpec: {subnets: [{name: a, role: control-plane, cidrBlocks: [10.0.0.0/16]}, {name: b, role: node, cidrBlocks: [10.0.128.0/17]}]}}", field: "spec.networkSpec.subnets[1].cidrBlocks[0]"},
	{name: "subnet outside the vnet", kind: "AzureCluster", patch: "spec: {networkSpec: {subnets: [{name: a, role: control-plane, cidrBlocks: [10.0.0.0/16]}, {name: b, role: node, cidrBlocks: [192.168.0.0/16]}]}}", field: "spec.networkSpec.subnets[1].cidrBlocks[0]"},
	{name: "unknown subnet role", kind: "AzureCluster", patch: "spec: {networkSpec: {subnets: [{name: a, role: worker}]}}", field: "spec.networkSpec.subnets[0].role"},
	{name: "duplicate subnet names", kind: "AzureCluster", patch: "spec: {networkSpec: {subnets: [{name: a, role: control-plane, cidrBlocks: [10.0.0.0/16]}, {name: a, role: node, cidrBlocks: [10.1.0.0/16]}]}}", field: "spec.networkSpec.subnets[1].name"},
	{name: "bastion subnet role in subnets", kind: "AzureCluster", patch: "spec: {networkSpec: {subnets: [{name: a, role: control-plane, cidrBlocks: [10.0.0.0/16]}, {name: b, role: node, cidrBlocks: [10.1.0.0/16]}, {name: c, role: bastion, cidrBlocks: [10.2.0.0/16]}]}}", field: "spec.networkSpec.subnets[2].role"},
	{name: "resource group name", kind: "AzureCluster", patch: "spec: {resourceGroup: 'my group!'}", field: "spec.resourceGroup"},
	{name: "missing location", kind: "AzureCluster", patch: "spec: {location: null}", field: "spec.location"},
	{name: "subscription not a GUID", kind: "AzureCluster", patch: "spec: {subscriptionID: my-subscription}", field: "spec.subscriptionID"},
	{name: "vnet name too long", kind: "AzureCluster", patch: "spec: {networkSpec: {vnet: {name: vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv}}}", field: "spec.networkSpec.vnet.name"},
	{name: "security rule priority", kind: "AzureCluster", patch: "spec: {networkSpec: {subnets: [{name: a, role: control-plane, securityGroup: {name: nsg, securityRules: [{name: r, description: d, protocol: Tcp, direction: Inbound, priority: 50}]}}, {name: b, role: node}]}}", field: "spec.networkSpec.subnets[0].securityGroup.securityRules[0].priority"},
	{name: "duplicate security rule names", kind: "AzureCluster", patch: "spec: {networkSpec: {subnets: [{name: a, role: control-plane, securityGroup: {name: nsg, securityRules: [{name: r, description: d, protocol: Tcp, direction: Inbound, priority: 200}, {name: r, description: d, protocol: Tcp, direction: Inbound, priority: 201}]}}, {name: b, role: node}]}}", field: "spec.networkSpec.subnets[0].securityGroup.securityRules[1].name"},
	{name: "security rule with source and sources", kind: "AzureCluster", patch: "spec: {networkSpec: {subnets: [{name: a, role: control-plane, securityGroup: {name: nsg, securityRules: [{name: r, description: d, protocol: Tcp, direction: Inbound, priority: 200, source: '*', sources: [10.0.0.0/8]}]}}, {name: b, role: node}]}}", field: "spec.networkSpec.subnets[0].securityGroup.securityRules[0].sources"},
	{name: "security rule without source", kind: "AzureCluster", patch: "spec: {networkSpec: {subnets: [{name: a, role: control-plane, securityGroup: {name: nsg, securityRules: [{name: r, description: d, protocol: Tcp, direction: Inbound, priority: 200, sourcePorts: '*', destination: '*', destinationPorts: '22'}]}}, {name: b, role: node}]}}", field: "spec.networkSpec.subnets[0].securityGroup.securityRules[0].source: Required value"},
	{name: "security rule without destination ports", kind: "AzureCluster", patch: "spec: {networkSpec: {subnets: [{name: a, role: control-plane, securityGroup: {name: nsg, securityRules: [{name: r, description: d, protocol: Tcp, direction: Inbound, priority: 200, source: '*', sourcePorts: '*', destination: '*'}]}}, {name: b, role: node}]}}", field: "spec.networkSpec.subnets[0].securityGroup.securityRules[0].destinationPorts: Required value"},
	{name: "security rule protocol", kind: "AzureCluster", patch: "spec: {networkSpec: {subnets: [{name: a, role: control-plane, securityGroup: {name: nsg, securityRules: [{name: r, description: d, protocol: Sctp, direction: Inbound}]}}, {name: b, role: node}]}}", field: "spec.networkSpec.subnets[0].securityGroup.securityRules[0].protocol"},
	{name: "API server LB type", kind: "AzureCluster", patch: "spec: {networkSpec: {apiServerLB: {type: External}}}", field: "spec.networkSpec.apiServerLB.type"},
	{name: "internal LB with a public IP", kind: "AzureCluster", patch: "spec: {networkSpec: {apiServerLB: {type: Internal, frontendIPs: [{name: fe, publicIP: {name: pip}}]}}}", field: "spec.networkSpec.apiServerLB.frontendIPs[0].publicIP"},
	{name: "frontend private IP", kind: "AzureCluster", patch: "spec: {networkSpec: {apiServerLB: {type: Internal, frontendIPs: [{name: fe, privateIP: 10.0.0.999}]}}}", field: "spec.networkSpec.apiServerLB.frontendIPs[0].privateIP"},
	{name: "control-plane outbound LB on a public cluster", kind: "AzureCluster", patch: "spec: {networkSpec: {controlPlaneOutboundLB: {frontendIPsCount: 1}}}", field: "spec.networkSpec.controlPlaneOutboundLB"},
	{name: "outbound LB frontend count", kind: "AzureCluster", patch: "spec: {networkSpec: {nodeOutboundLB: {frontendIPsCount: 20}}}", field: "spec.networkSpec.nodeOutboundLB.frontendIPsCount"},
	{name: "LB idle timeout", kind: "AzureCluster", patch: "spec: {networkSpec: {apiServerLB: {idleTimeoutInMinutes: 60}}}", field: "spec.networkSpec.apiServerLB.idleTimeoutInMinutes"},
	{name: "additional LB port 6443", kind: "AzureCluster", patch: "spec: {networkSpec: {additionalAPIServerLBPorts: [{name: api, port: 6443}]}}", field: "spec.networkSpec.additionalAPIServerLBPorts[0].port"},
	{name: "private DNS zone name", kind: "AzureCluster", patch: "spec: {networkSpec: {privateDNSZoneName: Bad_Zone.example}}", field: "spec.networkSpec.privateDNSZoneName"},
	{name: "public IP DNS name", kind: "AzureCluster", patch: "spec: {networkSpec: {apiServerLB: {frontendIPs: [{name: fe, publicIP: {name: pip, dnsName: -bad-.example.com}}]}}}", field: "spec.networkSpec.apiServerLB.frontendIPs[0].publicIP.dnsName"},
	{name: "bastion subnet name", kind: "AzureCluster", patch: "spec: {bastionSpec: {azureBastion: {subnet: {name: my-bastion, role: bastion}}}}", field: "spec.bastionSpec.azureBastion.subnet.name"},
	{name: "bastion tunneling on Basic", kind: "AzureCluster", patch: "spec: {bastionSpec: {azureBastion: {sku: Basic, enableTunneling: true}}}", field: "spec.bastionSpec.azureBastion.enableTunneling"},
	{name: "identity of another kind", kind: "AzureCluster", patch: "spec: {identityRef: {kind: Secret, name: x}}", field: "spec.identityRef.kind"},
	{name: "missing identityRef", kind: "AzureCluster", patch: "spec: {identityRef: null}", field: "spec.identityRef: Required value"},
	{name: "tag key", kind: "AzureCluster", patch: "spec: {additionalTags: {'a<b': c}}", field: "spec.additionalTags[a<b]"},
	{name: "patch renames an object", kind: "AzureCluster", patch: "spec: {asoPatches: [{target: {kind: VirtualNetwork}, patch: 'metadata: {name: other}'}]}", field: "spec.asoPatches[0].patch"},
	{name: "patch points the resource group at another resource ID", kind: "AzureCluster", patch: "spec: {asoPatches: [{target: {kind: ResourceGroup}, patch: 'metadata: {annotations: {serviceoperator.azure.com/resource-id: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/theirs}}'}]}", field: "spec.asoPatches[0].patch"},
	{name: "patch type", kind: "AzureCluster", patch: "spec: {asoPatches: [{target: {kind: VirtualNetwork}, type: StrategicMerge, patch: '{}'}]}", field: "spec.asoPatches[0].type"},
	{name: "Azure environment", kind: "AzureCluster", patch: "spec: {azureEnvironment: AzureMoonCloud}", field: "spec.azureEnvironment"},
	{name: "NAT gateway on an IPv6 subnet", kind: "AzureCluster", patch: "spec: {networkSpec: {vnet: {cidrBlocks: [10.0.0.0/8, 'fd00::/48']}, subnets: [{name: a, role: control-plane, cidrBlocks: [10.0.0.0/16]}, {name: b, role: node, cidrBlocks: ['fd00::/64'], natGateway: {name: gw}}]}}", field: "spec.networkSpec.subnets[1].natGateway"},
	{name: "API server LB without control plane", kind: "AzureCluster", patch: "spec: {controlPlaneEnabled: false}", field: "spec.networkSpec.apiServerLB"},

	{name: "cloud provider rate limit name", kind: "AzureCluster", patch: "spec: {cloudProviderConfigOverrides: {rateLimits: [{name: everythingRateLimit}]}}", field: "spec.cloudProviderConfigOverrides.rateLimits[0].name"},
	{name: "bastion subnet role", kind: "AzureCluster", patch: "spec: {bastionSpec: {azureBastion: {subnet: {name: AzureBastionSubnet, role: node}}}}", field: "spec.bastionSpec.azureBastion.subnet.role"},
	{name: "internal node outbound LB", kind: "AzureCluster", patch: "spec: {networkSpec: {nodeOutboundLB: {type: Internal}}}", field: "spec.networkSpec.nodeOutboundLB.type"},
	{name: "API server LB frontend count is not implemented", kind: "AzureCluster", patch: "spec: {networkSpec: {apiServerLB: {frontendIPsCount: 2}}}", field: "spec.networkSpec.apiServerLB.frontendIPsCount: Forbidden: field not supported yet"},
	{name: "load balancer id is not implemented", kind: "AzureCluster", patch: "spec: {networkSpec: {nodeOutboundLB: {id: /subscriptions/s/resourceGroups/g/providers/Microsoft.Network/loadBalancers/lb}}}", field: "spec.networkSpec.nodeOutboundLB.id: Forbidden: field not supported yet"},
	{name: "private IP on an outbound load balancer", kind: "AzureCluster", patch: "spec: {networkSpec: {nodeOutboundLB: {frontendIPs: [{name: fe, privateIP: 10.1.0.5}]}}}", field: "spec.networkSpec.nodeOutboundLB.frontendIPs[0].privateIP: Forbidden: field not supported yet"},

	// AzureClusterTemplate
	{name: "cloud provider rate limit name", kind: "AzureClusterTemplate", patch: "spec: {template: {spec: {cloudProviderConfigOverrides: {rateLimits: [{name: everythingRateLimit}]}}}}", field: "spec.template.spec.cloudProviderConfigOverrides.rateLimits[0].name"},
	{name: "vnet CIDR", kind: "AzureClusterTemplate", patch: "spec: {template: {spec: {networkSpec: {vnet: {cidrBlocks: [banana]}}}}}", field: "spec.template.spec.networkSpec.vnet.cidrBlocks[0]"},
	{name: "subnets overlap", kind: "AzureClusterTemplate", patch: "spec: {template: {spec: {networkSpec: {subnets: [{name: a, role: control-plane, cidrBlocks: [10.0.0.0/16]}, {name: b, role: node, cidrBlocks: [10.0.0.0/24]}]}}}}", field: "spec.template.spec.networkSpec.subnets[1].cidrBlocks[0]"},
	{name: "patch of spec.owner", kind: "AzureClusterTemplate", patch: "spec: {template: {spec: {asoPatches: [{target: {kind: VirtualNetwork}, type: JSONPatch, patch: '[{op: remove, path: /spec/owner}]'}]}}}", field: "spec.template.spec.asoPatches[0].patch"},
	{name: "Azure environment", kind: "AzureClusterTemplate", patch: "spec: {template: {spec: {azureEnvironment: AzureMoonCloud}}}", field: "spec.template.spec.azureEnvironment"},

	// AzureMachine
	{name: "missing VM size", kind: "AzureMachine", patch: "spec: {vmSize: null}", field: "spec.vmSize"},
	{name: "SSH key", kind: "AzureMachine", patch: "spec: {sshPublicKey: c3NoLXJzYSBub3RhLWtleQ==}", field: "spec.sshPublicKey"},
	{name: "two image sources", kind: "AzureMachine", patch: "spec: {image: {id: /subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/images/i}}", field: "spec.image"},
	{name: "OS disk size", kind: "AzureMachine", patch: "spec: {osDisk: {diskSizeGB: 5000}}", field: "spec.osDisk.diskSizeGB"},
	{name: "duplicate data disk LUN", kind: "AzureMachine", patch: "spec: {dataDisks: [{nameSuffix: a, diskSizeGB: 10, lun: 1}, {nameSuffix: b, diskSizeGB: 10, lun: 1}]}", field: "spec.dataDisks[1].lun"},
	{name: "data disk size", kind: "AzureMachine", patch: "spec: {dataDisks: [{nameSuffix: a, diskSizeGB: 0}]}", field: "spec.dataDisks[0].diskSizeGB"},
	{name: "user-assigned identity missing", kind: "AzureMachine", patch: "spec: {identity: UserAssigned}", field: "spec.userAssignedIdentities"},
	{name: "role without system identity", kind: "AzureMachine", patch: "spec: {systemAssignedIdentityRole: {scope: /subscriptions/s}}", field: "spec.systemAssignedIdentityRole"},
	{name: "spot price", kind: "AzureMachine", patch: "spec: {spotVMOptions: {maxPrice: '0'}}", field: "spec.spotVMOptions.maxPrice"},
	{name: "user-managed diagnostics without account", kind: "AzureMachine", patch: "spec: {diagnostics: {boot: {storageAccountType: UserManaged}}}", field: "spec.diagnostics.boot.userManaged"},
	{name: "confidential VM without vTPM", kind: "AzureMachine", patch: "spec: {securityProfile: {securityType: ConfidentialVM}}", field: "spec.securityProfile.uefiSettings.vTpmEnabled"},
	{name: "DNS server", kind: "AzureMachine", patch: "spec: {dnsServers: [dns.example.com]}", field: "spec.dnsServers[0]"},
	{name: "ephemeral disk caching", kind: "AzureMachine", patch: "spec: {osDisk: {cachingType: ReadWrite, diffDiskSettings: {option: Local}}}", field: "spec.osDisk.cachingType"},
	{name: "provider ID scheme", kind: "AzureMachine", patch: "spec: {providerID: aws:///i-123}", field: "spec.providerID"},
	{name: "caching type", kind: "AzureMachine", patch: "spec: {osDisk: {cachingType: Sometimes}}", field: "spec.osDisk.cachingType"},
	{name: "capacity reservation ID", kind: "AzureMachine", patch: "spec: {capacityReservationGroupID: my-group}", field: "spec.capacityReservationGroupID"},

	// AzureMachineTemplate
	{name: "provider ID in a template", kind: "AzureMachineTemplate", patch: "spec: {template: {spec: {providerID: 'azure:///x'}}}", field: "spec.template.spec.providerID"},
	{name: "OS disk size", kind: "AzureMachineTemplate", patch: "spec: {template: {spec: {osDisk: {diskSizeGB: 5000}}}}", field: "spec.template.spec.osDisk.diskSizeGB"},
	{name: "SSH key", kind: "AzureMachineTemplate", patch: "spec: {template: {spec: {sshPublicKey: '!!'}}}", field: "spec.template.spec.sshPublicKey"},
	{name: "subnet name with network interfaces", kind: "AzureMachineTemplate", patch: "spec: {template: {spec: {subnetName: other}}}", field: "spec.template.spec.subnetName"},

	// AzureManagedControlPlane
	{name: "version", kind: "AzureManagedControlPlane", patch: "spec: {version: 1.x}", field: "spec.version"},
	{name: "network policy azure on kubenet", kind: "AzureManagedControlPlane", patch: "spec: {networkPlugin: kubenet, networkPolicy: azure}", field: "spec.networkPolicy"},
	{name: "DNS service IP", kind: "AzureManagedControlPlane", patch: "spec: {dnsServiceIP: 10.0.0.1}", field: "spec.dnsServiceIP"},
	{name: "managed outbound IPs", kind: "AzureManagedControlPlane", patch: "spec: {loadBalancerProfile: {managedOutboundIPs: 101}}", field: "spec.loadBalancerProfile.managedOutboundIPs"},
	{name: "two outbound IP sources", kind: "AzureManagedControlPlane", patch: "spec: {loadBalancerProfile: {managedOutboundIPs: 2, outboundIPs: [/subscriptions/s/resourceGroups/g/providers/Microsoft.Network/publicIPAddresses/p]}}", field: "spec.loadBalancerProfile"},
	{name: "authorized IP range", kind: "AzureManagedControlPlane", patch: "spec: {apiServerAccessProfile: {authorizedIPRanges: [10.0.0.0/33]}}", field: "spec.apiServerAccessProfile.authorizedIPRanges[0]"},
	{name: "CAPZ patch does not parse", kind: "AzureManagedControlPlane", patch: "spec: {asoManagedClusterPatches: ['{not json']}", field: "spec.asoManagedClusterPatches[0]"},
	{name: "CAPZ patch sets child-resource-id-override", kind: "AzureManagedControlPlane", patch: "spec: {asoManagedClusterPatches: ['{\"metadata\": {\"annotations\": {\"serviceoperator.azure.com/child-resource-id-override\": \"/subscriptions/s/resourceGroups/rg\"}}}']}", field: "spec.asoManagedClusterPatches[0]"},
	{name: "CAPZ patch renames the cluster", kind: "AzureManagedControlPlane", patch: "spec: {asoManagedClusterPatches: ['{\"metadata\": {\"name\": \"other\"}}']}", field: "spec.asoManagedClusterPatches[0]"},
	{name: "user-assigned identity without ID", kind: "AzureManagedControlPlane", patch: "spec: {identity: {type: UserAssigned}}", field: "spec.identity.userAssignedIdentityResourceID"},
	{name: "missing identityRef", kind: "AzureManagedControlPlane", patch: "spec: {identityRef: null}", field: "spec.identityRef: Required value"},
	{name: "SKU tier", kind: "AzureManagedControlPlane", patch: "spec: {sku: {tier: Gold}}", field: "spec.sku.tier"},
	{name: "resource group name", kind: "AzureManagedControlPlane", patch: "spec: {resourceGroupName: 'bad group!'}", field: "spec.resourceGroupName"},

	// AzureManagedControlPlaneTemplate
	{name: "version", kind: "AzureManagedControlPlaneTemplate", patch: "spec: {template: {spec: {version: latest}}}", field: "spec.template.spec.version"},
	{name: "network plugin mode", kind: "AzureManagedControlPlaneTemplate", patch: "spec: {template: {spec: {networkPluginMode: underlay}}}", field: "spec.template.spec.networkPluginMode"},

	// AzureManagedCluster and its template
	{name: "endpoint port", kind: "AzureManagedCluster", patch: "spec: {controlPlaneEndpoint: {host: api.example.com, port: 70000}}", field: "spec.controlPlaneEndpoint.port"},
	{name: "missing template", kind: "AzureManagedClusterTemplate", patch: "spec: {template: null}", field: "spec.template"},

	// AzureManagedMachinePool
	{name: "mode", kind: "AzureManagedMachinePool", patch: "spec: {mode: Gateway}", field: "spec.mode"},
	{name: "agent pool name", kind: "AzureManagedMachinePool", patch: "spec: {name: Pool-0}", field: "spec.name"},
	{name: "scaling bounds", kind: "AzureManagedMachinePool", patch: "spec: {scaling: {minSize: 5, maxSize: 2}}", field: "spec.scaling"},
	{name: "max pods", kind: "AzureManagedMachinePool", patch: "spec: {maxPods: 300}", field: "spec.maxPods"},
	{name: "reserved node label", kind: "AzureManagedMachinePool", patch: "spec: {nodeLabels: {kubernetes.azure.com/mode: user}}", field: "spec.nodeLabels"},
	{name: "taint effect", kind: "AzureManagedMachinePool", patch: "spec: {taints: [{effect: Evict, key: a, value: b}]}", field: "spec.taints[0].effect"},

	// AzureManagedMachinePoolTemplate
	{name: "mode", kind: "AzureManagedMachinePoolTemplate", patch: "spec: {template: {spec: {mode: Gateway}}}", field: "spec.template.spec.mode"},
	{name: "CPU manager policy", kind: "AzureManagedMachinePoolTemplate", patch: "spec: {template: {spec: {kubeletConfig: {cpuManagerPolicy: dynamic}}}}", field: "spec.template.spec.kubeletConfig.cpuManagerPolicy"},

	// AzureASOManaged*
	{name: "resource without kind", kind: "AzureASOManagedCluster", patch: "spec: {resources: [{apiVersion: resources.azure.com/v1api20200601, metadata: {name: rg}}]}", field: "spec.resources[0]"},
	{name: "resource that is not ASO", kind: "AzureASOManagedCluster", patch: "spec: {resources: [{apiVersion: v1, kind: ConfigMap, metadata: {name: cm}}]}", field: "spec.resources[0]"},
	{name: "resource that is not ASO", kind: "AzureASOManagedClusterTemplate", patch: "spec: {template: {spec: {resources: [{apiVersion: apps/v1, kind: Deployment, metadata: {name: d}}]}}}", field: "spec.template.spec.resources[0]"},
	{name: "no managed cluster", kind: "AzureASOManagedControlPlane", patch: "spec: {resources: [{apiVersion: resources.azure.com/v1api20200601, kind: ResourceGroup, metadata: {name: rg}}]}", field: "spec.resources"},
	{name: "version", kind: "AzureASOManagedControlPlane", patch: "spec: {version: one-dot-thirty}", field: "spec.version"},
	{name: "version", kind: "AzureASOManagedControlPlaneTemplate", patch: "spec: {template: {spec: {version: v1}}}", field: "spec.template.spec.version"},
	{name: "two agent pools", kind: "AzureASOManagedMachinePool", patch: "spec: {resources: [{apiVersion: containerservice.azure.com/v1api20250801, kind: ManagedClustersAgentPool, metadata: {name: a}}, {apiVersion: containerservice.azure.com/v1api20250801, kind: ManagedClustersAgentPool, metadata: {name: b}}]}", field: "spec.resources"},
	{name: "version on a pool template", kind: "AzureASOManagedMachinePoolTemplate", patch: "spec: {template: {spec: {version: v1.33.2}}}", field: "spec.template.spec.version"},

	// AzureMachinePool
	{name: "missing location", kind: "AzureMachinePool", patch: "spec: {location: null}", field: "spec.location"},
	{name: "orchestration mode", kind: "AzureMachinePool", patch: "spec: {orchestrationMode: Mixed}", field: "spec.orchestrationMode"},
	{name: "no surge and no unavailable", kind: "AzureMachinePool", patch: "spec: {strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 0}}}", field: "spec.strategy.rollingUpdate"},
	{name: "missing VM size", kind: "AzureMachinePool", patch: "spec: {template: {vmSize: null}}", field: "spec.template.vmSize"},
	{name: "terminate notification", kind: "AzureMachinePool", patch: "spec: {template: {terminateNotificationTimeout: 30}}", field: "spec.template.terminateNotificationTimeout"},

	// AzureMachinePoolMachine
	{name: "missing provider ID", kind: "AzureMachinePoolMachine", patch: "spec: {providerID: null}", field: "spec.providerID"},
	{name: "instance ID", kind: "AzureMachinePoolMachine", patch: "spec: {instanceID: \"0\"}", field: "spec.instanceID"},
	{name: "provider ID scheme", kind: "AzureMachinePoolMachine", patch: "spec: {providerID: gce://p/z/i}", field: "spec.providerID"},
}
