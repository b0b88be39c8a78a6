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
	"maps"
	"slices"
	"testing"

	. "github.com/onsi/gomega"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// TestClouds: every azureEnvironment the API accepts has a cloud configuration, and no other does.
func TestClouds(t *testing.T) {
	g := NewWithT(t)
	g.Expect(slices.Sorted(maps.Keys(clouds))).To(Equal(infrav1.AzureEnvironments()))
}
