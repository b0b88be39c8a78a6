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

package asosim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

const (
	// finalizer is ASO's finalizer.
	finalizer = "serviceoperator.azure.com/finalizer"
	// ownerRetry is how soon an object whose owner is not ready yet is looked at again.
	ownerRetry = 200 * time.Millisecond
	// slowRetry is how soon an object is looked at again after a failure ASO retries slowly (minutes in ASO).
	slowRetry = time.Second
)

// reconciler plays ASO for one kind.
type reconciler struct {
	sim *Simulator
	gvk schema.GroupVersionKind
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	s := r.sim
	o, err := s.client.Scheme().New(r.gvk)
	if err != nil {
		return ctrl.Result{}, err
	}
	obj := o.(genruntime.ARMMetaObject)
	if err := s.client.Get(ctx, req.NamespacedName, obj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	key := objectKey{r.gvk.Kind, req.Namespace, req.Name}
	policy := r.reconcilePolicy(ctx, obj)

	if !obj.GetDeletionTimestamp().IsZero() {
		return r.reconcileDelete(ctx, obj, policy)
	}
	s.mu.Lock()
	fault := s.faults[key]
	s.mu.Unlock()
	if fault.Lag > 0 {
		if wait := time.Until(obj.GetCreationTimestamp().Add(fault.Lag)); wait > 0 {
			return ctrl.Result{RequeueAfter: wait}, nil
		}
	}

	// Like ASO, claim the object (its finalizer and resource-id) only once its owner is Ready, its credential is
	// complete and every reference, secret and config map of its spec resolves; until then it is not ASO's.
	claimed := controllerutil.ContainsFinalizer(obj, finalizer)
	cred, problem, err := r.credential(ctx, obj)
	if err != nil {
		return ctrl.Result{}, err
	}
	subscription := cred.SubscriptionID
	id, waiting, err := r.armID(ctx, obj, subscription)
	if err != nil {
		return ctrl.Result{}, err
	}
	if waiting != "" {
		return r.writeStatus(ctx, obj, "", ready{status: metav1.ConditionFalse, severity: "Warning", reason: "WaitingForOwner", message: waiting}, ownerRetry)
	}
	// Without a credential, or with one of another subscription than the resource group's, ASO neither claims the
	// resource nor reaches Azure.
	if problem != "" {
		return r.writeStatus(ctx, obj, "", ready{status: metav1.ConditionFalse, severity: "Warning", reason: "Failed", message: problem}, ownerRetry)
	}
	if mismatch := subscriptionMismatch(id, subscription); mismatch != "" {
		if !claimed {
			id = ""
		}
		return r.writeStatus(ctx, obj, id, ready{status: metav1.ConditionFalse, severity: "Error", reason: "Failed", message: mismatch}, slowRetry)
	}
	// ASO resolves the spec's references before it sends the resource to Azure, and retries soon. It only reads a
	// claimed resource of reconcile-policy skip.
	if !claimed || policy != string(asoannotations.ReconcilePolicySkip) {
		missing, err := r.resolve(ctx, obj)
		if err != nil {
			return ctrl.Result{}, err
		}
		if missing != nil {
			if !claimed {
				id = ""
			}
			return r.writeStatus(ctx, obj, id, ready{status: metav1.ConditionFalse, severity: "Warning", reason: missing.reason, message: missing.message}, ownerRetry)
		}
	}
	if !claimed {
		controllerutil.AddFinalizer(obj, finalizer)
		genruntime.SetResourceID(obj, id)
		if err := r.referToOwner(ctx, obj); err != nil {
			return ctrl.Result{}, err
		}
		if err := s.client.Update(ctx, obj); err != nil {
			return retryLater(err)
		}
	}
	// From here on ASO reaches Azure, with the credential.
	use := CredentialUse{Kind: r.gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName(), ID: id, Op: OpSync, Credential: cred}
	if fault.Reconciling || fault.Severity != "" {
		s.azure.mu.Lock()
		s.azure.recordUse(use)
		s.azure.mu.Unlock()
	}
	if fault.Reconciling {
		return r.writeStatus(ctx, obj, id, ready{status: metav1.ConditionFalse, severity: "Info", reason: "Reconciling", message: "The resource is being reconciled"}, 0)
	}
	if fault.Severity != "" {
		return r.writeStatus(ctx, obj, id, ready{status: metav1.ConditionFalse, severity: fault.Severity, reason: fault.Reason, message: fault.Message}, 0)
	}

	spec, err := specHash(obj)
	if err != nil {
		return ctrl.Result{}, err
	}
	az := s.azure
	az.mu.Lock()
	current, exists := az.resources[strings.ToLower(id)]
	switch {
	case policy == string(asoannotations.ReconcilePolicySkip):
		// ASO only reads the resource.
	case !exists:
		az.record("Create", r.gvk.Kind, id)
		use.Op = OpCreate
		if s.opts.RecordCreates {
			az.created = append(az.created, Created{ID: id, Object: obj.DeepCopyObject().(genruntime.ARMMetaObject)})
		}
		exists = true
	case current.spec != spec:
		az.record("Update", r.gvk.Kind, id)
		use.Op = OpUpdate
	}
	az.recordUse(use)
	if exists && policy != string(asoannotations.ReconcilePolicySkip) {
		// A seeded resource keeps its properties: the simulator does not derive a status from the spec.
		instance := current.instance
		if current.kind == "" {
			instance = az.removed[strings.ToLower(id)]
		}
		az.resources[strings.ToLower(id)] = resource{
			kind: r.gvk.Kind, id: id, tags: specTags(obj), spec: spec, properties: current.properties, put: specOf(obj), instance: instance,
		}
	}
	az.mu.Unlock()

	if !exists {
		return r.writeStatus(ctx, obj, "", ready{status: metav1.ConditionFalse, severity: "Warning", reason: "AzureResourceNotFound",
			message: fmt.Sprintf("%s does not exist in Azure (reconcile-policy skip)", id)}, 0)
	}
	return r.writeStatus(ctx, obj, id, ready{status: metav1.ConditionTrue, reason: "Succeeded"}, 0)
}

// reconcilePolicy is the object's reconcile-policy, or, when it has none, its namespace's, as ASO merges them
// (internal/reconcilers/generic/generic_reconciler.go, mergeReconcilePolicy): "" (manage) when neither has one, or the
// namespace cannot be read. ASO takes an unknown value for its default (manage) too.
func (r *reconciler) reconcilePolicy(ctx context.Context, obj client.Object) string {
	policy := obj.GetAnnotations()[asoannotations.ReconcilePolicy]
	if policy == "" {
		ns := &corev1.Namespace{}
		if err := r.sim.client.Get(ctx, client.ObjectKey{Name: obj.GetNamespace()}, ns); err != nil {
			return "" // as ASO: the default policy when the namespace cannot be read
		}
		policy = ns.GetAnnotations()[asoannotations.ReconcilePolicy]
	}
	switch asoannotations.ReconcilePolicyValue(policy) {
	case asoannotations.ReconcilePolicySkip, asoannotations.ReconcilePolicyDetachOnDelete:
		return policy
	}
	return ""
}

// reconcileDelete deletes the resource in Azure (unless skipped or detached) and, after the delay, releases the
// finalizer. Like ASO, it resolves the object's credential again to delete: while ASO can make none, the object
// keeps its finalizer and reports why (Ready false, Warning, Failed), and nothing is deleted in Azure.
func (r *reconciler) reconcileDelete(ctx context.Context, obj genruntime.ARMMetaObject, policy string) (ctrl.Result, error) {
	s := r.sim
	if !controllerutil.ContainsFinalizer(obj, finalizer) {
		return ctrl.Result{}, nil
	}
	deletes := policy != string(asoannotations.ReconcilePolicySkip) && policy != string(asoannotations.ReconcilePolicyDetachOnDelete)
	var cred CredentialRef
	if deletes {
		var problem string
		var err error
		if cred, problem, err = r.credential(ctx, obj); err != nil {
			return ctrl.Result{}, err
		}
		if problem != "" {
			return r.writeStatus(ctx, obj, "", ready{status: metav1.ConditionFalse, severity: "Warning", reason: "Failed", message: problem}, ownerRetry)
		}
	}
	if wait := time.Until(obj.GetDeletionTimestamp().Add(s.opts.DeleteDelay)); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	if deletes {
		if id := genruntime.GetResourceIDOrDefault(obj); id != "" {
			s.deleteInAzure(r.gvk.Kind, id, CredentialUse{Kind: r.gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName(), ID: id, Op: OpDelete, Credential: cred})
		}
	}
	controllerutil.RemoveFinalizer(obj, finalizer)
	if err := s.client.Update(ctx, obj); err != nil {
		return retryLater(err)
	}
	return ctrl.Result{}, nil
}

// retryLater turns the conflicts of a stale cache into a quiet retry, as a busy operator sees them.
func retryLater(err error) (ctrl.Result, error) {
	if apierrors.IsConflict(err) {
		return ctrl.Result{Requeue: true}, nil //nolint:staticcheck // the rate limiter's backoff, as ASO's own reconcilers requeue; RequeueAfter would be a fixed delay
	}
	return ctrl.Result{}, client.IgnoreNotFound(err)
}

// deleteInAzure deletes a resource and, like Azure, everything inside it, with the credential of use.
func (s *Simulator) deleteInAzure(kind, id string, use CredentialUse) {
	az := s.azure
	az.mu.Lock()
	defer az.mu.Unlock()
	az.recordUse(use)
	lower := strings.ToLower(id)
	if _, ok := az.resources[lower]; !ok {
		return
	}
	az.remove(lower)
	az.record("Delete", kind, id)
}

// remove deletes a resource (its lower-case ARM ID) and everything inside it. The lock is held.
func (a *Azure) remove(lower string) {
	for other := range a.resources {
		if other == lower || strings.HasPrefix(other, lower+"/") {
			delete(a.resources, other)
			a.removed[other]++
		}
	}
}

// azureName is the resource's name in Azure: spec.azureName, which ASO's webhook defaults to metadata.name.
func azureName(obj genruntime.ARMMetaObject) string {
	if name := obj.AzureName(); name != "" {
		return name
	}
	return obj.GetName()
}

// armID builds the resource's ARM ID from its owner chain; waiting explains a missing owner.
func (r *reconciler) armID(ctx context.Context, obj genruntime.ARMMetaObject, subscription string) (id, waiting string, err error) {
	if obj.GetType() == "Microsoft.Resources/resourceGroups" {
		return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s", subscription, azureName(obj)), "", nil
	}
	owner := obj.Owner()
	if owner == nil {
		return "", "the resource has no owner", nil
	}
	ownerID := owner.ARMID
	ownerIsGroup := strings.Contains(strings.ToLower(ownerID), "/resourcegroups/") && strings.Count(ownerID, "/") == 4
	if ownerID == "" {
		ownerObj, err := r.ownerObject(ctx, obj.GetNamespace(), owner)
		if err != nil {
			return "", "", err
		}
		if ownerObj == nil {
			return "", fmt.Sprintf("Owner %q cannot be found. Progress is blocked until the owner is created.", owner.String()), nil
		}
		ownerID = genruntime.GetResourceIDOrDefault(ownerObj)
		// ASO claims a resource (its finalizer and resource-id) only once its owner is Ready; a claimed one keeps
		// its ID whatever becomes of the owner.
		claimed := genruntime.GetResourceIDOrDefault(obj) != ""
		if ready := genruntime.GetReadyCondition(ownerObj); ownerID == "" || (!claimed && (ready == nil || ready.Status != metav1.ConditionTrue)) {
			return "", fmt.Sprintf("Owner %q cannot be found. Progress is blocked until the owner is created.", owner.String()), nil
		}
		ownerIsGroup = ownerObj.GetType() == "Microsoft.Resources/resourceGroups"
	}
	typ := obj.GetType()
	if ownerIsGroup || obj.GetResourceScope() == genruntime.ResourceScopeExtension {
		return fmt.Sprintf("%s/providers/%s/%s", ownerID, typ, azureName(obj)), "", nil
	}
	return fmt.Sprintf("%s/%s/%s", ownerID, typ[strings.LastIndex(typ, "/")+1:], azureName(obj)), "", nil
}

// referToOwner gives the object an owner reference to its owner's object, when its owner is one, as ASO does when
// it claims a resource (internal/reconcilers/common.go, ApplyOwnership): not a controller, so that Kubernetes'
// garbage collector deletes the object once its owner's is gone, and only then.
func (r *reconciler) referToOwner(ctx context.Context, obj genruntime.ARMMetaObject) error {
	owner := obj.Owner()
	if owner == nil || owner.ARMID != "" || owner.Name == "" {
		return nil
	}
	ownerObj, err := r.ownerObject(ctx, obj.GetNamespace(), owner)
	if err != nil || ownerObj == nil {
		return err
	}
	gvk, err := r.sim.client.GroupVersionKindFor(ownerObj)
	if err != nil {
		return err
	}
	refs := obj.GetOwnerReferences()
	for _, ref := range refs {
		if ref.UID == ownerObj.GetUID() {
			return nil
		}
	}
	obj.SetOwnerReferences(append(refs, metav1.OwnerReference{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: ownerObj.GetName(), UID: ownerObj.GetUID()}))
	return nil
}

func (r *reconciler) ownerObject(ctx context.Context, namespace string, owner *genruntime.ResourceReference) (genruntime.ARMMetaObject, error) {
	return r.objectOfKind(ctx, owner.Group, owner.Kind, client.ObjectKey{Namespace: namespace, Name: owner.Name})
}

// objectOfKind reads the ASO object of a group and kind; nil when it does not exist.
func (r *reconciler) objectOfKind(ctx context.Context, group, kind string, key client.ObjectKey) (genruntime.ARMMetaObject, error) {
	for _, obj := range Kinds() {
		gvk, err := r.sim.client.GroupVersionKindFor(obj)
		if err != nil || gvk.Group != group || gvk.Kind != kind {
			continue
		}
		o := obj.DeepCopyObject().(genruntime.ARMMetaObject)
		if err := r.sim.client.Get(ctx, key, o); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, nil
			}
			return nil, err
		}
		return o, nil
	}
	return nil, fmt.Errorf("unknown kind %s/%s", group, kind)
}

// ready is the Ready condition to report.
type ready struct {
	status                    metav1.ConditionStatus
	severity, reason, message string
}

// writeStatus writes the Ready condition and the status fields ASO fills in, and the resource ID annotation.
func (r *reconciler) writeStatus(ctx context.Context, obj genruntime.ARMMetaObject, id string, c ready, requeue time.Duration) (ctrl.Result, error) {
	s := r.sim
	if id != "" && genruntime.GetResourceIDOrDefault(obj) != id {
		genruntime.SetResourceID(obj, id)
		if err := s.client.Update(ctx, obj); err != nil {
			return retryLater(err)
		}
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return ctrl.Result{}, err
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(r.gvk)
	status := map[string]any{}
	if previous, _ := content["status"].(map[string]any); previous != nil && c.status != metav1.ConditionTrue {
		// ASO keeps what it last read from Azure while a change waits, reconciles or fails: only Ready changes.
		status = runtime.DeepCopyJSONValue(previous).(map[string]any)
	}
	condition := map[string]any{
		"type": "Ready", "status": string(c.status), "reason": c.reason,
		"observedGeneration": obj.GetGeneration(), "lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
	}
	if c.severity != "" {
		condition["severity"] = c.severity
	}
	if c.message != "" {
		condition["message"] = c.message
	}
	status["conditions"] = []any{condition}
	if id != "" && c.status == metav1.ConditionTrue {
		status["id"] = id
		if r.gvk.Kind == "ResourceGroup" {
			status["properties"] = map[string]any{"provisioningState": "Succeeded"}
		} else {
			status["provisioningState"] = "Succeeded"
		}
		r.sim.azure.mu.Lock()
		seeded := r.sim.azure.resources[strings.ToLower(id)]
		if tags := seeded.tags; tags != nil {
			out := map[string]any{}
			for k, v := range tags {
				out[k] = v
			}
			status["tags"] = out
		}
		for k, v := range seeded.properties {
			status[k] = runtime.DeepCopyJSONValue(v)
		}
		r.sim.azure.mu.Unlock()
		err := r.fillKindStatus(ctx, obj, content, status, id)
		if err == nil {
			self := runtime.DeepCopyJSONValue(content).(map[string]any)
			self["status"] = status
			err = r.exportConfigMaps(ctx, obj, self)
		}
		if exportErr := (*exportError)(nil); errors.As(err, &exportErr) {
			return r.writeStatus(ctx, obj, id, ready{status: metav1.ConditionFalse, severity: "Error", reason: additionalObjectWriteFailure, message: exportErr.Error()}, slowRetry)
		}
		if err != nil {
			return ctrl.Result{}, err
		}
		if message := postReconcileFailure(r.gvk.Kind, status); message != "" {
			// ASO's post-reconciliation check: the resource is in Azure, as its status says, but not ready.
			condition["status"], condition["severity"], condition["reason"], condition["message"] = string(metav1.ConditionFalse), "Warning", postReconciliationFailure, message
			requeue = slowRetry
		}
	}
	// Round-trip through the typed object: it drops what the kind's status has no field for, as the API server
	// would, so that an unchanged status compares equal.
	typed := obj.DeepCopyObject()
	next := runtime.DeepCopyJSONValue(content).(map[string]any)
	next["status"] = status
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(next, typed); err != nil {
		return ctrl.Result{}, err
	}
	pruned, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return ctrl.Result{}, err
	}
	status, _ = pruned["status"].(map[string]any)
	if previous, _ := content["status"].(map[string]any); sameStatus(normalizeJSON(previous), normalizeJSON(status)) {
		return ctrl.Result{RequeueAfter: requeue}, nil // nothing new to report
	}
	u.Object["status"] = status
	if err := s.client.Status().Update(ctx, u); err != nil {
		return retryLater(err)
	}
	return ctrl.Result{RequeueAfter: requeue}, nil
}

// sameStatus compares two statuses, ignoring when the conditions last changed.
func sameStatus(previous, next map[string]any) bool {
	strip := func(status map[string]any) string {
		copied := runtime.DeepCopyJSONValue(status).(map[string]any)
		conditions, _ := copied["conditions"].([]any)
		for _, c := range conditions {
			if m, ok := c.(map[string]any); ok {
				delete(m, "lastTransitionTime")
			}
		}
		data, _ := json.Marshal(copied)
		return string(data)
	}
	if previous == nil {
		return false
	}
	return strip(previous) == strip(next)
}

// fillKindStatus fills the status fields the provider reads for some kinds.
func (r *reconciler) fillKindStatus(ctx context.Context, obj genruntime.ARMMetaObject, content, status map[string]any, id string) error {
	spec, _ := content["spec"].(map[string]any)
	location, _ := spec["location"].(string)
	// What every resource's status reads back from Azure: its name and region.
	status["name"] = azureName(obj)
	if location != "" {
		status["location"] = location
	}
	switch r.gvk.Kind {
	case "PublicIPAddress":
		status["ipAddress"] = fakeIP(20, id)
		if dns, ok := spec["dnsSettings"].(map[string]any); ok {
			if label, _ := dns["domainNameLabel"].(string); label != "" {
				status["dnsSettings"] = map[string]any{"domainNameLabel": label, "fqdn": fmt.Sprintf("%s.%s.cloudapp.azure.com", label, location)}
			}
		}
	case "NetworkInterface":
		configs, _ := spec["ipConfigurations"].([]any)
		var out []any
		for i, c := range configs {
			cfg, _ := c.(map[string]any)
			ip, _ := cfg["privateIPAddress"].(string)
			if ip == "" {
				ip = fakeIP(10, fmt.Sprintf("%s/%d", id, i))
			}
			out = append(out, map[string]any{"name": cfg["name"], "privateIPAddress": ip, "primary": cfg["primary"]})
		}
		status["ipConfigurations"] = out
	case "LoadBalancer":
		frontends, _ := spec["frontendIPConfigurations"].([]any)
		var out []any
		for _, f := range frontends {
			fe, _ := f.(map[string]any)
			entry := map[string]any{"name": fe["name"], "id": fmt.Sprintf("%s/frontendIPConfigurations/%v", id, fe["name"])}
			if ip, _ := fe["privateIPAddress"].(string); ip != "" {
				entry["privateIPAddress"] = ip
			}
			out = append(out, entry)
		}
		status["frontendIPConfigurations"] = out
		// Azure lists the inbound NAT rules of a load balancer in its GET, those made on their own (ASO's
		// LoadBalancersInboundNatRule, or outside ASO) included; ASO reads them into the status.
		if rules := r.sim.azure.inboundNATRules(id); len(rules) > 0 {
			status["inboundNatRules"] = rules
		}
	case "VirtualMachine":
		// Azure gives every VM its own vmId: one created again after a deletion has another.
		vmID := id
		r.sim.azure.mu.Lock()
		if n := r.sim.azure.resources[strings.ToLower(id)].instance; n > 0 {
			vmID = fmt.Sprintf("%s#%d", id, n)
		}
		r.sim.azure.mu.Unlock()
		status["vmId"] = fakeGUID(vmID)
		fillIdentity(spec, status, id)
	case "VirtualMachineScaleSet":
		// Azure reports the scale set's size; instances (and their Nodes) are for the test to play.
		status["orchestrationMode"] = spec["orchestrationMode"]
		status["uniqueId"] = fakeGUID(id)
		if sku, ok := spec["sku"].(map[string]any); ok {
			status["sku"] = sku
		}
		fillIdentity(spec, status, id)
	case "PrivateEndpoint":
		// Automatic connections are approved at once; manual ones wait for the remote owner (ApprovePrivateEndpoint).
		approved := r.sim.isApproved(objectKey{r.gvk.Kind, obj.GetNamespace(), obj.GetName()})
		for _, field := range []string{"privateLinkServiceConnections", "manualPrivateLinkServiceConnections"} {
			connections, _ := spec[field].([]any)
			var out []any
			for _, c := range connections {
				conn, _ := c.(map[string]any)
				state := "Approved"
				if field == "manualPrivateLinkServiceConnections" && !approved {
					state = "Pending"
				}
				out = append(out, map[string]any{
					"id": fmt.Sprintf("%s/%s/%v", id, field, conn["name"]), "name": conn["name"],
					"privateLinkServiceConnectionState": map[string]any{"status": state},
				})
			}
			if out != nil {
				status[field] = out
			}
		}
	case "ManagedClustersAgentPool":
		// AKS's count: the spec's, else the autoscaler's minimum, else its default of 1.
		status["count"] = spec["count"]
		if spec["count"] == nil {
			status["count"] = int64(1)
			if spec["enableAutoScaling"] == true && spec["minCount"] != nil {
				status["count"] = spec["minCount"]
			}
		}
		status["currentOrchestratorVersion"] = spec["orchestratorVersion"]
	case "ManagedCluster":
		return r.fillManagedCluster(ctx, obj, spec, status, location)
	}
	return nil
}

// postReconciliationFailure is the reason of ASO's Ready condition when its post-reconciliation check of a kind
// fails.
const postReconciliationFailure = "PostReconciliationFailure"

// postReconcileFailure is ASO's post-reconciliation check of the kinds that have one, on the status just read from
// Azure: a private endpoint is not ready while a manual connection awaits approval. It returns ASO's message, or "".
func postReconcileFailure(kind string, status map[string]any) string {
	if kind != "PrivateEndpoint" {
		return ""
	}
	connections, _ := status["manualPrivateLinkServiceConnections"].([]any)
	var pending []string
	for _, c := range connections {
		conn, _ := c.(map[string]any)
		state, _ := conn["privateLinkServiceConnectionState"].(map[string]any)
		if state["status"] != "Approved" {
			pending = append(pending, fmt.Sprint(conn["id"]))
		}
	}
	if len(pending) == 0 {
		return ""
	}
	return fmt.Sprintf("Private connection(s) '%q' to the PrivateEndpoint requires approval", pending)
}

// fillIdentity reports the principal of a system-assigned identity, which Azure creates with the resource.
func fillIdentity(spec, status map[string]any, id string) {
	identity, _ := spec["identity"].(map[string]any)
	if typ, _ := identity["type"].(string); strings.Contains(typ, "SystemAssigned") {
		status["identity"] = map[string]any{"type": typ, "principalId": fakeGUID(id + "/identity"), "tenantId": fakeGUID("tenant")}
	}
}

func (r *reconciler) fillManagedCluster(ctx context.Context, obj genruntime.ARMMetaObject, spec, status map[string]any, location string) error {
	prefix, _ := spec["dnsPrefix"].(string)
	if prefix == "" {
		prefix = azureName(obj)
	}
	fqdn := fmt.Sprintf("%s.hcp.%s.azmk8s.io", prefix, location)
	status["fqdn"] = fqdn
	if access, ok := spec["apiServerAccessProfile"].(map[string]any); ok && access["enablePrivateCluster"] == true {
		status["privateFQDN"] = fmt.Sprintf("%s.privatelink.%s.azmk8s.io", prefix, location)
	}
	status["currentKubernetesVersion"] = spec["kubernetesVersion"]
	if oidc, ok := spec["oidcIssuerProfile"].(map[string]any); ok && oidc["enabled"] == true {
		status["oidcIssuerProfile"] = map[string]any{"issuerURL": fmt.Sprintf("https://%s.oic.prod-aks.azure.com/%s/", location, fakeGUID(fqdn))}
	}
	if rg, ok := spec["nodeResourceGroup"].(string); ok && rg != "" {
		status["nodeResourceGroup"] = rg
	} else {
		status["nodeResourceGroup"] = fmt.Sprintf("MC_%s_%s", obj.Owner().Name, location)
	}
	operator, _ := spec["operatorSpec"].(map[string]any)
	secrets, _ := operator["secrets"].(map[string]any)
	for _, field := range []string{"adminCredentials", "userCredentials"} {
		dest, _ := secrets[field].(map[string]any)
		name, _ := dest["name"].(string)
		key, _ := dest["key"].(string)
		if name == "" {
			continue
		}
		kubeconfig, err := r.kubeconfig(ctx, obj, fqdn)
		if err != nil {
			return err
		}
		if err := r.writeSecret(ctx, obj, name, key, kubeconfig); err != nil {
			return err
		}
	}
	return nil
}

func (r *reconciler) kubeconfig(ctx context.Context, obj client.Object, fqdn string) ([]byte, error) {
	if r.sim.opts.Kubeconfig != nil {
		return r.sim.opts.Kubeconfig(ctx, obj, fqdn)
	}
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: %[1]s
  cluster:
    server: https://%[2]s:443
contexts:
- name: %[1]s
  context: {cluster: %[1]s, user: clusterAdmin}
current-context: %[1]s
users:
- name: clusterAdmin
  user: {token: simulated}
`, obj.GetName(), fqdn)), nil
}

// specHash is a hash of an ASO object's spec: what a PUT would send to Azure.
func specHash(obj client.Object) (string, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(content["spec"]) // maps marshal with sorted keys
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", sha256sum(string(data))), nil
}

// specOf is a copy of an ASO object's spec, as ASO sends it to Azure.
func specOf(obj client.Object) map[string]any {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil
	}
	spec, _ := content["spec"].(map[string]any)
	return spec
}

// inboundNATRules lists the inbound NAT rules Azure holds on the load balancer lbID, by name, in the shape of
// ASO's load balancer status: a rule ASO wrote as its spec says, a seeded one as its properties say.
func (a *Azure) inboundNATRules(lbID string) []any {
	a.mu.Lock()
	defer a.mu.Unlock()
	prefix := strings.ToLower(lbID) + "/inboundnatrules/"
	var keys []string
	for key := range a.resources {
		if strings.HasPrefix(key, prefix) && !strings.Contains(key[len(prefix):], "/") {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	out := make([]any, 0, len(keys))
	for _, key := range keys {
		res := a.resources[key]
		id := res.id
		if id == "" {
			id = key
		}
		entry := map[string]any{
			"id": id, "name": id[strings.LastIndex(id, "/")+1:], "type": "Microsoft.Network/loadBalancers/inboundNatRules",
			"provisioningState": "Succeeded",
		}
		for k, v := range res.properties {
			entry[k] = runtime.DeepCopyJSONValue(v)
		}
		for _, field := range []string{"backendPort", "enableFloatingIP", "enableTcpReset", "frontendPort", "frontendPortRangeStart", "frontendPortRangeEnd", "idleTimeoutInMinutes", "protocol"} {
			if v, ok := res.put[field]; ok {
				entry[field] = runtime.DeepCopyJSONValue(v)
			}
		}
		if fe, _ := res.put["frontendIPConfiguration"].(map[string]any); fe != nil {
			ref, _ := fe["reference"].(map[string]any)
			if armID, _ := ref["armId"].(string); armID != "" {
				entry["frontendIPConfiguration"] = map[string]any{"id": armID}
			}
		}
		out = append(out, entry)
	}
	return out
}

// specTags reads spec.tags of an ASO object.
func specTags(obj client.Object) map[string]string {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil
	}
	spec, _ := content["spec"].(map[string]any)
	tags, _ := spec["tags"].(map[string]any)
	if tags == nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range tags {
		out[k], _ = v.(string)
	}
	return out
}

// fakeGUID derives a stable GUID from a string.
func fakeGUID(s string) string {
	h := fmt.Sprintf("%x", sha256sum(s))
	return fmt.Sprintf("%s-%s-%s-%s-%s", h[0:8], h[8:12], h[12:16], h[16:20], h[20:32])
}

// normalizeJSON gives typed and hand-built content the same number types.
func normalizeJSON(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	data, err := json.Marshal(m)
	if err != nil {
		return m
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		return m
	}
	return out
}
