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

package parity

import (
	"github.com/capzaso/cluster-api-provider-azure/test/armnorm"
)

// Resource is what a write is to: its method, its ARM resource type and its ID (normalized, in lower case).
type Resource struct {
	Method string
	// Type is the ARM resource type as written (Microsoft.Network/virtualNetworks/subnets).
	Type string
	ID   string
}

// Name is the resource's name, with its parents' for a child (vm/extension), as its ID names them after its last
// provider namespace.
func (r Resource) Name() string { return armnorm.NameOf(r.ID) }

func (r Resource) String() string {
	s := r.Type + " " + r.Name()
	if r.Method != "PUT" {
		s = r.Method + " " + s
	}
	return s
}
