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
	"net/http"
	"strings"
	"time"

	asoauthorization "github.com/Azure/azure-service-operator/v2/api/authorization/v1api20220401"
	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	asoconfig "github.com/Azure/azure-service-operator/v2/pkg/common/config"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime/conditions"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime/core"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Scenario is one behaviour of ASO.
type Scenario struct {
	Name string
	// Run creates the scenario's objects and states what ASO reports at each step.
	Run func(s *Session)
	// Differences are the backends (by Name) known to differ from ASO here, with why; the scenario does not run on
	// them.
	Differences map[string]string
}

// The severities of ASO's Ready condition: a Warning is retried, an Error is not.
const (
	warning = conditions.ConditionSeverityWarning
	fatal   = conditions.ConditionSeverityError
)

// inGroup makes a resource a child of the scenario's resource group; a new reference each time, as the client
// decodes the API server's answer into the object it sends.
func inGroup() *genruntime.KnownResourceReference {
	return &genruntime.KnownResourceReference{Name: groupObject}
}

// The outcomes the scenarios expect.
var (
	// ready: created or updated in Azure.
	ready = func(id string) Outcome {
		return Outcome{Ready: metav1.ConditionTrue, Reason: conditions.ReasonSucceeded, Finalizer: true, ResourceID: id}
	}
	// failing: claimed, and held back by a Warning or an Error.
	failing = func(id string, severity conditions.ConditionSeverity, reason string) Outcome {
		return Outcome{Ready: metav1.ConditionFalse, Severity: severity, Reason: reason, Finalizer: true, ResourceID: id}
	}
	// unclaimed: held back before ASO claims the object (its owner is Ready, its credential complete and every
	// reference of its spec resolves): neither finalizer nor resource ID.
	unclaimed = func(severity conditions.ConditionSeverity, reason string) Outcome {
		return Outcome{Ready: metav1.ConditionFalse, Severity: severity, Reason: reason}
	}
)

// Scenarios is the contract.
var Scenarios = []Scenario{
	{Name: "ready", Run: func(s *Session) {
		rg := s.resourceGroup()
		s.Create(rg)
		s.Expect(rg, ready(s.GroupID()))
	}},
	{Name: "owner not ready", Run: func(s *Session) {
		rg := s.resourceGroup()
		s.FailPuts(rg, "ResourceGroup", s.GroupID(), http.StatusConflict, "Conflict")
		s.Create(rg)
		s.Expect(rg, failing(s.GroupID(), warning, "Conflict"))
		vnet := virtualNetwork("vnet")
		s.Create(vnet)
		s.Expect(vnet, unclaimed(warning, conditions.ReasonWaitingForOwner.Name))
	}},
	{Name: "Azure error fatal", Run: func(s *Session) {
		s.azureError(http.StatusBadRequest, "InvalidRequestContent", fatal)
	}},
	{Name: "Azure error retryable", Run: func(s *Session) {
		s.azureError(http.StatusConflict, "AnotherOperationInProgress", warning)
	}},
	{Name: "Azure error retried slowly", Run: func(s *Session) {
		s.azureError(http.StatusBadRequest, "InvalidParameter", warning)
	}},
	{Name: "Azure error unknown code", Run: func(s *Session) {
		s.azureError(http.StatusBadRequest, "SomethingNobodyClassified", warning)
	}},
	{Name: "missing reference", Run: func(s *Session) {
		s.readyResourceGroup()
		nic := &asonetwork.NetworkInterface{
			ObjectMeta: metav1.ObjectMeta{Name: "nic"},
			Spec: asonetwork.NetworkInterface_Spec{
				Owner: inGroup(), Location: ptr.To(location),
				IpConfigurations: []asonetwork.NetworkInterfaceIPConfiguration_NetworkInterface_SubResourceEmbedded{{
					Name: ptr.To("ipconfig"),
					Subnet: &asonetwork.Subnet_NetworkInterface_SubResourceEmbedded{Reference: &genruntime.ResourceReference{
						Group: "network.azure.com", Kind: "VirtualNetworksSubnet", Name: "missing",
					}},
				}},
			},
		}
		s.Create(nic)
		s.Expect(nic, unclaimed(warning, conditions.ReasonReferenceNotFound.Name))
	}},
	{Name: "missing secret", Run: func(s *Session) {
		s.readyResourceGroup()
		vm := &asocompute.VirtualMachine{
			ObjectMeta: metav1.ObjectMeta{Name: "vm"},
			Spec: asocompute.VirtualMachine_Spec{
				Owner: inGroup(), Location: ptr.To(location),
				OsProfile: &asocompute.OSProfile{
					ComputerName: ptr.To("vm"), AdminUsername: ptr.To("capi"),
					AdminPassword: &genruntime.SecretReference{Name: "missing", Key: "password"},
				},
			},
		}
		s.Create(vm)
		s.Expect(vm, unclaimed(warning, conditions.ReasonSecretNotFound.Name))
	}},
	{Name: "missing configmap", Run: func(s *Session) {
		s.readyResourceGroup()
		assignment := &asoauthorization.RoleAssignment{
			ObjectMeta: metav1.ObjectMeta{Name: "assignment"},
			Spec: asoauthorization.RoleAssignment_Spec{
				AzureName:             "3b2f7a6e-5a0c-4f56-9f43-2b1d0c9e7a11",
				Owner:                 &genruntime.ArbitraryOwnerReference{Group: "resources.azure.com", Kind: "ResourceGroup", Name: groupObject},
				PrincipalIdFromConfig: &genruntime.ConfigMapReference{Name: "identity", Key: "principalId"},
				RoleDefinitionReference: ptr.To(genruntime.CreateWellKnownResourceReferenceFromARMID(
					"/subscriptions/" + s.SubscriptionID() + "/providers/Microsoft.Authorization/roleDefinitions/" + contributorRole)),
			},
		}
		s.Create(assignment)
		s.Expect(assignment, unclaimed(warning, conditions.ReasonConfigMapNotFound.Name))
	}},
	{Name: "credential missing", Run: func(s *Session) {
		rg := s.resourceGroup()
		rg.Annotations = map[string]string{asoannotations.PerResourceSecret: "missing"}
		s.Create(rg)
		s.Expect(rg, unclaimed(warning, conditions.ReasonFailed.Name))
		if s.Azure().Exists(s.GroupID()) {
			s.t.Errorf("%s was created in Azure without a credential", s.GroupID())
		}
	}},
	{Name: "credential-from with a slash does not fall back", Run: func(s *Session) {
		// ASO refuses a credential-from naming a Secret with '/', and looks no further: not at the namespace's
		// aso-credential Secret, not at its global credential.
		s.createNamespaceCredential()
		rg := s.resourceGroup()
		rg.Annotations = map[string]string{asoannotations.PerResourceSecret: "other/" + namespaceCredential}
		s.Create(rg)
		s.Expect(rg, unclaimed(warning, conditions.ReasonFailed.Name))
		s.g.Consistently(func() []string { return s.Azure().ClientIDs(s.GroupID()) }, 3*time.Second, 250*time.Millisecond).
			Should(BeEmpty(), "nothing reaches Azure for %s", s.GroupID())
		if s.Azure().Exists(s.GroupID()) {
			s.t.Errorf("%s was created in Azure with a refused credential", s.GroupID())
		}
	}},
	{Name: "credential from the namespace", Run: func(s *Session) {
		// Without credential-from, ASO takes the namespace's aso-credential Secret, not its global credential,
		// to create and to delete.
		s.createNamespaceCredential()
		rg := s.readyResourceGroup()
		s.g.Expect(s.Azure().ClientIDs(s.GroupID())).To(Equal([]string{namespaceClientID}), "who reached Azure for %s", s.GroupID())
		s.Delete(rg)
		s.g.Expect(s.Azure().Exists(s.GroupID())).To(BeFalse(), "%s is deleted in Azure", s.GroupID())
		s.g.Expect(s.Azure().ClientIDs(s.GroupID())).To(Equal([]string{namespaceClientID}), "who reached Azure for %s", s.GroupID())
	}},
	{Name: "global credential", Run: func(s *Session) {
		s.readyResourceGroup()
		s.g.Expect(s.Azure().ClientIDs(s.GroupID())).To(Equal([]string{s.ClientID()}), "who reached Azure for %s", s.GroupID())
	}},
	{Name: "credential of another subscription", Run: func(s *Session) {
		s.readyResourceGroup()
		s.Create(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "other-subscription"}, StringData: map[string]string{
			asoconfig.AzureSubscriptionID: "11111111-1111-1111-1111-111111111111",
			asoconfig.AzureTenantID:       "22222222-2222-2222-2222-222222222222",
			asoconfig.AzureClientID:       "33333333-3333-3333-3333-333333333333",
			asoconfig.AzureClientSecret:   "not-a-secret",
		}})
		vnet := virtualNetwork("vnet")
		vnet.Annotations = map[string]string{asoannotations.PerResourceSecret: "other-subscription"}
		s.Create(vnet)
		s.Expect(vnet, unclaimed(fatal, conditions.ReasonFailed.Name))
	}},
	{Name: "status kept while a change fails", Run: func(s *Session) {
		rg := s.readyResourceGroup()
		heal := s.FailPuts(rg, "ResourceGroup", s.GroupID(), http.StatusConflict, "Conflict")
		s.Update(rg, func() { rg.Spec.Tags = map[string]string{"changed": "true"} })
		s.Expect(rg, failing(s.GroupID(), warning, "Conflict"))
		s.g.Expect(rg.Status.Id).To(HaveValue(Equal(s.GroupID())), "the status read from Azure is kept")
		s.g.Expect(rg.Status.Location).To(HaveValue(Equal(location)), "the status read from Azure is kept")
		heal()
		s.Expect(rg, ready(s.GroupID()))
		s.g.Expect(rg.Status.Tags).To(HaveKeyWithValue("changed", "true"))
	}},
	{Name: "a spec change reaches Azure", Run: func(s *Session) {
		rg := s.readyResourceGroup()
		before := s.Azure().Writes(s.GroupID())
		s.Update(rg, func() { rg.Spec.Tags = map[string]string{"changed": "true"} })
		s.Expect(rg, ready(s.GroupID()))
		s.g.Expect(s.Azure().Writes(s.GroupID())).To(BeNumerically(">", before), "the change was PUT")
	}},
	{Name: "another annotation's change does not reach Azure", Run: func(s *Session) {
		// ASO reconciles on a new generation, or a change of the reconcile-policy or credential-from annotation.
		rg := s.readyResourceGroup()
		before := s.Azure().Writes(s.GroupID())
		s.Update(rg, func() { rg.Annotations = map[string]string{"example.com/touched": "true"} })
		s.g.Consistently(func() int { return s.Azure().Writes(s.GroupID()) }, 5*time.Second, 250*time.Millisecond).
			Should(Equal(before), "nothing was PUT")
	}},
	{Name: "reconcile-policy skip, then manage", Run: func(s *Session) {
		// A resource group created outside, adopted: read only under skip, PUT once managed.
		s.g.Expect(s.Azure().Seed("ResourceGroup", s.GroupID(), map[string]any{"location": location})).To(Succeed())
		rg := s.resourceGroup()
		rg.Annotations = map[string]string{asoannotations.ReconcilePolicy: string(asoannotations.ReconcilePolicySkip)}
		s.Create(rg)
		s.Expect(rg, ready(s.GroupID()))
		s.g.Expect(s.Azure().Writes(s.GroupID())).To(BeZero(), "nothing is PUT under reconcile-policy skip")
		s.Update(rg, func() { rg.Annotations[asoannotations.ReconcilePolicy] = string(asoannotations.ReconcilePolicyManage) })
		s.g.Eventually(func() int { return s.Azure().Writes(s.GroupID()) }, timeout).Should(BeNumerically(">", 0),
			"the resource group is PUT once managed")
		s.Expect(rg, ready(s.GroupID()))
	}},
	{
		Name: "an object created again for its resource is PUT again",
		Run: func(s *Session) {
			// As after clusterctl move: the object is deleted without its resource, and created again.
			rg := s.resourceGroup()
			rg.Annotations = map[string]string{asoannotations.ReconcilePolicy: string(asoannotations.ReconcilePolicyDetachOnDelete)}
			s.Create(rg)
			s.Expect(rg, ready(s.GroupID()))
			s.Delete(rg)
			before := s.Azure().Writes(s.GroupID())
			again := s.resourceGroup()
			again.Annotations = rg.Annotations
			s.Create(again)
			s.Expect(again, ready(s.GroupID()))
			s.g.Expect(s.Azure().Writes(s.GroupID())).To(BeNumerically(">", before), "ASO PUTs what it has not reconciled")
		},
		Differences: map[string]string{
			"asosim": "the simulator counts a write only when a resource's spec differs from the one last written, " +
				"whichever simulator wrote it, so that test/move can check that a move changes nothing in Azure; ASO " +
				"PUTs every object it has not reconciled yet (and every object on its periodic resync), and Azure " +
				"takes a PUT of an unchanged resource as a no-op",
		},
	},
	{Name: "post-reconciliation check", Run: func(s *Session) {
		s.readyResourceGroup()
		pe := &asonetwork.PrivateEndpoint{
			ObjectMeta: metav1.ObjectMeta{Name: "pe"},
			Spec: asonetwork.PrivateEndpoint_Spec{
				Owner: inGroup(), Location: ptr.To(location),
				ManualPrivateLinkServiceConnections: []asonetwork.PrivateLinkServiceConnection{{
					Name: ptr.To("to-storage"), GroupIds: []string{"blob"},
					PrivateLinkServiceReference: &genruntime.ResourceReference{
						ARMID: s.GroupID() + "/providers/Microsoft.Storage/storageAccounts/elsewhere",
					},
				}},
			},
		}
		s.Create(pe)
		s.Expect(pe, failing(s.GroupID()+"/providers/Microsoft.Network/privateEndpoints/pe",
			warning, conditions.ReasonPostReconcileFailure.Name))
	}},
	{Name: "exported configmap not owned", Run: func(s *Session) {
		s.ConfigMap("taken", map[string]string{"other": "data"})
		rg := s.resourceGroup()
		rg.Spec.OperatorSpec = &asoresources.ResourceGroupOperatorSpec{ConfigMapExpressions: []*core.DestinationExpression{
			{Name: "taken", Key: "location", Value: "self.status.location"},
		}}
		s.Create(rg)
		s.Expect(rg, failing(s.GroupID(), fatal, conditions.ReasonAdditionalKubernetesObjWriteFailure.Name))
	}},
	{Name: "a claimed object refers to its owner's object", Run: func(s *Session) {
		// Not as its controller: Kubernetes' garbage collector deletes the object once its owner's is gone.
		rg := s.readyResourceGroup()
		vnet := virtualNetwork("vnet")
		s.Create(vnet)
		s.Expect(vnet, ready(s.GroupID()+"/providers/Microsoft.Network/virtualNetworks/vnet"))
		// The version is the one ASO read the owner at: not part of the contract.
		refs := vnet.GetOwnerReferences()
		if len(refs) != 1 || !strings.HasPrefix(refs[0].APIVersion, "resources.azure.com/") || refs[0].Kind != "ResourceGroup" ||
			refs[0].Name != rg.Name || refs[0].UID != rg.UID || refs[0].Controller != nil {
			s.t.Errorf("VirtualNetwork vnet has owner references %+v, want only one to ResourceGroup %s (UID %s), not as controller", refs, rg.Name, rg.UID)
		}
	}},
	{Name: "delete", Run: func(s *Session) {
		rg := s.readyResourceGroup()
		s.Delete(rg)
		if s.Azure().Exists(s.GroupID()) {
			s.t.Errorf("%s is still in Azure after its ResourceGroup was deleted", s.GroupID())
		}
	}},
	{Name: "reconcile-policy skip of the namespace", Run: func(s *Session) {
		// An object without a reconcile-policy of its own takes its namespace's: read only, and not deleted in Azure.
		s.setNamespacePolicy(asoannotations.ReconcilePolicySkip)
		s.g.Expect(s.Azure().Seed("ResourceGroup", s.GroupID(), map[string]any{"location": location})).To(Succeed())
		rg := s.resourceGroup()
		s.Create(rg)
		s.Expect(rg, ready(s.GroupID()))
		s.g.Expect(s.Azure().Writes(s.GroupID())).To(BeZero(), "nothing is PUT under the namespace's reconcile-policy skip")
		s.Delete(rg)
		if !s.Azure().Exists(s.GroupID()) {
			s.t.Errorf("%s was deleted in Azure though its namespace has reconcile-policy skip", s.GroupID())
		}
	}},
	{Name: "the object's reconcile-policy over the namespace's", Run: func(s *Session) {
		s.setNamespacePolicy(asoannotations.ReconcilePolicySkip)
		rg := s.resourceGroup()
		rg.Annotations = map[string]string{asoannotations.ReconcilePolicy: string(asoannotations.ReconcilePolicyManage)}
		s.Create(rg)
		s.Expect(rg, ready(s.GroupID()))
		s.g.Expect(s.Azure().Writes(s.GroupID())).To(BeNumerically(">", 0), "the object's manage creates the resource group")
		s.Delete(rg)
		if s.Azure().Exists(s.GroupID()) {
			s.t.Errorf("%s is still in Azure after its ResourceGroup (reconcile-policy manage) was deleted", s.GroupID())
		}
	}},
	{Name: "delete with reconcile-policy skip", Run: func(s *Session) {
		s.g.Expect(s.Azure().Seed("ResourceGroup", s.GroupID(), map[string]any{"location": location})).To(Succeed())
		rg := s.resourceGroup()
		rg.Annotations = map[string]string{asoannotations.ReconcilePolicy: string(asoannotations.ReconcilePolicySkip)}
		s.Create(rg)
		s.Expect(rg, ready(s.GroupID()))
		s.Delete(rg)
		if !s.Azure().Exists(s.GroupID()) {
			s.t.Errorf("%s was deleted in Azure though its ResourceGroup has reconcile-policy skip", s.GroupID())
		}
	}},
}

const (
	// groupObject is the name of each scenario's ResourceGroup object.
	groupObject = "rg"
	// location is the Azure region of the scenarios' resources.
	location = "eastus"
	// contributorRole is the built-in Contributor role's definition.
	contributorRole = "b24988ac-6180-42a0-ab88-20f7382dd24c"
)

// resourceGroup is the scenario's ResourceGroup object, for the Azure resource group GroupName().
func (s *Session) resourceGroup() *asoresources.ResourceGroup {
	return &asoresources.ResourceGroup{
		ObjectMeta: metav1.ObjectMeta{Name: groupObject},
		Spec:       asoresources.ResourceGroup_Spec{AzureName: s.GroupName(), Location: ptr.To(location)},
	}
}

// readyResourceGroup creates the scenario's ResourceGroup and waits until it is Ready.
func (s *Session) readyResourceGroup() *asoresources.ResourceGroup {
	s.t.Helper()
	rg := s.resourceGroup()
	s.Create(rg)
	s.Expect(rg, ready(s.GroupID()))
	return rg
}

// azureError creates a resource group whose PUTs Azure refuses with code, and expects ASO's classification of it.
func (s *Session) azureError(status int, code string, severity conditions.ConditionSeverity) {
	s.t.Helper()
	rg := s.resourceGroup()
	s.FailPuts(rg, "ResourceGroup", s.GroupID(), status, code)
	s.Create(rg)
	s.Expect(rg, failing(s.GroupID(), severity, code))
}

// The namespace credential of the scenarios: ASO's aso-credential Secret, a service principal of the global
// credential's subscription (the fake Azure Resource Manager takes any client and secret).
const (
	namespaceCredential = "aso-credential"
	namespaceClientID   = "00000000-0000-0000-0000-0000000000c2"
	namespaceTenantID   = "00000000-0000-0000-0000-0000000000a2"
)

// createNamespaceCredential creates the namespace's aso-credential Secret, and gives ASO time to see it: ASO reads
// Secrets from its informer's cache.
func (s *Session) createNamespaceCredential() {
	s.t.Helper()
	s.Create(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: namespaceCredential}, StringData: map[string]string{
		asoconfig.AzureSubscriptionID: s.SubscriptionID(),
		asoconfig.AzureTenantID:       namespaceTenantID,
		asoconfig.AzureClientID:       namespaceClientID,
		asoconfig.AzureClientSecret:   "not-a-secret",
	}})
	time.Sleep(time.Second)
}

// setNamespacePolicy annotates the scenario's namespace with a reconcile-policy, which ASO applies to the objects
// in it that have none of their own.
func (s *Session) setNamespacePolicy(policy asoannotations.ReconcilePolicyValue) {
	s.t.Helper()
	s.Update(s.namespace, func() {
		annotations := s.namespace.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[asoannotations.ReconcilePolicy] = string(policy)
		s.namespace.SetAnnotations(annotations)
	})
	// ASO reads the namespace through its cache.
	time.Sleep(time.Second)
}

// virtualNetwork is a VirtualNetwork in the scenario's resource group.
func virtualNetwork(name string) *asonetwork.VirtualNetwork {
	return &asonetwork.VirtualNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: asonetwork.VirtualNetwork_Spec{
			Owner: inGroup(), Location: ptr.To(location),
			AddressSpace: &asonetwork.AddressSpace{AddressPrefixes: []string{"10.0.0.0/16"}},
		},
	}
}
