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
	"sort"
	"strings"

	"github.com/Azure/azure-service-operator/v2/pkg/genruntime/conditions"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// resourceState is what the engine learned about one object in a pass.
type resourceState struct {
	gvk        schema.GroupVersionKind
	name       string
	family     string
	management infrav1.ResourceManagement
	ready      bool
	reason     string
	message    string
	terminal   bool
	// supporting objects (Secrets) are applied but not reported.
	supporting bool
	// writeFailed is set when the object was desired but could not be read or written in this pass.
	writeFailed bool
	// live is the object as the pass read it, before any write; nil when it did not exist.
	live client.Object
}

func newState(gvk schema.GroupVersionKind, name, family string) resourceState {
	return resourceState{gvk: gvk, name: name, family: family, management: infrav1.ResourceManaged,
		reason: infrav1.ProvisioningReason, message: "waiting for ASO to report the resource"}
}

func (s *resourceState) notReady(reason, message string, terminal bool) {
	s.ready, s.reason, s.message, s.terminal = false, reason, message, terminal
}

// failed records an API error for the object: its live state stays as it is, and the state shows the API's
// reason and message (a webhook's denial, a conflict, throttling, an unreachable server).
func (s *resourceState) failed(err error) {
	s.notReady(APIErrorReason(err), err.Error(), false)
	s.writeFailed = true
}

// APIErrorReason is the condition reason for an API error: the API server's own reason (Forbidden, Conflict,
// TooManyRequests, InternalError, ...), Timeout for a request that timed out, APIError otherwise.
func APIErrorReason(err error) string {
	if reason := apierrors.ReasonForError(err); reason != metav1.StatusReasonUnknown {
		return string(reason)
	}
	var timeout interface{ Timeout() bool }
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &timeout) && timeout.Timeout()) {
		return string(metav1.StatusReasonTimeout)
	}
	return infrav1.APIErrorReason
}

// readFrom maps ASO's Ready condition of a live object, then runs the kind's post-reconcile check: on a Ready
// object, and on one that ASO's own post-reconciliation check holds (ASO has one for private endpoints), so that
// the provider's reason and message show either way.
func (s *resourceState) readFrom(ctx context.Context, obj client.Object, checks map[schema.GroupKind]Check, reader client.Reader) {
	ready := readyCondition(obj)
	asoCheckFailed := obj.GetDeletionTimestamp().IsZero() && ready != nil && ready.Status == metav1.ConditionFalse &&
		ready.Reason == conditions.ReasonPostReconcileFailure.Name && ready.ObservedGeneration >= obj.GetGeneration()
	switch {
	case !obj.GetDeletionTimestamp().IsZero():
		s.notReady(infrav1.DeletingReason, "ASO is deleting the resource", false)
	case ready == nil:
		s.notReady(infrav1.ProvisioningReason, "waiting for ASO to report the resource", false)
	case ready.ObservedGeneration < obj.GetGeneration():
		s.notReady(infrav1.ProvisioningReason, fmt.Sprintf("ASO has not yet processed generation %d", obj.GetGeneration()), false)
	case ready.Status == metav1.ConditionTrue:
		s.ready, s.reason, s.message, s.terminal = true, infrav1.ReadyReason, "", false
	case ready.Severity == conditions.ConditionSeverityError:
		s.notReady(infrav1.FailedReason, ready.Message, true)
	case ready.Reason == conditions.ReasonReconciling.Name:
		s.notReady(infrav1.ProvisioningReason, orDefault(ready.Message, "ASO is creating or updating the resource"), false)
	default:
		s.notReady(orDefault(ready.Reason, infrav1.ProvisioningReason), ready.Message, false)
	}
	if !s.ready && !asoCheckFailed {
		return
	}
	if check, ok := checks[s.gvk.GroupKind()]; ok {
		if ok, reason, message := check(ctx, reader, obj); !ok {
			s.notReady(reason, message, false)
		}
	}
}

// applied records an object the engine just wrote: ASO has not processed that generation yet.
func (s *resourceState) applied() {
	s.notReady(infrav1.ProvisioningReason, "applied; waiting for ASO to reconcile the change", false)
}

// readyCondition returns ASO's Ready condition of a typed or unstructured ASO object, or nil.
func readyCondition(obj client.Object) *conditions.Condition {
	var all conditions.Conditions
	if conditioner, ok := obj.(conditions.Conditioner); ok {
		all = conditioner.GetConditions()
	} else if u, ok := obj.(*unstructured.Unstructured); ok {
		list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			var c conditions.Condition
			if runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c) == nil {
				all = append(all, c)
			}
		}
	}
	for _, c := range all {
		if c.Type == conditions.ConditionTypeReady {
			return &c
		}
	}
	return nil
}

// isASOObject reports whether an object is an ASO resource (rather than a Secret or ConfigMap it reads).
func isASOObject(obj client.Object) bool {
	if _, ok := obj.(conditions.Conditioner); ok {
		return true
	}
	return strings.HasSuffix(obj.GetObjectKind().GroupVersionKind().Group, ".azure.com")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Result is the state of an owner's ASO objects after a pass.
type Result struct {
	// Writes counts the objects created, changed or deleted in this pass.
	Writes int
	// PatchErrors are the user patches that could not be applied, one message each.
	PatchErrors []string
	// UnmatchedPatches are the user patches whose target matched no generated object, one message each.
	UnmatchedPatches []string
	// CredentialWarnings say which credentials the objects name hold no secret of their own and are vouched for by
	// no identity (CredentialsVouchedCondition).
	CredentialWarnings []string

	states []resourceState
}

func (r *Result) add(s resourceState) {
	if !s.supporting {
		r.states = append(r.states, s)
	}
}

// Live returns the object of a kind and name as the pass read it, before it wrote anything (so with the status ASO
// last reported); nil when the pass read none: the object did not exist, or the result is nil. Phases read the
// state ASO reports from here, through the translators' readers (see azure.Live), instead of reading it again.
func (r *Result) Live(kind, name string) azure.Object {
	if r == nil {
		return nil
	}
	for _, s := range r.states {
		if s.gvk.Kind == kind && s.name == name && s.live != nil {
			return s.live
		}
	}
	return nil
}

// Ready reports whether every object is ready.
func (r *Result) Ready() bool {
	return r.FirstNotReady() == nil
}

// Terminal reports whether an object failed in a way ASO will not retry, or a user patch must be fixed.
func (r *Result) Terminal() bool {
	for _, s := range r.states {
		if s.terminal {
			return true
		}
	}
	return false
}

// FirstNotReady returns the first object that is not ready, the most severe first: a terminal failure, then an
// object that could not be written, then any other; nil when every object is ready.
func (r *Result) FirstNotReady() *infrav1.ResourceStatus {
	first := firstNotReady(r.states)
	if first == nil {
		return nil
	}
	st := first.status()
	return &st
}

// firstNotReady returns the most severe state that is not ready, the first of its severity.
func firstNotReady(states []resourceState) *resourceState {
	var first *resourceState
	for i := range states {
		if !states[i].ready && (first == nil || states[i].severity() > first.severity()) {
			first = &states[i]
		}
	}
	return first
}

// severity orders not-ready states: terminal failures, then failed writes, then the rest.
func (s *resourceState) severity() int {
	switch {
	case s.terminal:
		return 2
	case s.writeFailed:
		return 1
	}
	return 0
}

// Statuses returns the state of every object, for status.resources.
func (r *Result) Statuses() []infrav1.ResourceStatus {
	out := make([]infrav1.ResourceStatus, 0, len(r.states))
	for _, s := range r.states {
		out = append(out, s.status())
	}
	return out
}

// Resource returns the state of one object, or nil if the pass did not see it.
func (r *Result) Resource(kind, name string) *infrav1.ResourceStatus {
	for _, s := range r.states {
		if s.gvk.Kind == kind && s.name == name {
			st := s.status()
			return &st
		}
	}
	return nil
}

func (s resourceState) status() infrav1.ResourceStatus {
	return infrav1.ResourceStatus{
		Resource: infrav1.StatusResource{Group: s.gvk.Group, Version: s.gvk.Version, Kind: s.gvk.Kind, Name: s.name},
		Ready:    s.ready, Reason: s.reason, Message: s.message, Management: s.management,
	}
}

// Conditions returns one condition per family, <Family>Ready, with the first failing object's reason and message,
// plus ResourcesReady over all objects and PatchesApplied. The controller's status file sets them.
func (r *Result) Conditions() []metav1.Condition {
	families := map[string][]resourceState{}
	for _, s := range r.states {
		if s.family != "" {
			families[s.family] = append(families[s.family], s)
		}
	}
	names := make([]string, 0, len(families))
	for f := range families {
		names = append(names, f)
	}
	sort.Strings(names)
	out := make([]metav1.Condition, 0, len(names)+2)
	for _, f := range names {
		out = append(out, summarize(f+"Ready", families[f]))
	}
	out = append(out, summarize(infrav1.ResourcesReadyCondition, r.states))
	patches := metav1.Condition{Type: infrav1.PatchesAppliedCondition, Status: metav1.ConditionTrue, Reason: "Applied"}
	switch {
	case len(r.PatchErrors) > 0:
		patches.Status, patches.Reason, patches.Message = metav1.ConditionFalse, infrav1.InvalidPatchReason, FirstOf(r.PatchErrors)
	case len(r.UnmatchedPatches) > 0:
		patches.Status, patches.Reason, patches.Message = metav1.ConditionFalse, infrav1.PatchTargetNotFoundReason, FirstOf(r.UnmatchedPatches)
	}
	return append(out, patches)
}

// FirstOf is a condition message for a list of problems: the first, and how many more.
func FirstOf(messages []string) string {
	if n := len(messages); n > 1 {
		return fmt.Sprintf("%s (and %d more)", messages[0], n-1)
	}
	return messages[0]
}

func summarize(conditionType string, states []resourceState) metav1.Condition {
	first := firstNotReady(states)
	if first == nil {
		return metav1.Condition{Type: conditionType, Status: metav1.ConditionTrue, Reason: infrav1.ReadyReason}
	}
	notReady := 0
	for i := range states {
		if !states[i].ready {
			notReady++
		}
	}
	message := fmt.Sprintf("%s %s: %s", first.gvk.Kind, first.name, first.message)
	if notReady > 1 {
		message += fmt.Sprintf(" (%d of %d resources not ready)", notReady, len(states))
	}
	return metav1.Condition{Type: conditionType, Status: metav1.ConditionFalse, Reason: first.reason, Message: message}
}
