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
	"regexp"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capzaso/cluster-api-provider-azure/feature"
)

// +kubebuilder:webhook:verbs=create;update,path=/mutate-infrastructure-cluster-x-k8s-io-v1beta1-azuremanagedmachinepool,mutating=true,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedmachinepools,versions=v1beta1,name=default.azuremanagedmachinepool.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1
// +kubebuilder:webhook:verbs=create;update;delete,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azuremanagedmachinepool,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedmachinepools,versions=v1beta1,name=validation.azuremanagedmachinepool.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureManagedMachinePoolWebhookWithManager registers the defaulting and validating webhooks of
// AzureManagedMachinePool.
func SetupAzureManagedMachinePoolWebhookWithManager(mgr ctrl.Manager) error {
	w := azureManagedMachinePoolWebhook{reader: mgr.GetAPIReader()}
	return ctrl.NewWebhookManagedBy(mgr, &AzureManagedMachinePool{}).WithDefaulter(w).WithValidator(w).Complete()
}

// azureManagedMachinePoolWebhook validates a pool, and, as CAPZ's, refuses to delete the last System pool of a
// live cluster or to turn it into a User pool, reading the cluster's pools from the API server (reader): AKS
// needs a System pool, and would refuse the agent pool's DELETE, leaving the pool deleting for ever.
type azureManagedMachinePoolWebhook struct {
	reader client.Reader
}

// Default fills in CAPZ's defaults.
func (azureManagedMachinePoolWebhook) Default(_ context.Context, p *AzureManagedMachinePool) error {
	p.SetDefaults()
	return nil
}

// ValidateCreate validates a new AzureManagedMachinePool.
func (azureManagedMachinePoolWebhook) ValidateCreate(_ context.Context, p *AzureManagedMachinePool) (admission.Warnings, error) {
	if !feature.Gates.Enabled(feature.MachinePool) {
		return nil, Invalid("AzureManagedMachinePool", p.Name, field.ErrorList{field.Forbidden(field.NewPath("spec"),
			"AzureManagedMachinePools are infrastructure of MachinePools: turn on the MachinePool feature gate (--feature-gates=MachinePool=true)")})
	}
	return nil, Invalid("AzureManagedMachinePool", p.Name, p.validate())
}

// ValidateUpdate validates a changed AzureManagedMachinePool, including what AKS cannot change on an agent pool.
func (w azureManagedMachinePoolWebhook) ValidateUpdate(ctx context.Context, old, p *AzureManagedMachinePool) (admission.Warnings, error) {
	if !p.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	errs := p.validate()
	errs = append(errs, validateAzureManagedMachinePoolUpdate(old, p)...)
	if old.Spec.Mode == NodePoolModeSystem && p.Spec.Mode != NodePoolModeSystem {
		last, err := w.lastSystemPool(ctx, old)
		if err != nil {
			return nil, err
		}
		if last != "" {
			errs = append(errs, field.Forbidden(field.NewPath("spec", "mode"), last+": add another System pool first"))
		}
	}
	return nil, Invalid("AzureManagedMachinePool", p.Name, errs)
}

// ValidateDelete refuses to delete the last System pool of a cluster that is not being deleted.
func (w azureManagedMachinePoolWebhook) ValidateDelete(ctx context.Context, p *AzureManagedMachinePool) (admission.Warnings, error) {
	if p.Spec.Mode != NodePoolModeSystem {
		return nil, nil
	}
	last, err := w.lastSystemPool(ctx, p)
	if err != nil || last == "" {
		return nil, err
	}
	return nil, Invalid("AzureManagedMachinePool", p.Name, field.ErrorList{field.Forbidden(field.NewPath("spec", "mode"),
		last+": add another System pool before deleting this one (deleting its MachinePool deletes it too), or delete the Cluster")})
}

// lastSystemPool says why a System pool is the one its cluster cannot lose, "" when it may go: it has no cluster
// label, its Cluster is gone or being deleted (AKS deletes the pools with the managed cluster), clusterctl move
// deletes it (DeleteForMoveAnnotation), or another System pool of the cluster stays. An error reading them refuses
// the change, as CAPZ's does.
func (w azureManagedMachinePoolWebhook) lastSystemPool(ctx context.Context, p *AzureManagedMachinePool) (string, error) {
	clusterName := p.Labels[clusterv1.ClusterNameLabel]
	if clusterName == "" {
		return "", nil
	}
	if _, moved := p.Annotations[clusterctlv1.DeleteForMoveAnnotation]; moved {
		return "", nil
	}
	cluster := &clusterv1.Cluster{}
	if err := w.reader.Get(ctx, client.ObjectKey{Namespace: p.Namespace, Name: clusterName}, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			return "", nil
		}
		return "", fmt.Errorf("failed to read Cluster %s to check that it keeps a System pool: %w", clusterName, err)
	}
	if !cluster.DeletionTimestamp.IsZero() {
		return "", nil
	}
	pools := &AzureManagedMachinePoolList{}
	if err := w.reader.List(ctx, pools, client.InNamespace(p.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: clusterName}); err != nil {
		return "", fmt.Errorf("failed to list the AzureManagedMachinePools of Cluster %s to check that it keeps a System pool: %w", clusterName, err)
	}
	for _, other := range pools.Items {
		if other.Name != p.Name && other.Spec.Mode == NodePoolModeSystem && other.DeletionTimestamp.IsZero() {
			return "", nil
		}
	}
	return fmt.Sprintf("the last System pool of Cluster %s, which AKS needs", clusterName), nil
}

var (
	// publicIPPrefixIDPattern matches the resource ID of a public IP prefix.
	publicIPPrefixIDPattern = regexp.MustCompile(`(?i)^/subscriptions/[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}/resourceGroups/[^/]+/providers/Microsoft\.Network/publicIPPrefixes/[^/]+$`)
	// cpuCfsQuotaPeriodPattern is a whole number of milliseconds, as AKS takes the CFS quota period.
	cpuCfsQuotaPeriodPattern = regexp.MustCompile(`^[0-9]+ms$`)
	// allowedUnsafeSysctlPatterns are the unsafe sysctls AKS lets pods use.
	allowedUnsafeSysctlPatterns = []*regexp.Regexp{
		regexp.MustCompile(`^kernel\.shm.+$`),
		regexp.MustCompile(`^kernel\.msg.+$`),
		regexp.MustCompile(`^kernel\.sem$`),
		regexp.MustCompile(`^fs\.mqueue\..+$`),
		regexp.MustCompile(`^net\..+$`),
	}
)

// reservedNodeLabelPrefix prefixes the node labels AKS sets itself; agent pools may not set them.
const reservedNodeLabelPrefix = "kubernetes.azure.com/"

func (p *AzureManagedMachinePool) validate() field.ErrorList {
	spec := field.NewPath("spec")
	errs := validateManagedMachinePoolClassSpec(spec, &p.Spec.AzureManagedMachinePoolClassSpec)
	if ptr.Deref(p.Spec.Name, "") == "" {
		detail := "the name of the agent pool"
		if problem := agentPoolNameProblem(p.Name, ptr.Deref(p.Spec.OSType, AgentPoolOSTypeLinux)); problem != "" {
			detail = fmt.Sprintf("metadata.name %q cannot name the agent pool (%s): set an agent pool name", p.Name, problem)
		}
		errs = append(errs, field.Required(spec.Child("name"), detail))
	}
	if p.Spec.Mode == "" {
		errs = append(errs, field.Required(spec.Child("mode"), "System or User"))
	}
	if p.Spec.SKU == "" {
		errs = append(errs, field.Required(spec.Child("sku"), "the VM size of the nodes, e.g. Standard_D2s_v3"))
	}
	return append(errs, ValidateImplementedFields("AzureManagedMachinePool", &p.Spec)...)
}

// validateManagedMachinePoolClassSpec checks the settings an AzureManagedMachinePool shares with its template. It
// requires nothing a ClusterClass patch may fill in a template (mode, sku): AzureManagedMachinePool.validate does.
func validateManagedMachinePoolClassSpec(path *field.Path, s *AzureManagedMachinePoolClassSpec) field.ErrorList {
	var errs field.ErrorList
	osType := ptr.Deref(s.OSType, AgentPoolOSTypeLinux)
	if name := ptr.Deref(s.Name, ""); name != "" {
		if problem := agentPoolNameProblem(name, osType); problem != "" {
			errs = append(errs, field.Invalid(path.Child("name"), name, problem))
		}
	}
	switch s.Mode {
	case NodePoolModeSystem:
		if osType != AgentPoolOSTypeLinux {
			errs = append(errs, field.Forbidden(path.Child("osType"), "a System agent pool runs Linux"))
		}
	case NodePoolModeUser, "":
	default:
		errs = append(errs, field.NotSupported(path.Child("mode"), s.Mode, []string{string(NodePoolModeSystem), string(NodePoolModeUser)}))
	}
	errs = append(errs, ValidateTags(path.Child("additionalTags"), s.AdditionalTags)...)
	errs = append(errs, validateTaints(path.Child("taints"), s.Taints)...)
	errs = append(errs, validateNodeLabels(path.Child("nodeLabels"), s.NodeLabels)...)
	errs = append(errs, validateScaling(path.Child("scaling"), s.Scaling, s.Mode)...)
	if n := s.MaxPods; n != nil && (*n < 10 || *n > 250) {
		errs = append(errs, field.Invalid(path.Child("maxPods"), *n, "must be between 10 and 250"))
	}
	if n := s.OSDiskSizeGB; n != nil && (*n < 30 || *n > 2048) {
		errs = append(errs, field.Invalid(path.Child("osDiskSizeGB"), *n, "must be between 30 and 2048"))
	}
	seen := map[string]bool{}
	for i, z := range s.AvailabilityZones {
		if seen[z] {
			errs = append(errs, field.Duplicate(path.Child("availabilityZones").Index(i), z))
		}
		seen[z] = true
	}
	errs = append(errs, validateSpot(path, s)...)
	if s.NodePublicIPPrefixID != nil {
		if !ptr.Deref(s.EnableNodePublicIP, false) {
			errs = append(errs, field.Invalid(path.Child("enableNodePublicIP"), s.EnableNodePublicIP,
				"must be true when nodePublicIPPrefixID is set"))
		}
		if !publicIPPrefixIDPattern.MatchString(*s.NodePublicIPPrefixID) {
			errs = append(errs, field.Invalid(path.Child("nodePublicIPPrefixID"), *s.NodePublicIPPrefixID,
				"must be the resource ID of a public IP prefix: /subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.Network/publicIPPrefixes/<name>"))
		}
	}
	errs = append(errs, validateKubeletConfig(path.Child("kubeletConfig"), s.KubeletConfig)...)
	errs = append(errs, validateLinuxOSConfig(path.Child("linuxOSConfig"), s.LinuxOSConfig, s.KubeletConfig, osType)...)
	if s.SubnetName != nil {
		if *s.SubnetName == "" {
			errs = append(errs, field.Invalid(path.Child("subnetName"), "", "must not be empty; leave it out to use the cluster's subnet"))
		}
		errs = append(errs, validateName(path.Child("subnetName"), *s.SubnetName, networkResourceNameRule)...)
	}
	errs = append(errs, validateMergePatches(path.Child("asoManagedClustersAgentPoolPatches"), s.ASOManagedClustersAgentPoolPatches)...)
	return append(errs, ValidateASOPatches(path.Child("asoPatches"), s.ASOPatches)...)
}

func validateTaints(path *field.Path, taints Taints) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, t := range taints {
		p := path.Index(i)
		for _, msg := range utilvalidation.IsQualifiedName(t.Key) {
			errs = append(errs, field.Invalid(p.Child("key"), t.Key, msg))
		}
		for _, msg := range utilvalidation.IsValidLabelValue(t.Value) {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, msg))
		}
		if t.Effect == "" {
			errs = append(errs, field.Required(p.Child("effect"), "NoSchedule, PreferNoSchedule or NoExecute"))
		}
		key := t.Key + ":" + string(t.Effect)
		if seen[key] {
			errs = append(errs, field.Duplicate(p, key))
		}
		seen[key] = true
	}
	return errs
}

func validateNodeLabels(path *field.Path, labels map[string]string) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sets.List(sets.KeySet(labels)) {
		p := path.Key(k)
		if strings.HasPrefix(k, reservedNodeLabelPrefix) {
			errs = append(errs, field.Invalid(p, k, "the "+reservedNodeLabelPrefix+" prefix is reserved for labels AKS sets"))
			continue
		}
		for _, msg := range utilvalidation.IsQualifiedName(k) {
			errs = append(errs, field.Invalid(p, k, msg))
		}
		for _, msg := range utilvalidation.IsValidLabelValue(labels[k]) {
			errs = append(errs, field.Invalid(p, labels[k], msg))
		}
	}
	return errs
}

func validateScaling(path *field.Path, sc *ManagedMachinePoolScaling, mode NodePoolMode) field.ErrorList {
	if sc == nil {
		return nil
	}
	var errs field.ErrorList
	if sc.MinSize == nil {
		errs = append(errs, field.Required(path.Child("minSize"), "the cluster autoscaler needs both minSize and maxSize"))
	}
	if sc.MaxSize == nil {
		errs = append(errs, field.Required(path.Child("maxSize"), "the cluster autoscaler needs both minSize and maxSize"))
	}
	if len(errs) > 0 {
		return errs
	}
	minSize, maxSize := *sc.MinSize, *sc.MaxSize
	switch {
	case minSize < 0:
		errs = append(errs, field.Invalid(path.Child("minSize"), minSize, "must not be negative"))
	case mode == NodePoolModeSystem && minSize < 1:
		errs = append(errs, field.Invalid(path.Child("minSize"), minSize, "a System agent pool keeps at least one node"))
	}
	if maxSize < 1 || maxSize > 1000 {
		errs = append(errs, field.Invalid(path.Child("maxSize"), maxSize, "must be between 1 and 1000"))
	}
	if minSize > maxSize {
		errs = append(errs, field.Invalid(path.Child("minSize"), minSize, fmt.Sprintf("must not be greater than maxSize (%d)", maxSize)))
	}
	return errs
}

func validateSpot(path *field.Path, s *AzureManagedMachinePoolClassSpec) field.ErrorList {
	var errs field.ErrorList
	spot := ptr.Deref(s.ScaleSetPriority, ScaleSetPriorityRegular) == ScaleSetPrioritySpot
	if spot && s.Mode == NodePoolModeSystem {
		errs = append(errs, field.Forbidden(path.Child("scaleSetPriority"), "a System agent pool cannot run on spot VMs"))
	}
	if s.SpotMaxPrice != nil {
		p := path.Child("spotMaxPrice")
		if !spot {
			errs = append(errs, field.Forbidden(p, "only for scaleSetPriority Spot"))
		}
		if price := s.SpotMaxPrice.AsApproximateFloat64(); price <= 0 && price != -1 {
			errs = append(errs, field.Invalid(p, s.SpotMaxPrice.String(), "must be a positive price, or -1 for the on-demand price"))
		}
	}
	return errs
}

func validateKubeletConfig(path *field.Path, k *KubeletConfig) field.ErrorList {
	if k == nil {
		return nil
	}
	var errs field.ErrorList
	if v := k.CPUCfsQuotaPeriod; v != nil && !cpuCfsQuotaPeriodPattern.MatchString(*v) {
		errs = append(errs, field.Invalid(path.Child("cpuCfsQuotaPeriod"), *v, "must be milliseconds with an ms suffix, such as 100ms"))
	}
	if hi, lo := k.ImageGcHighThreshold, k.ImageGcLowThreshold; hi != nil && lo != nil && *lo >= *hi {
		errs = append(errs, field.Invalid(path.Child("imageGcLowThreshold"), *lo, fmt.Sprintf("must be lower than imageGcHighThreshold (%d)", *hi)))
	}
	for i, sysctl := range k.AllowedUnsafeSysctls {
		allowed := false
		for _, pattern := range allowedUnsafeSysctlPatterns {
			if pattern.MatchString(sysctl) {
				allowed = true
				break
			}
		}
		if !allowed {
			errs = append(errs, field.Invalid(path.Child("allowedUnsafeSysctls").Index(i), sysctl,
				"AKS allows only kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.* and net.*"))
		}
	}
	return errs
}

func validateLinuxOSConfig(path *field.Path, l *LinuxOSConfig, k *KubeletConfig, osType AgentPoolOSType) field.ErrorList {
	if l == nil {
		return nil
	}
	var errs field.ErrorList
	if osType != AgentPoolOSTypeLinux {
		errs = append(errs, field.Forbidden(path, "only for Linux agent pools"))
	}
	if l.SwapFileSizeMB != nil && (k == nil || ptr.Deref(k.FailSwapOn, true)) {
		errs = append(errs, field.Forbidden(path.Child("swapFileSizeMB"),
			"a swap file requires kubeletConfig.failSwapOn: false, or the kubelet refuses to start"))
	}
	if l.Sysctls != nil && l.Sysctls.NetIpv4IPLocalPortRange != nil {
		p := path.Child("sysctls", "netIpv4IPLocalPortRange")
		value := *l.Sysctls.NetIpv4IPLocalPortRange
		first, last, ok := parsePortRange(value)
		switch {
		case !ok:
			errs = append(errs, field.Invalid(p, value, `must be two port numbers separated by a space, such as "32768 60999"`))
		case first < 1024 || first > 60999:
			errs = append(errs, field.Invalid(p, value, "the first port must be between 1024 and 60999"))
		case last < 32768 || last > 65000:
			errs = append(errs, field.Invalid(p, value, "the last port must be between 32768 and 65000"))
		case first > last:
			errs = append(errs, field.Invalid(p, value, "the first port must not be greater than the last"))
		}
	}
	return errs
}

func parsePortRange(value string) (first, last int, ok bool) {
	parts := strings.Split(value, " ")
	if len(parts) != 2 {
		return 0, 0, false
	}
	first, err1 := strconv.Atoi(parts[0])
	last, err2 := strconv.Atoi(parts[1])
	return first, last, err1 == nil && err2 == nil
}

// validateAzureManagedMachinePoolUpdate rejects the changes AKS does not allow on an existing agent pool.
func validateAzureManagedMachinePoolUpdate(old, p *AzureManagedMachinePool) field.ErrorList {
	spec := field.NewPath("spec")
	o, n := &old.Spec, &p.Spec
	var errs field.ErrorList
	for _, f := range []struct {
		name     string
		old, new any
	}{
		{"name", o.Name, n.Name},
		{"sku", o.SKU, n.SKU},
		{"osDiskSizeGB", o.OSDiskSizeGB, n.OSDiskSizeGB},
		{"osDiskType", o.OsDiskType, n.OsDiskType},
		{"maxPods", o.MaxPods, n.MaxPods},
		{"osType", o.OSType, n.OSType},
		{"enableNodePublicIP", o.EnableNodePublicIP, n.EnableNodePublicIP},
		{"nodePublicIPPrefixID", o.NodePublicIPPrefixID, n.NodePublicIPPrefixID},
		{"scaleSetPriority", o.ScaleSetPriority, n.ScaleSetPriority},
		{"enableUltraSSD", o.EnableUltraSSD, n.EnableUltraSSD},
		{"kubeletConfig", o.KubeletConfig, n.KubeletConfig},
		{"kubeletDiskType", o.KubeletDiskType, n.KubeletDiskType},
		{"linuxOSConfig", o.LinuxOSConfig, n.LinuxOSConfig},
	} {
		errs = append(errs, ValidateImmutable(spec.Child(f.name), f.old, f.new)...)
	}
	if !sets.New(o.AvailabilityZones...).Equal(sets.New(n.AvailabilityZones...)) {
		errs = append(errs, field.Invalid(spec.Child("availabilityZones"), n.AvailabilityZones, "field is immutable"))
	}
	// Set once: CAPZ lets these go from unset to set, for pools created before the fields existed.
	if o.SubnetName != nil {
		errs = append(errs, ValidateImmutable(spec.Child("subnetName"), o.SubnetName, n.SubnetName)...)
	}
	if o.EnableFIPS != nil {
		errs = append(errs, ValidateImmutable(spec.Child("enableFIPS"), o.EnableFIPS, n.EnableFIPS)...)
	}
	if o.EnableEncryptionAtHost != nil {
		errs = append(errs, ValidateImmutable(spec.Child("enableEncryptionAtHost"), o.EnableEncryptionAtHost, n.EnableEncryptionAtHost)...)
	}
	return errs
}
