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

package takeover

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// OptedIn reports whether the user opted an object's taken-over resources into the provider's values.
func OptedIn(obj metav1.Object) bool {
	return obj.GetAnnotations()[infrav1.ApplyCAPZDifferencesAnnotation] == "true"
}

// Message tells the deliberate differences that wait for the user's opt-in, and how to opt in.
func Message(differences []string) string {
	return fmt.Sprintf("kept as CAPZ made them until the annotation %s: \"true\" opts into the provider's values: %s",
		infrav1.ApplyCAPZDifferencesAnnotation, strings.Join(differences, "; "))
}

// Condition is the CAPZDifferencesApplied condition of an object taken over from CAPZ: False while differences
// wait for the opt-in, True once none does.
func Condition(differences []string) metav1.Condition {
	if len(differences) > 0 {
		return metav1.Condition{Type: infrav1.CAPZDifferencesAppliedCondition, Status: metav1.ConditionFalse,
			Reason: infrav1.AwaitingOptInReason, Message: Message(differences)}
	}
	return metav1.Condition{Type: infrav1.CAPZDifferencesAppliedCondition, Status: metav1.ConditionTrue, Reason: infrav1.ReadyReason}
}

// Announce records an event on the object while differences wait for the opt-in (the recorder folds repeats
// into one series).
func Announce(recorder events.EventRecorder, obj runtime.Object, differences []string) {
	if len(differences) > 0 && recorder != nil {
		recorder.Eventf(obj, nil, corev1.EventTypeNormal, infrav1.AwaitingOptInReason, "TakeOver", "%s", Message(differences))
	}
}
