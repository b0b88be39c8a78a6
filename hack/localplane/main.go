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

// Command localplane runs a local management plane for development (make run): the pinned kube-apiserver and
// etcd on loopback with every CRD installed; Cluster API's core, kubeadm bootstrap, kubeadm control plane,
// ClusterClass and topology reconcilers, Cluster API's webhooks (conversion of v1beta1, defaulting, validation) and
// the provider's webhooks and controllers in one process; kube-controller-manager's garbage collector and namespace
// controller; the ASO simulator standing in for ASO and Azure; and a second local API server playing the workload
// clusters, where simulated kubelets and AKS register the machines' Nodes, and which every self-managed Cluster
// reaches through the kubeconfig the plane gives it. Nothing reaches Azure. It applies sample clusters from
// the templates, shows their progress until Ctrl-C, and then stops everything.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
)

// options are the command's flags.
type options struct {
	stateDir        string
	keep            bool
	azure           string
	provider        string
	apply           bool
	flavors         []string
	printKubeconfig bool
	view            string
	refresh         time.Duration
	samples         sampleSettings
}

func main() {
	var o options
	var flavors string
	flag.StringVar(&o.stateDir, "state-dir", ".local", "Directory for the kubeconfigs, logs and etcd data.")
	flag.BoolVar(&o.keep, "keep", false, "Keep the management cluster's etcd data across runs (in <state-dir>/etcd).")
	flag.StringVar(&o.azure, "azure", azureSimulated, `Which Azure the ASO objects meet: "simulated" (the ASO simulator plays ASO's controllers and Azure), "fake-arm" (ASO's own controllers, against a fake Azure Resource Manager on loopback), or "none" (nothing reconciles them: run ASO's controllers yourself).`)
	flag.StringVar(&o.provider, "provider", providerInProcess, `Where the provider runs: "in-process" (its controllers and webhooks in this process), or "none" (neither runs nor are its webhook configurations installed: run the provider yourself against <state-dir>/kubeconfig, as test/image runs its image; needs --flavors none).`)
	flag.StringVar(&flavors, "flavors", "default,aks-aso",
		`Comma-separated flavors of templates/ to apply a sample cluster of ("default" is cluster-template.yaml); "none" applies nothing.`)
	flag.BoolVar(&o.apply, "apply", true, "Apply the sample clusters of --flavors; false applies nothing.")
	flag.BoolVar(&o.printKubeconfig, "print-kubeconfig", false, "Print the management cluster's kubeconfig once the plane runs.")
	flag.StringVar(&o.view, "view", "auto", `The progress view: "ansi" (redrawn in place), "plain" (snapshots when it changes), "off", or "auto" (ansi on a terminal, plain otherwise).`)
	flag.DurationVar(&o.refresh, "refresh", 0, "How often the view looks at the clusters (default 1s with ansi, 10s with plain).")
	flag.StringVar(&o.samples.kubernetesVersion, "kubernetes-version", "v1.34.1", "KUBERNETES_VERSION of the samples.")
	flag.IntVar(&o.samples.controlPlaneMachines, "control-plane-machine-count", 1,
		"CONTROL_PLANE_MACHINE_COUNT of the samples (each control plane machine runs a simulated etcd member).")
	flag.IntVar(&o.samples.workerMachines, "worker-machine-count", 2, "WORKER_MACHINE_COUNT of the samples (workers, AKS user pool nodes).")
	flag.StringVar(&o.samples.location, "location", "eastus", "AZURE_LOCATION of the samples.")
	flag.StringVar(&o.samples.templatesDir, "templates", "templates", "Directory of the cluster templates (cluster-template-<flavor>.yaml, clusterclass-<class>.yaml).")
	klog.InitFlags(nil)
	// The controllers' errors (retries, mostly) go to manager.log with the rest of their logs, not to the terminal.
	_ = flag.Set("stderrthreshold", "FATAL")
	// One file for every severity: each message once, not again for each lower severity.
	_ = flag.Set("one_output", "true")
	flag.Parse()
	// Capped like the manager's: above verbosity 7 client-go logs request bodies, bootstrap data and credentials among them.
	ctrl.SetLogger(setup.Logger(klog.Background()))

	for _, f := range strings.Split(flavors, ",") {
		if f = strings.TrimSpace(f); f != "" && f != "none" && !slices.Contains(o.flavors, f) {
			o.flavors = append(o.flavors, f)
		}
	}
	if !o.apply {
		o.flavors = nil
	}
	switch o.view {
	case "auto":
		o.view = "plain"
		if term.IsTerminal(int(os.Stdout.Fd())) {
			o.view = "ansi"
		}
	case "ansi", "plain", "off":
	default:
		fmt.Fprintf(os.Stderr, "localplane: --view must be auto, ansi, plain or off, not %q\n", o.view)
		os.Exit(2)
	}
	switch o.azure {
	case azureSimulated, azureFakeARM, azureNone:
	default:
		fmt.Fprintf(os.Stderr, "localplane: --azure must be simulated, fake-arm or none, not %q\n", o.azure)
		os.Exit(2)
	}
	switch o.provider {
	case providerInProcess:
	case providerNone:
		if len(o.flavors) > 0 {
			fmt.Fprintf(os.Stderr, "localplane: --provider none needs --flavors none: apply clusters once your provider's webhooks serve\n")
			os.Exit(2)
		}
	default:
		fmt.Fprintf(os.Stderr, "localplane: --provider must be in-process or none, not %q\n", o.provider)
		os.Exit(2)
	}
	if o.refresh <= 0 {
		o.refresh = 10 * time.Second
		if o.view == "ansi" {
			o.refresh = time.Second
		}
	}

	if err := runUntilSignalled(o); err != nil {
		fmt.Fprintf(os.Stderr, "localplane: %v\n", err)
		os.Exit(1)
	}
}

// runUntilSignalled runs until an interrupt, SIGTERM or SIGHUP. SIGHUP too: closing the terminal must not leave the
// API servers and etcds (in process groups of their own) behind.
func runUntilSignalled(o options) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return run(ctx, o)
}

func run(ctx context.Context, o options) (reterr error) {
	stateDir, err := filepath.Abs(o.stateDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	logs := map[string]*os.File{}
	for _, name := range []string{"control-plane.log", "workload-cluster.log", "manager.log"} {
		f, err := os.Create(filepath.Join(stateDir, name))
		if err != nil {
			return err
		}
		defer f.Close()
		logs[name] = f
	}
	// The terminal shows what the user needs; the controllers' logs go to a file.
	klog.LogToStderr(false)
	klog.SetOutput(logs["manager.log"])

	// The samples render before anything starts, so that a wrong flavor fails fast.
	settings := o.samples
	settings.subscriptionID = simulatedSubscriptionID
	if o.azure == azureFakeARM {
		settings.asoClientSecret = "the-fake-azure-takes-any-secret"
	}
	var samples []*sample
	for _, flavor := range o.flavors {
		smp, err := settings.renderSample(flavor)
		if err != nil {
			return fmt.Errorf("flavor %s: %w", flavor, err)
		}
		samples = append(samples, smp)
	}

	fmt.Println("Starting the management cluster's and the simulated workload cluster's kube-apiserver and etcd on loopback ...")
	start := time.Now()
	p, err := startPlane(ctx, planeOptions{
		stateDir: stateDir, keep: o.keep, azure: o.azure, provider: o.provider,
		managementLog: logs["control-plane.log"], workloadLog: logs["workload-cluster.log"], managerLog: logs["manager.log"],
	})
	if p != nil {
		defer func() {
			fmt.Println("Stopping the manager, kube-controller-manager, both kube-apiservers and etcds ...")
			reterr = kerrors.NewAggregate([]error{reterr, p.stop()})
		}()
	}
	if err != nil {
		return err
	}

	if len(samples) > 0 {
		if err := applySamples(ctx, p.client, samples); err != nil {
			return fmt.Errorf("failed to apply the sample clusters: %w", err)
		}
	}
	printBanner(o, p, stateDir, samples, time.Since(start))
	if o.printKubeconfig {
		fmt.Printf("\n# %s\n%s\n", p.kubeconfig, p.management.KubeConfig)
	}

	if o.view == "off" {
		select {
		case <-ctx.Done():
		case <-p.done:
		}
	} else {
		watchProgress(ctx, o, p, start)
	}
	if ctx.Err() == nil {
		return fmt.Errorf("the manager stopped: %w", p.managerErr())
	}
	fmt.Println()
	return p.managerErr()
}

// printBanner tells where everything is and what to try.
func printBanner(o options, p *plane, stateDir string, samples []*sample, took time.Duration) {
	rel := func(path string) string {
		if r, err := filepath.Rel(p.management.RootDir, path); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return path
	}
	azure := "SIMULATED: the ASO simulator (test/asosim) plays ASO's controllers and Azure; nothing reaches Azure"
	aso := "ASO's own webhooks (hack/tools/bin/aso-controller in webhooks mode) default, validate and convert every ASO object"
	switch o.azure {
	case azureFakeARM:
		azure = fmt.Sprintf("FAKE: ASO's controllers talk to a fake Azure Resource Manager (test/fakearm) at %s; nothing reaches Azure", p.arm.URL())
		aso = "ASO's own controller (hack/tools/bin/aso-controller), webhooks and controllers; its log is in control-plane.log"
	case azureNone:
		azure = "none: ASO objects wait for ASO's controllers (AZURE_OPERATOR_MODE=watchers) pointed at this API server"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nLocal management plane is running (started in %s).\n", took.Round(100*time.Millisecond))
	fmt.Fprintf(&b, "  API server:  %s\n", p.management.Config.Host)
	fmt.Fprintf(&b, "  kubeconfig:  %s\n", p.kubeconfig)
	provider := "and this provider, in-process"
	if o.provider == providerNone {
		provider = "in-process; NOT this provider (--provider none): run it yourself"
	}
	fmt.Fprintf(&b, "  controllers: Cluster API (core, kubeadm bootstrap and control plane, ClusterClass, topology, webhooks) %s; kube-controller-manager (garbage collector, namespace controller)\n", provider)
	fmt.Fprintf(&b, "  ASO:         %s\n", aso)
	fmt.Fprintf(&b, "  Azure:       %s\n", azure)
	fmt.Fprintf(&b, "  workload:    SIMULATED: one local API server (%s) plays every workload cluster; simulated kubelets and AKS register the Nodes\n", rel(p.workloadKubeconfig))
	fmt.Fprintf(&b, "  logs:        %s\n", rel(filepath.Join(stateDir, "{control-plane,workload-cluster,manager}.log")))
	if len(samples) > 0 {
		fmt.Fprintf(&b, "  samples:     ")
		for i, smp := range samples {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s/%s (%s)", sampleNamespace, smp.cluster, templateName(smp.flavor))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nTry, in another terminal:\n  export KUBECONFIG=%s\n", rel(p.kubeconfig))
	fmt.Fprintf(&b, "  hack/tools/bin/kubectl get clusters,machines,machinepools -A\n")
	if len(samples) > 0 {
		fmt.Fprintf(&b, "  hack/tools/bin/clusterctl describe cluster %s\n", samples[0].cluster)
	} else {
		fmt.Fprintf(&b, "  hack/tools/bin/kubectl apply -f config/samples/\n")
	}
	fmt.Fprintf(&b, "  hack/tools/bin/kubectl --kubeconfig %s get nodes\n", rel(p.workloadKubeconfig))
	b.WriteString("\nPress Ctrl-C to stop.\n")
	fmt.Print(b.String())
}
