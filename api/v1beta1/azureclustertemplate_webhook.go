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

package v1beta1

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// +kubebuilder:webhook:verbs=create;update,path=/mutate-infrastructure-cluster-x-k8s-io-v1beta1-azureclustertemplate,mutating=true,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azureclustertemplates,versions=v1beta1,name=default.azureclustertemplate.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1
// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azureclustertemplate,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azureclustertemplates,versions=v1beta1,name=validation.azureclustertemplate.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureClusterTemplateWebhookWithManager registers the defaulting and validating webhooks of AzureClusterTemplate.
func SetupAzureClusterTemplateWebhookWithManager(mgr ctrl.Manager) error {
	w := azureClusterTemplateWebhook{}
	return ctrl.NewWebhookManagedBy(mgr, &AzureClusterTemplate{}).WithDefaulter(w).WithValidator(w).Complete()
}

type azureClusterTemplateWebhook struct{}

// Default fills in the defaults that do not depend on a cluster's name; names are defaulted on each AzureCluster.
func (azureClusterTemplateWebhook) Default(_ context.Context, t *AzureClusterTemplate) error {
	s := &t.Spec.Template.Spec
	if s.AzureEnvironment == "" {
		s.AzureEnvironment = DefaultAzureCloud
	}
	n := &s.NetworkSpec
	if len(n.Vnet.CIDRBlocks) == 0 {
		n.Vnet.CIDRBlocks = []string{DefaultVnetCIDR}
	}
	nodes := 0
	for i := range n.Subnets {
		subnet := &n.Subnets[i]
		if len(subnet.CIDRBlocks) == 0 {
			switch subnet.Role {
			case SubnetControlPlane:
				subnet.CIDRBlocks = []string{DefaultControlPlaneSubnetCIDR}
			case SubnetCluster:
				subnet.CIDRBlocks = []string{DefaultClusterSubnetCIDR}
			case SubnetNode:
				nodes++
				subnet.CIDRBlocks = []string{fmt.Sprintf(DefaultNodeSubnetCIDRPattern, nodes)}
			}
		}
		setSecurityRuleDefaults(subnet.SecurityGroup.SecurityRules)
	}
	if n.APIServerLB == nil {
		n.APIServerLB = &LoadBalancerClassSpec{}
	}
	if n.APIServerLB.Type == "" {
		n.APIServerLB.Type = Public
	}
	for _, lb := range []*LoadBalancerClassSpec{n.APIServerLB, n.NodeOutboundLB, n.ControlPlaneOutboundLB} {
		if lb == nil {
			continue
		}
		if lb.SKU == "" {
			lb.SKU = SKUStandard
		}
		if lb.IdleTimeoutInMinutes == nil {
			lb.IdleTimeoutInMinutes = ptr.To[int32](DefaultLBIdleTimeoutInMinutes)
		}
	}
	if b := s.BastionSpec.AzureBastion; b != nil {
		if b.Subnet.Name == "" {
			b.Subnet.Name = DefaultAzureBastionSubnetName
		}
		if b.Subnet.Role == "" {
			b.Subnet.Role = SubnetBastion
		}
		if len(b.Subnet.CIDRBlocks) == 0 {
			b.Subnet.CIDRBlocks = []string{DefaultAzureBastionSubnetCIDR}
		}
	}
	for i := range s.ASOPatches {
		if s.ASOPatches[i].Type == "" {
			s.ASOPatches[i].Type = MergePatchType
		}
	}
	return nil
}

// ValidateCreate validates a new AzureClusterTemplate.
func (azureClusterTemplateWebhook) ValidateCreate(_ context.Context, t *AzureClusterTemplate) (admission.Warnings, error) {
	return t.warnings(), Invalid("AzureClusterTemplate", t.Name, t.validate())
}

// ValidateUpdate rejects changes to the template spec, except Cluster API topology dry-runs.
func (w azureClusterTemplateWebhook) ValidateUpdate(ctx context.Context, old, t *AzureClusterTemplate) (admission.Warnings, error) {
	errs := t.validate()
	errs = append(errs, validateTemplateUpdate(ctx, t, defaultedOld(ctx, w, old).Spec.Template.Spec, t.Spec.Template.Spec)...)
	errs = ValidateImplementedFieldsUpdate("AzureClusterTemplate", old.Spec, t.Spec, errs)
	return t.warnings(), Invalid("AzureClusterTemplate", t.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureClusterTemplateWebhook) ValidateDelete(context.Context, *AzureClusterTemplate) (admission.Warnings, error) {
	return nil, nil
}

func (t *AzureClusterTemplate) validate() field.ErrorList {
	path := field.NewPath("spec", "template", "spec")
	s := &t.Spec.Template.Spec
	errs := validateAzureClusterClassSpec(path, &s.AzureClusterClassSpec)
	network := path.Child("networkSpec")
	vnetPrefixes, cidrErrs := parseCIDRs(network.Child("vnet", "cidrBlocks"), s.NetworkSpec.Vnet.CIDRBlocks)
	errs = append(errs, cidrErrs...)
	var prefixes []labelledPrefix
	names := make([]string, len(s.NetworkSpec.Subnets))
	for i, subnet := range s.NetworkSpec.Subnets {
		names[i] = subnet.Name
		p := network.Child("subnets").Index(i)
		errs = append(errs, validateName(p.Child("name"), subnet.Name, networkResourceNameRule)...)
		subnetPrefixes, cidrErrs := parseCIDRs(p.Child("cidrBlocks"), subnet.CIDRBlocks)
		errs = append(errs, cidrErrs...)
		for j, prefix := range subnetPrefixes {
			prefixes = append(prefixes, labelledPrefix{p.Child("cidrBlocks").Index(j), prefix})
		}
		errs = append(errs, validateSecurityRules(p.Child("securityGroup", "securityRules"), subnet.SecurityGroup.SecurityRules)...)
		errs = append(errs, validatePrivateEndpoints(p.Child("privateEndpoints"), subnet.PrivateEndpoints)...)
	}
	errs = append(errs, validateUniqueNames(network.Child("subnets"), names)...)
	if b := s.BastionSpec.AzureBastion; b != nil {
		errs = append(errs, validateSecurityRules(path.Child("bastionSpec", "azureBastion", "subnet", "securityGroup", "securityRules"),
			b.Subnet.SecurityGroup.SecurityRules)...)
	}
	errs = append(errs, validateNoOverlap(prefixes)...)
	errs = append(errs, validateWithin(vnetPrefixes, prefixes, network.Child("vnet", "cidrBlocks"))...)
	errs = append(errs, validateLBPorts(network.Child("additionalAPIServerLBPorts"), s.NetworkSpec.AdditionalAPIServerLBPorts)...)
	errs = append(errs, validateDNSName(network.Child("privateDNSZoneName"), s.NetworkSpec.PrivateDNSZoneName)...)
	errs = append(errs, ValidateImplementedFields("AzureClusterTemplate", t.Spec)...)
	return errs
}

// warnings names the security rules that lack what Azure requires (see incompleteSecurityRules). A template may
// leave them to ClusterClass patches, as it may leave any field, so they are not refused here; the AzureCluster
// made from it is.
func (t *AzureClusterTemplate) warnings() admission.Warnings {
	s := &t.Spec.Template.Spec
	subnets := field.NewPath("spec", "template", "spec", "networkSpec", "subnets")
	var lists []securityRuleList
	for i, subnet := range s.NetworkSpec.Subnets {
		lists = append(lists, securityRuleList{subnets.Index(i).Child("securityGroup", "securityRules"), subnet.SecurityGroup.SecurityRules})
	}
	if b := s.BastionSpec.AzureBastion; b != nil {
		path := field.NewPath("spec", "template", "spec", "bastionSpec", "azureBastion", "subnet", "securityGroup", "securityRules")
		lists = append(lists, securityRuleList{path, b.Subnet.SecurityGroup.SecurityRules})
	}
	var out admission.Warnings
	for _, e := range incompleteSecurityRules(lists, nil) {
		out = append(out, e.Error()+"; an AzureCluster made from this template is refused unless a ClusterClass patch sets it")
	}
	return out
}
