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
// runnable waiting for the provider, a Cluster API reconcile, a provider reconcile, a provider reconcile blocked in
// Cluster API's code, and a client-go goroutine that the provider's code started.
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

goroutine 15 gp=0x6 m=nil [select, 4 minutes]:
sigs.k8s.io/cluster-api/controllers/clustercache.(*clusterCache).GetClient(0xc0)
	/root/go/pkg/mod/sigs.k8s.io/cluster-api@v1.14.2/controllers/clustercache/cluster_cache.go:300 +0x10
github.com/capzaso/cluster-api-provider-azure/exp/controllers/azuremachinepool.(*Reconciler).reconcileNodes(0xc0)
	/work/exp/controllers/azuremachinepool/azuremachinepool_controller_phases.go:200 +0x10
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).Reconcile(0xc0)
	/root/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.24.1/pkg/internal/controller/controller.go:222 +0x10

goroutine 17 gp=0x7 m=nil [chan receive, 4 minutes]:
k8s.io/client-go/tools/cache.(*sharedIndexInformer).Run(0xc0)
	/root/go/pkg/mod/k8s.io/client-go@v0.36.3/tools/cache/shared_informer.go:500 +0x10
created by github.com/capzaso/cluster-api-provider-azure/controllers/asomanagedadoption.NewCache in goroutine 1
	/work/controllers/asomanagedadoption/cache.go:60 +0x10
`

const (
	reconcileNodes = "github.com/capzaso/cluster-api-provider-azure/exp/controllers/azuremachinepool.(*Reconciler).reconcileNodes(0xc0)"
	getClient      = "sigs.k8s.io/cluster-api/controllers/clustercache.(*clusterCache).GetClient(0xc0)"
	newCache       = "github.com/capzaso/cluster-api-provider-azure/controllers/asomanagedadoption.NewCache"
	engineFrame    = "github.com/capzaso/cluster-api-provider-azure/azure/aso.(*Engine).Reconcile(0xc0)"
)

// TestParseGoroutines: the provider's frames count anywhere in a stack, its creator included; the harness and
// Cluster API are named but are not the provider; this package's stop path and idle goroutines are left out.
func TestParseGoroutines(t *testing.T) {
	g := NewWithT(t)
	g.Expect(ParseGoroutines(dump, false)).To(Equal([]StuckGoroutine{
		{Header: "goroutine 9 gp=0x3 m=nil [select, 4 minutes]", Frame: "github.com/capzaso/cluster-api-provider-azure/test/kubeletsim.(*Simulator).run(0xc0)"},
		{Header: "goroutine 11 gp=0x4 m=nil [IO wait, 4 minutes]", Frame: "sigs.k8s.io/cluster-api/controlplane/kubeadm/internal/etcd.(*Client).Status(0xc0)"},
		{Header: "goroutine 13 gp=0x5 m=nil [select, 4 minutes]", Frame: engineFrame, ProviderFrame: engineFrame},
		{Header: "goroutine 15 gp=0x6 m=nil [select, 4 minutes]", Frame: getClient, ProviderFrame: reconcileNodes},
		{Header: "goroutine 17 gp=0x7 m=nil [chan receive, 4 minutes]", Frame: newCache, ProviderFrame: newCache},
	}))
}

// processDump is what the provider's own binary prints on SIGQUIT: its main package is the provider's code.
const processDump = `SIGQUIT: quit
PC=0x47a1c1 m=0 sigcode=0

goroutine 1 gp=0xc000002380 m=nil [select]:
sigs.k8s.io/controller-runtime/pkg/manager.(*controllerManager).engageStopProcedure(0xc0)
	/root/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.24.1/pkg/manager/internal.go:540 +0x10
main.run({0x1, 0x2}, 0xc0)
	/work/main.go:250 +0x10
main.main()
	/work/main.go:122 +0x10

goroutine 40 gp=0xc000102380 m=nil [IO wait]:
internal/poll.(*FD).Read(0xc0)
	/usr/local/go/src/internal/poll/fd_unix.go:165 +0x10
`

func TestParseGoroutines_Process(t *testing.T) {
	g := NewWithT(t)
	g.Expect(ParseGoroutines(processDump, true)).To(Equal([]StuckGoroutine{
		{Header: "goroutine 1 gp=0xc000002380 m=nil [select]", Frame: "main.run({0x1, 0x2}, 0xc0)", ProviderFrame: "main.run({0x1, 0x2}, 0xc0)"},
	}))
	g.Expect(ParseGoroutines(processDump, false)).To(BeEmpty(), "a test binary's main package is not the provider")
}

func TestStuckGoroutine_String(t *testing.T) {
	g := NewWithT(t)
	stuck := ParseGoroutines(dump, false)
	g.Expect(stuck[3].String()).To(Equal("goroutine 15 gp=0x6 m=nil [select, 4 minutes] in " + getClient + ", from " + reconcileNodes))
	g.Expect(stuck[2].String()).To(Equal("goroutine 13 gp=0x5 m=nil [select, 4 minutes] in " + engineFrame))
}

// TestJudgeSlowStop: a stop that outlived its grace period fails when the provider's code is still running anywhere
// in a stack, or when nothing explains it; held up only by Cluster API or the harness, it is forgiven. Other errors
// stay.
func TestJudgeSlowStop(t *testing.T) {
	timedOut := fmt.Errorf("failed waiting for all runnables to end within grace period of 4m0s: %w", context.DeadlineExceeded)
	stuck := ParseGoroutines(dump, false)
	other := errors.New("failed to start")
	tests := []struct {
		name    string
		stopErr error
		stuck   []StuckGoroutine
		want    error
	}{
		{name: "stopped in time", stopErr: nil, stuck: stuck, want: nil},
		{name: "another error", stopErr: other, stuck: stuck[:2], want: other},
		{name: "the provider's code still runs", stopErr: timedOut, stuck: stuck, want: timedOut},
		{name: "the provider's code waits in Cluster API's", stopErr: timedOut, stuck: append(stuck[:2:2], stuck[3]), want: timedOut},
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

// TestProviderStopError: a provider's stop past its grace period names the goroutines running the provider's code,
// and only those.
func TestProviderStopError(t *testing.T) {
	g := NewWithT(t)
	timedOut := fmt.Errorf("failed waiting for all runnables to end within grace period of 2m0s: %w", context.DeadlineExceeded)
	err := newProviderStopError("the provider", timedOut, ParseGoroutines(dump, false))
	g.Expect(err).To(MatchError(context.DeadlineExceeded))
	g.Expect(err.Stuck).To(HaveLen(3))
	g.Expect(err.Error()).To(And(
		HavePrefix("the provider did not stop within its grace period: "),
		ContainSubstring(engineFrame), ContainSubstring(reconcileNodes), ContainSubstring(newCache),
		Not(ContainSubstring("kubeletsim")), Not(ContainSubstring("etcd.(*Client)")),
	))
	g.Expect(newProviderStopError("the provider", timedOut, nil).Error()).To(ContainSubstring("no goroutine runs the provider's code"))
}
