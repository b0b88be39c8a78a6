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
	"bytes"
	"encoding/json"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// FailureDomainList are the failure domains of an AzureCluster's status: a list, as Cluster API's v1beta2 contract
// has them.
//
// An AzureCluster that CAPZ wrote keeps them as a map (Cluster API's v1beta1 contract) until its status is written
// again; a map would make every read of AzureClusters fail. It is read as no failure domains, so that the next
// status the provider writes replaces the map with the list it computes from the location (the provider recomputes
// them in every pass, so nothing is lost).
// +listType=map
// +listMapKey=name
// +kubebuilder:validation:MinItems=1
// +kubebuilder:validation:MaxItems=100
type FailureDomainList []clusterv1.FailureDomain

// UnmarshalJSON reads the list, or a map of CAPZ's as none.
func (f *FailureDomainList) UnmarshalJSON(data []byte) error {
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		*f = nil
		return nil
	}
	var list []clusterv1.FailureDomain
	if err := json.Unmarshal(data, &list); err != nil {
		return err
	}
	*f = list
	return nil
}
