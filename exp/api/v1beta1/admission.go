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
	"k8s.io/apimachinery/pkg/runtime"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// AdmissionFor returns the in-memory admission (see infrav1.Admission) of the kind of obj, or nil for an object of
// another package.
func AdmissionFor(obj runtime.Object) infrav1.Admission {
	switch obj.(type) {
	case *AzureMachinePool:
		w := azureMachinePoolWebhook{}
		return infrav1.NewAdmission[*AzureMachinePool](w, w)
	case *AzureMachinePoolMachine:
		return infrav1.NewAdmission[*AzureMachinePoolMachine](nil, azureMachinePoolMachineWebhook{})
	}
	return nil
}
