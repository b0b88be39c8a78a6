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

package network

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

func TestSSHFrontendPort(t *testing.T) {
	all := sets.New(22)
	for port := 2201; port <= 2219; port++ {
		all.Insert(port)
	}
	for _, tc := range []struct {
		name    string
		inUse   sets.Set[int]
		want    int
		wantErr bool
	}{
		{name: "the first rule takes 22", inUse: sets.New[int](), want: 22},
		{name: "22 taken", inUse: sets.New(22), want: 2201},
		{name: "the first gap", inUse: sets.New(22, 2201, 2202, 2204), want: 2203},
		{name: "22 freed again", inUse: sets.New(2201, 2202), want: 22},
		{name: "ports of other services do not count", inUse: sets.New(443, 6443), want: 22},
		{name: "every port taken", inUse: all, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SSHFrontendPort(tc.inUse)
			if (err != nil) != tc.wantErr {
				t.Fatalf("SSHFrontendPort(%v) error = %v, want error %v", sets.List(tc.inUse), err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("SSHFrontendPort(%v) = %d, want %d", sets.List(tc.inUse), got, tc.want)
			}
		})
	}
}

func TestInboundNATRule(t *testing.T) {
	golden.Assert(t, "inboundnatrule-control-plane-ssh", InboundNATRule(testCluster, "my-cluster-control-plane-abcde",
		SSHRule{LoadBalancer: "my-cluster-public-lb", Frontend: "my-cluster-public-lb-frontEnd", FrontendPort: 2201}))
}
