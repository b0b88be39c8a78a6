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

package azure

import (
	"strings"
	"sync"
)

// families are the families the translators declared (NewFamily).
var families sync.Map

// NewFamily declares a family of objects (Resource.Family), which gives their owner one condition, <Family>Ready
// (e.g. VNet → VNetReady), and returns its name. Each translator declares its families once, as package variables;
// the owners' status then knows a <Family>Ready condition as a family's (IsFamilyCondition), and removes it once no
// object of the family is left.
func NewFamily(name string) string {
	families.Store(name, true)
	return name
}

// FamilyCondition is the condition type of a family.
func FamilyCondition(family string) string { return family + "Ready" }

// IsFamilyCondition reports whether a condition type is the <Family>Ready condition of a declared family.
func IsFamilyCondition(conditionType string) bool {
	name, ok := strings.CutSuffix(conditionType, "Ready")
	if !ok {
		return false
	}
	_, declared := families.Load(name)
	return declared
}
