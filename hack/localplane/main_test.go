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

package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane/process"
)

// userCluster is the cluster the test applies as a user, besides the samples.
const userCluster = "user-cluster"

const (
	// timeout bounds each wait; on two busy cores, starting two API servers takes a while.
	timeout  = 3 * time.Minute
	interval = 500 * time.Millisecond
)

// TestLocalPlane runs the local management plane as make run does, with the default sample clusters: it checks
// that the samples reach a state (the AzureCluster Ready, the AKS control plane initialized, every machine with its
// Node), that a cluster a user applies in Cluster API's v1beta1 form has its control plane initialized and Available too,
// that the progress view prints their trees, that kubectl applies config/samples/ beside them, and that Ctrl-C
// (SIGINT) stops it cleanly, leaving none of its kube-apiservers, etcds and kube-controller-manager behind.
func TestLocalPlane(t *testing.T) {
	g := NewWithT(t)
	root, err := filepath.Abs("../..")
	g.Expect(err).NotTo(HaveOccurred())
	dir := t.TempDir()
	binary := filepath.Join(dir, "localplane")
	g.Expect(process.GoBuild(t.Context(), ".", binary)).To(Succeed())

	ctx, cancel := context.WithTimeout(t.Context(), 2*timeout)
	defer cancel()
	state := filepath.Join(dir, "state")
	// Not a terminal: the view prints plain snapshots, here every second when it changed.
	cmd := exec.CommandContext(ctx, binary, "--state-dir", state, "--refresh", "1s")
	cmd.Dir = root
	// When the test ends early (a failed check or the timeout), the plane is stopped as Ctrl-C does, so that its
	// API servers and etcds (in process groups of their own) do not outlive it; killed if it does not stop.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = time.Minute
	var out syncBuffer
	stdout, err := cmd.StdoutPipe()
	g.Expect(err).NotTo(HaveOccurred())
	cmd.Stderr = &out
	g.Expect(cmd.Start()).To(Succeed())
	stopped := false
	defer func() {
		if !stopped {
			cancel()
			_ = cmd.Wait()
		}
	}()
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			out.WriteLine(s.Text())
		}
	}()

	g.Eventually(out.String, timeout, interval).Should(ContainSubstring("Press Ctrl-C to stop."))
	banner := out.String()
	kubeconfig := filepath.Join(state, "kubeconfig")
	g.Expect(banner).To(ContainSubstring("kubeconfig:  " + kubeconfig))
	g.Expect(banner).To(MatchRegexp(`Azure: +SIMULATED`))
	g.Expect(banner).To(ContainSubstring("default/capz-sample (cluster-template.yaml), default/aks-aso-sample (cluster-template-aks-aso.yaml)"))

	// A user applies a cluster of their own with kubectl, written as CAPZ users' manifests are (Cluster API's
	// v1beta1 kinds: the default flavor of templates/testdata/v1beta1) and rendered as clusterctl generate cluster
	// does: the plane gives it the simulated workload cluster's kubeconfig too.
	kubectl, err := env.Tool("kubectl")
	g.Expect(err).NotTo(HaveOccurred())
	userSettings := sampleSettings{
		kubernetesVersion: "v1.34.1", controlPlaneMachines: 1, workerMachines: 1, location: "eastus",
		subscriptionID: simulatedSubscriptionID, templatesDir: filepath.Join(root, "templates", "testdata", "v1beta1"),
	}
	userObjs, err := userSettings.render(templateName("default"), userCluster)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(userObjs).To(ContainElement(HaveField("Object", And(
		HaveKeyWithValue("kind", "Cluster"), HaveKeyWithValue("apiVersion", "cluster.x-k8s.io/v1beta1")))))
	var manifest bytes.Buffer
	for _, obj := range userObjs {
		raw, err := yaml.Marshal(obj.Object)
		g.Expect(err).NotTo(HaveOccurred())
		manifest.WriteString("---\n")
		manifest.Write(raw)
	}
	userManifest := filepath.Join(dir, "user-cluster.yaml")
	g.Expect(os.WriteFile(userManifest, manifest.Bytes(), 0o600)).To(Succeed())
	applyUser := exec.CommandContext(ctx, kubectl, "--kubeconfig", kubeconfig, "apply", "-f", userManifest)
	got, err := applyUser.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(got))
	g.Expect(string(got)).To(ContainSubstring("cluster.cluster.x-k8s.io/" + userCluster + " created"))

	// The samples progress: the self-managed cluster's network and machines, the AKS cluster's control plane.
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	g.Expect(err).NotTo(HaveOccurred())
	c, err := client.New(config, client.Options{Scheme: scheme.New()})
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func(g Gomega) {
		azureCluster := &infrav1.AzureCluster{}
		g.Expect(c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "capz-sample"}, azureCluster)).To(Succeed())
		g.Expect(conditions.IsTrue(azureCluster, clusterv1.ReadyCondition)).To(BeTrue(), "AzureCluster capz-sample is Ready")
		aks := &infrav1.AzureASOManagedControlPlane{}
		g.Expect(c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "aks-aso-sample"}, aks)).To(Succeed())
		g.Expect(aks.Status.Initialization.ControlPlaneInitialized).To(HaveValue(BeTrue()), "the AKS control plane is initialized")
		// One control plane machine and two workers, each with its Node in the simulated workload cluster.
		machines := &clusterv1.MachineList{}
		g.Expect(c.List(ctx, machines, client.InNamespace("default"), client.MatchingLabels{clusterv1.ClusterNameLabel: "capz-sample"})).To(Succeed())
		g.Expect(machines.Items).To(HaveLen(3))
		for _, m := range machines.Items {
			g.Expect(m.Status.NodeRef.IsDefined()).To(BeTrue(), "Machine %s has a Node", m.Name)
		}
		// The user's cluster reaches the workload cluster: its control plane is initialized.
		userKCP := &controlplanev1.KubeadmControlPlane{}
		g.Expect(c.Get(ctx, client.ObjectKey{Namespace: "default", Name: userCluster + "-control-plane"}, userKCP)).To(Succeed())
		g.Expect(userKCP.Status.Initialization.ControlPlaneInitialized).To(HaveValue(BeTrue()), "the user's control plane is initialized")
		g.Expect(conditions.IsTrue(userKCP, controlplanev1.KubeadmControlPlaneAvailableCondition)).To(BeTrue(),
			"the user's control plane is Available: %+v", conditions.Get(userKCP, controlplanev1.KubeadmControlPlaneAvailableCondition))
		pool := &clusterv1.MachinePool{}
		g.Expect(c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "aks-aso-sample-pool1"}, pool)).To(Succeed())
		g.Expect(pool.Status.ReadyReplicas).To(Equal(ptr.To[int32](2)))
	}, timeout, interval).Should(Succeed())

	// The view prints the trees; the state above shows in a snapshot soon after.
	g.Eventually(out.String, timeout, interval).Should(And(
		MatchRegexp(`(?m)^├─ AzureCluster capz-sample +provisioned +✓$`),
		MatchRegexp(`(?m)^│  └─ ASO objects +13/13 ready +✓ LoadBalancer, NatGateway, `),
		MatchRegexp(`(?m)^Cluster default/capz-sample +Provisioned +✓$`),
		MatchRegexp(`(?m)^├─ KubeadmControlPlane capz-sample-control-plane +initialized, 1/1 ready +✓$`),
		MatchRegexp(`(?m)^└─ MachineDeployment capz-sample-md-0 +2/2 ready +✓$`),
		MatchRegexp(`(?m)^├─ AzureASOManagedControlPlane aks-aso-sample +initialized +✓$`),
		MatchRegexp(`(?m)^└─ MachinePool aks-aso-sample-pool1 +2/2 ready +✓$`),
	))

	get := exec.CommandContext(ctx, kubectl, "--kubeconfig", kubeconfig, "get", "clusters", "-A", "-o", "name")
	got, err = get.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(got))
	g.Expect(strings.Fields(string(got))).To(ConsistOf(
		"cluster.cluster.x-k8s.io/aks-aso-sample", "cluster.cluster.x-k8s.io/capz-sample", "cluster.cluster.x-k8s.io/"+userCluster))

	// The CAPZ-style manifest of every kind (and the identity's Secret) is admitted beside the sample
	// clusters; the AzureClusterIdentity is the samples' own, so it is configured, not created.
	apply := exec.CommandContext(ctx, kubectl, "--kubeconfig", kubeconfig, "apply", "-f", "config/samples/")
	apply.Dir = root
	got, err = apply.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(got))
	g.Expect(regexp.MustCompile(`(?m) created$`).FindAllString(string(got), -1)).To(HaveLen(18), string(got))
	g.Expect(regexp.MustCompile(`(?m) configured$`).FindAllString(string(got), -1)).To(HaveLen(2), string(got))
	g.Expect(string(got)).To(ContainSubstring("azurecluster.infrastructure.cluster.x-k8s.io/sample created"))

	children := childProcesses(cmd.Process.Pid)
	g.Expect(children).To(HaveLen(5), "two kube-apiservers, two etcds and kube-controller-manager: %v", children)
	g.Expect(cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
	stopped = true
	g.Expect(cmd.Wait()).To(Succeed(), "Ctrl-C stops the plane cleanly:\n%s", out.String())
	g.Expect(out.String()).To(ContainSubstring("Stopping the manager, kube-controller-manager, both kube-apiservers and etcds"))
	for pid, name := range children {
		g.Expect(running(pid, name)).To(BeFalse(), "%s (%d) is left behind", name, pid)
	}
}

// childProcesses are the kube-apiserver, etcd and kube-controller-manager processes whose parent is pid, by process ID, from /proc.
func childProcesses(pid int) map[int]string {
	entries, _ := os.ReadDir("/proc")
	out := map[int]string{}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(pid) {
			continue
		}
		if name := commandName(child); name == "kube-apiserver" || name == "etcd" || name == "kube-controller-manager" {
			out[child] = name
		}
	}
	return out
}

// commandName is the base name of a process's executable, or "" if it is gone.
func commandName(pid int) string {
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil || len(cmdline) == 0 {
		return ""
	}
	return filepath.Base(string(bytes.SplitN(cmdline, []byte{0}, 2)[0]))
}

// running tells whether the process pid still runs the command name (and is not a zombie).
func running(pid int, name string) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && commandName(pid) == name
}

// syncBuffer collects the plane's output from two goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) WriteLine(s string) {
	_, _ = b.Write([]byte(s + "\n"))
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
