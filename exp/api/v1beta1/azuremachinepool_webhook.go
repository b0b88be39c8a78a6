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
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// +kubebuilder:webhook:verbs=create;update,path=/mutate-infrastructure-cluster-x-k8s-io-v1beta1-azuremachinepool,mutating=true,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremachinepools,versions=v1beta1,name=default.azuremachinepool.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1
// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azuremachinepool,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremachinepools,versions=v1beta1,name=validation.azuremachinepool.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureMachinePoolWebhookWithManager registers the defaulting and validating webhooks of AzureMachinePool.
func SetupAzureMachinePoolWebhookWithManager(mgr ctrl.Manager) error {
	w := azureMachinePoolWebhook{}
	return ctrl.NewWebhookManagedBy(mgr, &AzureMachinePool{}).WithDefaulter(w).WithValidator(w).Complete()
}

// azureMachinePoolWebhook validates without reading other objects. CAPZ also requires Kubernetes 1.26 or newer
// from the owning MachinePool for a Flexible scale set; that needs a client, and every supported version is newer.
type azureMachinePoolWebhook struct{}

// Default fills in CAPZ's defaults.
func (azureMachinePoolWebhook) Default(_ context.Context, p *AzureMachinePool) error {
	return p.SetDefaults()
}

// ValidateCreate validates a new AzureMachinePool.
func (azureMachinePoolWebhook) ValidateCreate(_ context.Context, p *AzureMachinePool) (admission.Warnings, error) {
	return nil, infrav1.Invalid("AzureMachinePool", p.Name, p.validate())
}

// ValidateUpdate validates a changed AzureMachinePool, including what a scale set cannot change.
func (azureMachinePoolWebhook) ValidateUpdate(_ context.Context, old, p *AzureMachinePool) (admission.Warnings, error) {
	if !p.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	spec := field.NewPath("spec")
	errs := p.validate()
	errs = append(errs, infrav1.ValidateImmutable(spec.Child("location"), old.Spec.Location, p.Spec.Location)...)
	errs = append(errs, infrav1.ValidateImmutable(spec.Child("orchestrationMode"),
		orchestrationMode(old.Spec.OrchestrationMode), orchestrationMode(p.Spec.OrchestrationMode))...)
	if old.Spec.ProviderID != "" {
		errs = append(errs, infrav1.ValidateImmutable(spec.Child("providerID"), old.Spec.ProviderID, p.Spec.ProviderID)...)
	}
	if p.Spec.Identity == infrav1.VMIdentitySystemAssigned {
		if oldName := roleAssignmentName(&old.Spec); oldName != "" {
			errs = append(errs, infrav1.ValidateImmutable(spec.Child("systemAssignedIdentityRole", "name"), oldName, roleAssignmentName(&p.Spec))...)
		}
	}
	return nil, infrav1.Invalid("AzureMachinePool", p.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureMachinePoolWebhook) ValidateDelete(context.Context, *AzureMachinePool) (admission.Warnings, error) {
	return nil, nil
}

func orchestrationMode(mode OrchestrationModeType) OrchestrationModeType {
	if mode == "" {
		return UniformOrchestrationMode
	}
	return mode
}

// roleAssignmentName is the role assignment name of a system-assigned identity, wherever it is set.
func roleAssignmentName(s *AzureMachinePoolSpec) string {
	if s.SystemAssignedIdentityRole != nil && s.SystemAssignedIdentityRole.Name != "" {
		return s.SystemAssignedIdentityRole.Name
	}
	return s.RoleAssignmentName
}

func (p *AzureMachinePool) validate() field.ErrorList {
	spec := field.NewPath("spec")
	s := &p.Spec
	var errs field.ErrorList
	if s.Location == "" {
		errs = append(errs, field.Required(spec.Child("location"), "the Azure region of the scale set, e.g. eastus"))
	}
	errs = append(errs, validateMachinePoolTemplate(spec.Child("template"), &s.Template)...)
	errs = append(errs, infrav1.ValidateTags(spec.Child("additionalTags"), s.AdditionalTags)...)
	errs = append(errs, infrav1.ValidateMachineIdentity(spec, s.Identity, s.UserAssignedIdentities, s.SystemAssignedIdentityRole, s.RoleAssignmentName)...)
	errs = append(errs, infrav1.ValidateASOPatches(spec.Child("asoPatches"), s.ASOPatches)...)
	if s.ProviderID != "" && !strings.HasPrefix(s.ProviderID, "azure://") {
		errs = append(errs, field.Invalid(spec.Child("providerID"), s.ProviderID, "must start with azure://"))
	}
	if n := s.PlatformFaultDomainCount; n != nil && *n < 1 {
		errs = append(errs, field.Invalid(spec.Child("platformFaultDomainCount"), *n, "must be at least 1"))
	}
	errs = append(errs, validateStrategy(spec.Child("strategy"), &s.Strategy)...)
	return append(errs, infrav1.ValidateImplementedFields("AzureMachinePool", &p.Spec)...)
}

// validateMachinePoolTemplate checks the scale set's VMs the way an AzureMachine's VM is checked.
func validateMachinePoolTemplate(path *field.Path, t *AzureMachinePoolMachineTemplate) field.ErrorList {
	var errs field.ErrorList
	if t.VMSize == "" {
		errs = append(errs, field.Required(path.Child("vmSize"), "the size of the VMs, e.g. Standard_D2s_v3"))
	}
	errs = append(errs, infrav1.ValidateImage(path.Child("image"), t.Image)...)
	errs = append(errs, infrav1.ValidateOSDisk(path.Child("osDisk"), &t.OSDisk, path.Child("securityProfile"), t.SecurityProfile)...)
	errs = append(errs, infrav1.ValidateDataDisks(path.Child("dataDisks"), t.DataDisks, t.AdditionalCapabilities)...)
	errs = append(errs, infrav1.ValidateSSHPublicKey(path.Child("sshPublicKey"), t.SSHPublicKey)...)
	errs = append(errs, infrav1.ValidateSecurityProfile(path.Child("securityProfile"), t.SecurityProfile)...)
	errs = append(errs, infrav1.ValidateSpotVMOptions(path.Child("spotVMOptions"), t.SpotVMOptions)...)
	errs = append(errs, infrav1.ValidateDiagnostics(path.Child("diagnostics"), t.Diagnostics)...)
	errs = append(errs, infrav1.ValidateVMExtensions(path.Child("vmExtensions"), t.VMExtensions)...)
	if n := t.TerminateNotificationTimeout; n != nil && (*n < 5 || *n > 15) {
		errs = append(errs, field.Invalid(path.Child("terminateNotificationTimeout"), *n, "must be between 5 and 15 minutes"))
	}
	if len(t.NetworkInterfaces) > 0 {
		if t.SubnetName != "" {
			errs = append(errs, field.Forbidden(path.Child("subnetName"), "set the subnet in networkInterfaces[].subnetName instead"))
		}
		if t.AcceleratedNetworking != nil {
			errs = append(errs, field.Forbidden(path.Child("acceleratedNetworking"), "set networkInterfaces[].acceleratedNetworking instead"))
		}
	}
	for i, nic := range t.NetworkInterfaces {
		p := path.Child("networkInterfaces").Index(i)
		errs = append(errs, infrav1.ValidateNetworkResourceName(p.Child("subnetName"), nic.SubnetName)...)
		if nic.PrivateIPConfigs < 0 || nic.PrivateIPConfigs > 256 {
			errs = append(errs, field.Invalid(p.Child("privateIPConfigs"), nic.PrivateIPConfigs, "must be between 1 and 256"))
		}
	}
	return errs
}

// validateStrategy checks the rolling update: surge and unavailability are counts or percentages, and at least
// one of them lets the update make progress.
func validateStrategy(path *field.Path, st *AzureMachinePoolDeploymentStrategy) field.ErrorList {
	ru := st.RollingUpdate
	if ru == nil {
		return nil
	}
	p := path.Child("rollingUpdate")
	surgeZero, errs := isZeroIntOrPercent(p.Child("maxSurge"), ru.MaxSurge, false)
	unavailableZero, unavailableErrs := isZeroIntOrPercent(p.Child("maxUnavailable"), ru.MaxUnavailable, true)
	errs = append(errs, unavailableErrs...)
	if len(errs) == 0 && surgeZero && unavailableZero {
		errs = append(errs, field.Invalid(p.Child("maxUnavailable"), ru.MaxUnavailable.String(),
			"must not be 0 when maxSurge is 0, or no instance could ever be replaced"))
	}
	return errs
}

// isZeroIntOrPercent checks a count or a percentage (such as 25%) and reports whether it is zero; unset, it has
// its default (maxSurge 1, maxUnavailable 0), given by zeroWhenUnset.
func isZeroIntOrPercent(path *field.Path, v *intstr.IntOrString, zeroWhenUnset bool) (bool, field.ErrorList) {
	if v == nil {
		return zeroWhenUnset, nil
	}
	if v.Type == intstr.Int {
		if v.IntVal < 0 {
			return false, field.ErrorList{field.Invalid(path, v.IntVal, "must not be negative")}
		}
		return v.IntVal == 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	if !strings.HasSuffix(v.StrVal, "%") || err != nil || n < 0 || n > 100 {
		return false, field.ErrorList{field.Invalid(path, v.StrVal, "must be a number of instances or a percentage between 0% and 100%, such as 25%")}
	}
	return n == 0, nil
}
