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

package aso

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/capzaso/cluster-api-provider-azure/api/patch"
	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

const (
	// FieldManager is the server-side-apply field manager of every ASO object the provider writes.
	FieldManager = "capz-aso-manager"

	// HashAnnotation records the hash of the desired object (after patches) the engine last applied.
	HashAnnotation = "infrastructure.cluster.x-k8s.io/desired-hash"
)

// Engine applies, reads, pauses and deletes the ASO objects of an owner.
type Engine struct {
	// Client reads from the manager's cache (ASO kinds are cached, limited to objects the provider labelled)
	// and writes to the API server.
	Client client.Client
	// APIReader reads from the API server; it sees objects the cache does not hold, such as a user's own ASO
	// object with the name the provider wants.
	APIReader client.Reader
	// Checks are the post-reconcile checks by ASO kind; nil means DefaultChecks().
	Checks map[schema.GroupKind]Check
	// IdentityCertDirs are the directories of the manager's filesystem an AzureClusterIdentity's certPath may name;
	// none means certPath is refused.
	IdentityCertDirs []string
	// ASOCloud is the azureEnvironment of the cloud ASO's own configuration points at (its
	// AZURE_RESOURCE_MANAGER_ENDPOINT); empty means AzurePublicCloud. An owner in another cloud needs an identity,
	// whose credential then carries that cloud's endpoints.
	ASOCloud string
	// CredentialPolicy decides which credentials ASO objects may name; empty is PermissivePolicy.
	CredentialPolicy CredentialPolicy
	// Bindings bind certificate files, credential files and federated client IDs to the identities that may use
	// them; nil binds nothing (which the strict policy refuses for identities that use them).
	Bindings *BindingsFile
	// Events records warnings on owners (a credential the policy refuses or warns about); nil records none.
	Events events.EventRecorder
}

// Resource is one object a controller wants; see azure.Resource.
type Resource = azure.Resource

// Patch is a user patch for some of the generated objects.
type Patch struct {
	// Kind and Name select the objects; an empty Name selects every object of the kind.
	Kind, Name string
	// Source names the patch for the user, e.g. spec.asoPatches[1].
	Source string
	// Format and Text are the patch.
	Format patch.Format
	Text   string
}

// Options describe an owner's objects.
type Options struct {
	// ClusterName is the Cluster API cluster the owner belongs to.
	ClusterName string
	// CredentialSecret names the ASO credential secret of the cluster; empty means ASO's default credential.
	CredentialSecret string
	// Patches are the user patches, applied in order.
	Patches []Patch
	// Kinds are every ASO kind the owner may own; objects of these kinds that the owner owns but no longer
	// desires are deleted.
	Kinds []schema.GroupVersionKind
	// Incomplete says the desired objects are only part of what the owner will want (the controller waits for
	// something before it can translate the rest): owned objects not among them are kept and reported.
	Incomplete bool
	// PatchTargets are kinds other owners make from the same patches (an AzureMachinePool's patches also reach its
	// instances' objects): a patch of such a kind is not reported when it matches none of these objects.
	PatchTargets []schema.GroupVersionKind
}

// Reconcile applies the desired objects, deletes owned objects no longer desired, and reports their state.
//
// Failure never deletes: an owned object is deleted only because it is missing from a desired set that the pass
// handled completely. When any desired object cannot be read or written (an API error, a webhook's denial, a
// value the API server rejects, a patch that does not apply), that object keeps its live state and is reported
// not ready with the API's reason and message, and no owned object is deleted in that pass; neither when the
// caller says its desired set is incomplete (Options.Incomplete). The error returned aggregates the API errors,
// so that the controller retries with backoff; problems only the user can fix (a bad patch, an object owned by
// someone else, a value the API server rejects) are reported in the Result and return no error.
func (e *Engine) Reconcile(ctx context.Context, owner client.Object, desired []Resource, opts Options) (*Result, error) {
	ownerGVK, err := apiutil.GVKForObject(owner, e.Client.Scheme())
	if err != nil {
		return nil, err
	}
	result := &Result{}
	wanted := map[objectKey]bool{}
	var errs []error
	failed := 0
	matched := make([]bool, len(opts.Patches))
	pass := &pass{verdicts: map[string]credentialVerdict{}, clusterName: opts.ClusterName}
	for _, r := range desired {
		r.Object.SetNamespace(owner.GetNamespace())
		gvk, err := apiutil.GVKForObject(r.Object, e.Client.Scheme())
		if err != nil {
			errs = append(errs, err)
			failed++
			continue
		}
		wanted[keyOf(gvk, r.Object.GetName())] = true
		for i, p := range opts.Patches {
			matched[i] = matched[i] || p.selects(gvk, r.Object)
		}
		state, err := e.reconcileOne(ctx, owner, ownerGVK, gvk, r, opts, result, pass)
		if err != nil {
			errs = append(errs, err)
			state.failed(err)
		}
		if state.writeFailed {
			failed++
		}
		result.add(state)
	}
	hold := ""
	switch {
	case opts.Incomplete:
		hold = "kept while the rest of the desired state is not known yet"
	case failed > 0:
		hold = fmt.Sprintf("no longer desired; not deleted while %d desired object(s) could not be written", failed)
	}
	orphans, err := e.deleteOrphans(ctx, owner, opts, wanted, hold, result)
	if err != nil {
		errs = append(errs, err)
	}
	for _, o := range orphans {
		result.add(o)
	}
	if !opts.Incomplete {
		result.UnmatchedPatches = unmatchedPatches(opts, matched)
	}
	e.warnAboutCredentials(owner, result)
	return result, kerrors.NewAggregate(errs)
}

// pass holds what one Reconcile call learns once for all its objects.
type pass struct {
	// verdicts are the credential policy's verdicts, by credential Secret name.
	verdicts map[string]credentialVerdict
	// clusterName labels the credential snapshots the pass writes.
	clusterName string
}

// selects reports whether a patch applies to an object: ASO objects only (the Secrets the engine writes for them,
// a kubeconfig, a password, extension settings, are never patched), of the patch's kind and, if it names one, name.
func (p Patch) selects(gvk schema.GroupVersionKind, obj client.Object) bool {
	return isASOObject(obj) && p.Kind == gvk.Kind && (p.Name == "" || p.Name == obj.GetName())
}

// unmatchedPatches describes the patches that selected no object, except those of a kind other owners make from
// them (Options.PatchTargets).
func unmatchedPatches(opts Options, matched []bool) []string {
	var out []string
	for i, p := range opts.Patches {
		if matched[i] || slices.ContainsFunc(opts.PatchTargets, func(gvk schema.GroupVersionKind) bool { return gvk.Kind == p.Kind }) {
			continue
		}
		target := p.Kind
		if p.Name != "" {
			target += " " + p.Name
		}
		out = append(out, fmt.Sprintf("%s matches no generated object (target %s); compare it with status.resources", p.Source, target))
	}
	return out
}

// reconcileOne applies one object when it changed and reads its state.
func (e *Engine) reconcileOne(ctx context.Context, owner client.Object, ownerGVK, gvk schema.GroupVersionKind, r Resource, opts Options, result *Result, pass *pass) (resourceState, error) {
	state := newState(gvk, r.Object.GetName(), r.Family)
	if !isASOObject(r.Object) {
		// A supporting object (a Secret an ASO object reads): applied like the others, ready once written.
		state.supporting, state.ready = true, true
	}

	live, err := e.get(ctx, gvk, client.ObjectKeyFromObject(r.Object))
	if err != nil {
		return state, err
	}
	state.live = live
	if live != nil && !isControlledBy(live, owner) && !handedOver(live) {
		pausedByCAPZ := false
		if r.Raw {
			if pausedByCAPZ, err = e.unownedByCAPZPause(ctx, live); err != nil {
				return state, err
			}
		}
		if !pausedByCAPZ {
			state.management = infrav1.ResourceExternallyManaged
			state.readFrom(ctx, live, e.checks(), e.APIReader)
			return state, nil
		}
	}
	adoption := ""
	if r.Adoptable {
		var waiting bool
		if adoption, waiting = adoptionOf(live, opts.ClusterName); waiting {
			state.readFrom(ctx, live, e.checks(), e.APIReader)
			state.notReady(infrav1.ProvisioningReason, "checking whether the resource already exists in Azure", false)
			return state, nil
		}
		if adoption == adoptionMissing && r.MustExist {
			// The owner knows the resource existed: it was deleted outside Cluster API. It is not created again; the
			// object keeps reconcile-policy skip, so that ASO only looks.
			state.management = infrav1.ResourceReferenced
			state.readFrom(ctx, live, e.checks(), e.APIReader)
			state.notReady(DeletedOutsideReason, "the resource existed and is gone from Azure: it was deleted outside Cluster API and is not created again", true)
			return state, nil
		}
		if adoption == adoptionMissing {
			adoption = adoptionCreated
		}
		r.Referenced = r.Referenced || adoption == adoptionProbing || adoption == adoptionReferenced
	}
	if r.Referenced {
		state.management = infrav1.ResourceReferenced
	}

	desired, err := e.render(owner, ownerGVK, gvk, r, opts, adoption, desiredPolicy(r, live))
	if err != nil {
		var pe *patchError
		if errors.As(err, &pe) {
			result.PatchErrors = append(result.PatchErrors, pe.Error())
			state.notReady(infrav1.InvalidPatchReason, pe.Error(), true)
			state.writeFailed = true
			return state, nil
		}
		return state, err
	}

	if !state.supporting {
		refused, err := e.checkCredential(ctx, owner, r, desired, pass, result)
		if err != nil {
			return state, err
		}
		if refused != "" {
			state.notReady(CredentialNotAllowedReason, refused, false)
			state.writeFailed = true
			// The object applied before is not trusted with whatever it names now (an identity may have stopped
			// vouching for it): its credential is revoked, never removed, so that ASO does not fall back to the
			// namespace's aso-credential Secret or its global credential. The object itself stays.
			if live != nil {
				err = e.revokeCredential(ctx, live)
			}
			return state, err
		}
	}

	if live != nil {
		resumed, err := e.resume(ctx, live, r.Referenced)
		if err != nil {
			return state, err
		}
		if resumed {
			result.Writes++
			// The cache has not seen the resume yet: compare with the object as it is now.
			if live, err = e.getLive(ctx, gvk, client.ObjectKeyFromObject(r.Object)); err != nil || live == nil {
				return state, err
			}
			state.live = live
		}
	}
	if live != nil && !state.supporting {
		if err := keepOwner(desired, live); err != nil {
			return state, err
		}
	}
	if live != nil && !needsApply(desired, live) {
		paused := false
		if !state.supporting {
			if paused, err = e.pausedByCAPZ(ctx, live, desired); err != nil {
				return state, err
			}
		}
		if !paused {
			if !state.supporting {
				state.readFrom(ctx, live, e.checks(), e.APIReader)
			}
			return state, nil
		}
	}
	if live != nil && !state.supporting {
		if err := e.takeOver(ctx, live); err != nil {
			return state, err
		}
	}
	if err := e.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(desired), client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) {
			// The API server (or ASO's schema) refused the object: a user patch or value the CRD rejects.
			state.notReady(infrav1.FailedReason, fmt.Sprintf("the API server rejected %s %s: %v", gvk.Kind, r.Object.GetName(), err), true)
			state.writeFailed = true
			return state, nil
		}
		return state, fmt.Errorf("failed to apply %s %s/%s: %w", gvk.Kind, r.Object.GetNamespace(), r.Object.GetName(), err)
	}
	result.Writes++
	if !state.supporting {
		state.applied()
	}
	return state, nil
}

// checkCredential applies the credential policy to the object about to be applied: under the strict policy every
// object's credential (the owner's, or a raw object's own), otherwise a raw object's. It returns why the object may
// not be applied, and records a warning in the result.
func (e *Engine) checkCredential(ctx context.Context, owner client.Object, r Resource, desired *unstructured.Unstructured, pass *pass, result *Result) (string, error) {
	if !r.Raw && !e.strict() {
		return "", nil
	}
	annotations := desired.GetAnnotations()
	name := annotations[asoannotations.PerResourceSecret]
	verdict, known := pass.verdicts[name]
	if !known {
		var err error
		if verdict, err = e.vetCredential(ctx, owner.GetNamespace(), name); err != nil {
			return "", err
		}
		// Under the strict policy ASO reads a vetted snapshot of a Secret the user may rewrite, never the Secret.
		if verdict.refused == "" && e.strict() && verdict.secret != nil && !providerSecret(verdict.secret) {
			problem := ""
			if verdict.snapshot, problem, err = e.snapshotCredential(ctx, owner, pass.clusterName, verdict.secret); err != nil {
				return "", err
			}
			verdict.refused = problem
		}
		pass.verdicts[name] = verdict
		if verdict.warning != "" {
			result.CredentialWarnings = append(result.CredentialWarnings, verdict.warning)
		}
	}
	if verdict.refused == "" {
		if verdict.snapshot != "" {
			annotations[asoannotations.PerResourceSecret] = verdict.snapshot
			desired.SetAnnotations(annotations)
		}
		return "", nil
	}
	return fmt.Sprintf("%s %s is not applied: %s", desired.GetKind(), desired.GetName(), verdict.refused), nil
}

// warnAboutCredentials records an event on the owner for each credential the policy warned about or refused in
// the pass.
func (e *Engine) warnAboutCredentials(owner client.Object, result *Result) {
	for _, w := range result.CredentialWarnings {
		e.warn(owner, CredentialNotVouchedReason, w)
	}
	for _, s := range result.states {
		if s.reason == CredentialNotAllowedReason {
			e.warn(owner, CredentialNotAllowedReason, s.message)
		}
	}
}

// warn records a warning event on the owner.
func (e *Engine) warn(owner client.Object, reason, message string) {
	if e.Events != nil {
		e.Events.Eventf(owner, nil, corev1.EventTypeWarning, reason, "Reconcile", "%s", message)
	}
}

// get reads an object from the cache, falling back to the API server, which also sees objects the provider did
// not label. It returns nil when the object does not exist.
func (e *Engine) get(ctx context.Context, gvk schema.GroupVersionKind, key client.ObjectKey) (client.Object, error) {
	obj, err := e.newObject(gvk)
	if err != nil {
		return nil, err
	}
	err = e.Client.Get(ctx, key, obj)
	if apierrors.IsNotFound(err) {
		return e.getLive(ctx, gvk, key)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to get %s %s: %w", gvk.Kind, key, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, nil
}

// getLive reads an object from the API server; nil when it does not exist.
func (e *Engine) getLive(ctx context.Context, gvk schema.GroupVersionKind, key client.ObjectKey) (client.Object, error) {
	obj, err := e.newObject(gvk)
	if err != nil {
		return nil, err
	}
	if err := e.APIReader.Get(ctx, key, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("failed to get %s %s: %w", gvk.Kind, key, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, nil
}

// newObject returns an empty typed object of a kind in the scheme, or an unstructured one for other kinds (raw ASO
// objects of the AzureASOManaged kinds may be of any ASO kind and version).
func (e *Engine) newObject(gvk schema.GroupVersionKind) (client.Object, error) {
	o, err := e.Client.Scheme().New(gvk)
	if runtime.IsNotRegisteredError(err) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		return u, nil
	}
	if err != nil {
		return nil, err
	}
	obj, ok := o.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not a client.Object", gvk)
	}
	return obj, nil
}

func (e *Engine) checks() map[schema.GroupKind]Check {
	if e.Checks != nil {
		return e.Checks
	}
	return DefaultChecks()
}

// isControlledBy reports whether the owner is the object's controller.
func isControlledBy(obj, owner client.Object) bool {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.Controller != nil && *ref.Controller {
			return ref.UID == owner.GetUID()
		}
	}
	return false
}

// controlledByProvider reports whether an object's controller is an object of the provider's group.
func controlledByProvider(obj metav1.Object) bool {
	ref := metav1.GetControllerOf(obj)
	return ref != nil && strings.HasPrefix(ref.APIVersion, infrav1.GroupVersion.Group+"/")
}

// handedOver reports whether the user hands an existing ASO object to whichever owner desires it: it has no
// controller and carries HandOverAnnotation (see controllers/asomanagedadoption).
func handedOver(obj client.Object) bool {
	return metav1.GetControllerOf(obj) == nil && obj.GetAnnotations()[HandOverAnnotation] == "true"
}

// objectKey identifies an object of an owner.
type objectKey struct {
	gk   schema.GroupKind
	name string
}

func keyOf(gvk schema.GroupVersionKind, name string) objectKey {
	return objectKey{gk: gvk.GroupKind(), name: name}
}

// reconcilePolicy returns an object's reconcile-policy annotation.
func reconcilePolicy(obj client.Object) string {
	return obj.GetAnnotations()[asoannotations.ReconcilePolicy]
}

// toUnstructured converts a typed object; an unstructured one is copied.
func toUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.DeepCopy(), nil
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: content}, nil
}

// SubscriptionFromResourceGroup returns the subscription of the ASO ResourceGroup object of that name in the
// namespace, read from the resource ID ASO reports, or "" while it is unknown. Controllers use it when the user
// gave no subscription and ASO's credential decides.
func SubscriptionFromResourceGroup(ctx context.Context, reader client.Reader, namespace, name string) string {
	rg := &asoresources.ResourceGroup{}
	if err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, rg); err != nil {
		return ""
	}
	id := genruntime.GetResourceIDOrDefault(rg)
	if rg.Status.Id != nil {
		id = *rg.Status.Id
	}
	parts := strings.Split(id, "/")
	if len(parts) > 2 && strings.EqualFold(parts[1], "subscriptions") {
		return parts[2]
	}
	return ""
}
