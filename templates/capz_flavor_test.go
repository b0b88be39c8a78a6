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

package templates

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"
	clusterctl "sigs.k8s.io/cluster-api/cmd/clusterctl/client"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// capzTemplatesEnv names the directory of upstream CAPZ's templates (e.g. a checkout of CAPZ v1.26.0's
// templates/): the tests that apply CAPZ's own flavors unchanged run only when it is set. CAPZ's templates are
// never copied into this repository.
const capzTemplatesEnv = "CAPZ_TEMPLATES"

// TestCAPZFlavor_FlatcarSysext applies CAPZ's own flatcar-sysext flavor, rendered as clusterctl renders it with
// FLATCAR_VERSION=latest, and expects what a user expects of it: the control plane initialized, every machine's
// bootstrap data written and its VM created.
func TestCAPZFlavor_FlatcarSysext(t *testing.T) {
	dir := os.Getenv(capzTemplatesEnv)
	if dir == "" {
		t.Skipf("%s is not set: it names the templates directory of upstream CAPZ", capzTemplatesEnv)
	}
	g := NewWithT(t)
	ctx := t.Context()
	r := localRepository(t)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	g.Expect(env.Env.ControlPlane.WriteKubeconfig(kubeconfig)).To(Succeed())
	fl := flavor{name: "capz-flatcar-sysext", prefix: "cfsx", machines: 2}
	f := newFixture(ctx, g, fl)
	f.vars["FLATCAR_VERSION"] = "latest"
	f.vars["AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY"] = "00000000-0000-0000-0000-00000000000d"
	tmpl, err := newClusterctl(ctx, t, r, f.vars).GetClusterTemplate(ctx, clusterctl.GetClusterTemplateOptions{
		Kubeconfig:               clusterctl.Kubeconfig{Path: kubeconfig},
		URLSource:                &clusterctl.URLSourceOptions{URL: filepath.Join(dir, "cluster-template-flatcar-sysext.yaml")},
		ClusterName:              f.cluster,
		TargetNamespace:          f.namespace,
		KubernetesVersion:        kubernetesVersion,
		ControlPlaneMachineCount: ptr.To[int64](1),
		WorkerMachineCount:       ptr.To[int64](1),
	})
	g.Expect(err).NotTo(HaveOccurred())
	f.objs = tmpl.Objs()
	f.create(ctx, g, f.objs)
	g.Eventually(func(g Gomega) {
		checkSelfManagedMachines(g, f, fl.machines)
	}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
}
