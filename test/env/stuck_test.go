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

package env

import (
	"context"
	"errors"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
)

// dump is a goroutine dump as runtime/pprof writes it with debug=2: the stop path, an idle goroutine, a harness
// runnable waiting for the provider, a Cluster API reconcile and a provider reconcile.
const dump = `goroutine 1 gp=0x1 m=nil [chan receive]:
runtime.gopark(0x0?)
	/usr/local/go/src/runtime/proc.go:462 +0xce
github.com/capzaso/cluster-api-provider-azure/test/env.(*Environment).Stop(0xc0)
	/work/test/env/environment.go:239 +0x10
github.com/capzaso/cluster-api-provider-azure/test/env.Run(0xc0)
	/work/test/env/run.go:93 +0x10

goroutine 7 gp=0x2 m=nil [select]:
net/http.(*persistConn).readLoop(0xc0)
	/usr/local/go/src/net/http/transport.go:2395 +0x10

goroutine 9 gp=0x3 m=nil [select, 4 minutes]:
github.com/capzaso/cluster-api-provider-azure/test/kubeletsim.(*Simulator).run(0xc0)
	/work/test/kubeletsim/kubeletsim.go:100 +0x10
created by github.com/capzaso/cluster-api-provider-azure/test/kubeletsim.Start in goroutine 1
	/work/test/kubeletsim/kubeletsim.go:80 +0x10

goroutine 11 gp=0x4 m=nil [IO wait, 4 minutes]:
internal/poll.(*FD).Read(0xc0)
	/usr/local/go/src/internal/poll/fd_unix.go:165 +0x10
sigs.k8s.io/cluster-api/controlplane/kubeadm/internal/etcd.(*Client).Status(0xc0)
	/root/go/pkg/mod/sigs.k8s.io/cluster-api@v1.14.2/controlplane/kubeadm/internal/etcd/etcd.go:200 +0x10

goroutine 13 gp=0x5 m=nil [select, 4 minutes]:
github.com/capzaso/cluster-api-provider-azure/azure/aso.(*Engine).Reconcile(0xc0)
	/work/azure/aso/engine.go:120 +0x10
`

func TestParseStuck(t *testing.T) {
	g := NewWithT(t)
	g.Expect(parseStuck(dump)).To(Equal([]stuckGoroutine{
		{header: "goroutine 9 gp=0x3 m=nil [select, 4 minutes]", frame: "github.com/capzaso/cluster-api-provider-azure/test/kubeletsim.(*Simulator).run(0xc0)"},
		{header: "goroutine 11 gp=0x4 m=nil [IO wait, 4 minutes]", frame: "sigs.k8s.io/cluster-api/controlplane/kubeadm/internal/etcd.(*Client).Status(0xc0)"},
		{header: "goroutine 13 gp=0x5 m=nil [select, 4 minutes]", frame: "github.com/capzaso/cluster-api-provider-azure/azure/aso.(*Engine).Reconcile(0xc0)", provider: true},
	}))
}

// TestJudgeSlowStop: a stop that outlived its grace period fails when the provider's code is still running, or
// when nothing explains it; held up only by Cluster API or the harness, it is forgiven. Other errors stay.
func TestJudgeSlowStop(t *testing.T) {
	timedOut := fmt.Errorf("failed waiting for all runnables to end within grace period of 4m0s: %w", context.DeadlineExceeded)
	stuck := parseStuck(dump)
	other := errors.New("failed to start")
	tests := []struct {
		name    string
		stopErr error
		stuck   []stuckGoroutine
		want    error
	}{
		{name: "stopped in time", stopErr: nil, stuck: stuck, want: nil},
		{name: "another error", stopErr: other, stuck: stuck[:2], want: other},
		{name: "the provider's code still runs", stopErr: timedOut, stuck: stuck, want: timedOut},
		{name: "only Cluster API and the harness still run", stopErr: timedOut, stuck: stuck[:2], want: nil},
		{name: "nothing explains it", stopErr: timedOut, stuck: nil, want: timedOut},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			if tt.want == nil {
				g.Expect(judgeSlowStop(tt.stopErr, tt.stuck)).To(Succeed())
				return
			}
			g.Expect(judgeSlowStop(tt.stopErr, tt.stuck)).To(MatchError(tt.want))
		})
	}
}
