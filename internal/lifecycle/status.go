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

package lifecycle

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
)

// ResourceObject is an Object that reports the state of its ASO objects in status.resources.
type ResourceObject interface {
	Object
	SetResourceStatuses([]infrav1.ResourceStatus)
}

// Wait is a reason and message for the Ready condition: what an object waits for.
type Wait struct {
	Reason, Message string
}

// Facts are what a pass learned that decides an object's conditions. The first that applies, in this order,
// makes the Ready condition: deleting, credentials that cannot be used, the pass's error, waiting, the first ASO
// object not ready, pending, and otherwise ready. Without a result, an error or a wait (a pass that ended early
// or did not get that far), Ready keeps its last value.
type Facts struct {
	// Deleting is what the object deletes, e.g. "the machine's Azure resources"; empty when it is not deleted.
	Deleting string
	// Credentials is the outcome of resolving the identity, when the kind uses one and resolved it this pass.
	Credentials *aso.Credentials
	// Err is the error the pass ended with.
	Err error
	// Waiting is what keeps the object from applying its ASO objects.
	Waiting Wait
	// Result is the state of the object's ASO objects, when the pass reached them.
	Result *aso.Result
	// Pending is what the object waits for once its ASO objects are ready (an endpoint, a kubeconfig).
	Pending Wait
}

// SetConditions sets CredentialsReady, the resource conditions (status.resources, one <Family>Ready per family of
// the result's objects, ResourcesReady and PatchesApplied) and Ready from the facts. The families are those of the
// translators' objects (azure.Resource.Family) that the result reports: with a result, the <Family>Ready condition
// of a family it no longer reports is removed.
func SetConditions(obj ResourceObject, f Facts) {
	setCredentialsVouched(obj, f)
	if f.Credentials != nil && f.Credentials.Reason != "" {
		c := metav1.Condition{Type: infrav1.CredentialsReadyCondition, Status: metav1.ConditionTrue, Reason: f.Credentials.Reason}
		if !f.Credentials.Ready {
			c.Status, c.Message = metav1.ConditionFalse, f.Credentials.Message
		}
		conditions.Set(obj, c)
	}
	if f.Result != nil {
		obj.SetResourceStatuses(f.Result.Statuses())
		reported := map[string]bool{}
		for _, c := range f.Result.Conditions() {
			conditions.Set(obj, c)
			reported[c.Type] = true
		}
		var stale []string
		for _, c := range obj.GetConditions() {
			if azure.IsFamilyCondition(c.Type) && !reported[c.Type] {
				stale = append(stale, c.Type)
			}
		}
		for _, t := range stale {
			conditions.Delete(obj, t)
		}
	}
	if ready, ok := readyCondition(f); ok {
		conditions.Set(obj, ready)
	}
}

// setCredentialsVouched sets the CredentialsVouched warning while a credential the pass saw holds no secret of its
// own that an identity vouches for, and removes it once the pass saw none.
func setCredentialsVouched(obj ResourceObject, f Facts) {
	var warnings []string
	if f.Credentials != nil && f.Credentials.Warning != "" {
		warnings = append(warnings, f.Credentials.Warning)
	}
	if f.Result != nil {
		warnings = append(warnings, f.Result.CredentialWarnings...)
	}
	switch {
	case len(warnings) > 0:
		conditions.Set(obj, metav1.Condition{Type: aso.CredentialsVouchedCondition, Status: metav1.ConditionFalse,
			Reason: aso.CredentialNotVouchedReason, Message: aso.FirstOf(warnings)})
	case f.Result != nil || (f.Credentials != nil && f.Credentials.Reason != ""):
		conditions.Delete(obj, aso.CredentialsVouchedCondition)
	}
}

// readyCondition summarises the facts; ok is false when the pass learned nothing that changes Ready.
func readyCondition(f Facts) (metav1.Condition, bool) {
	ready := metav1.Condition{Type: clusterv1.ReadyCondition, Status: metav1.ConditionFalse}
	var first *infrav1.ResourceStatus
	if f.Result != nil {
		first = f.Result.FirstNotReady()
	}
	switch {
	case f.Deleting != "":
		ready.Reason, ready.Message = infrav1.DeletingReason, "deleting "+f.Deleting
		if f.Err != nil {
			ready.Message += "; " + f.Err.Error()
		} else if first != nil {
			ready.Message += "; " + Describe(first)
		}
	case f.Credentials != nil && f.Credentials.Reason != "" && !f.Credentials.Ready:
		ready.Reason, ready.Message = f.Credentials.Reason, f.Credentials.Message
	case f.Err != nil:
		ready.Reason, ready.Message = aso.APIErrorReason(f.Err), f.Err.Error()
	case f.Waiting.Message != "":
		ready.Reason, ready.Message = f.Waiting.Reason, f.Waiting.Message
	case f.Result == nil:
		return ready, false
	case first != nil:
		ready.Reason, ready.Message = first.Reason, Describe(first)
	case f.Pending.Message != "":
		ready.Reason, ready.Message = f.Pending.Reason, f.Pending.Message
	default:
		ready.Status, ready.Reason = metav1.ConditionTrue, infrav1.ReadyReason
	}
	return ready, true
}

// Describe is how a condition message names an ASO object's state: "<Kind> <name>: <message>".
func Describe(r *infrav1.ResourceStatus) string {
	return fmt.Sprintf("%s %s: %s", r.Resource.Kind, r.Resource.Name, r.Message)
}

// dropForeignConditions removes the conditions this provider did not write: those without observedGeneration,
// which Cluster API's conditions.Set always sets. They are CAPZ's (Cluster API's v1beta1 conditions have no
// observedGeneration, and those that are True have no reason, which the v1beta2 schema refuses): an object CAPZ
// made keeps them until the first status this provider writes, which then holds its own conditions only.
func dropForeignConditions(obj Object) {
	conds := obj.GetConditions()
	kept := conds[:0:0]
	for _, c := range conds {
		if c.ObservedGeneration != 0 {
			kept = append(kept, c)
		}
	}
	if len(kept) != len(conds) {
		obj.SetConditions(kept)
	}
}
