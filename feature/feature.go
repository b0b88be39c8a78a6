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

// Package feature holds the provider's feature gates, set with --feature-gates.
package feature

import (
	"k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/component-base/featuregate"
)

const (
	// MachinePool turns on the AzureMachinePool and AzureManagedMachinePool kinds' webhooks and controllers.
	// It mirrors Cluster API's MachinePool gate.
	MachinePool featuregate.Feature = "MachinePool"
)

// MutableGates is the gate set the manager's --feature-gates flag writes to.
var MutableGates = featuregate.NewFeatureGate()

// Gates is the read-only view of the gates.
var Gates featuregate.FeatureGate = MutableGates

func init() {
	runtime.Must(MutableGates.Add(map[featuregate.Feature]featuregate.FeatureSpec{
		MachinePool: {Default: true, PreRelease: featuregate.Beta},
	}))
}
