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

// Command capz-switch-back is the step of the way back to CAPZ (docs/migrating-from-capz.md, "The way back"), in two
// parts (internal/switchback): `before-init`, between `clusterctl delete --infrastructure azure` and `clusterctl init
// --infrastructure azure:v1.26.0`, records the AzureClusters' failure domains in the form CAPZ decodes and removes
// the provider's field managers from the ASO objects' spec, so that CAPZ alone owns what it applies again;
// `after-init` writes the recorded failure domains into the AzureClusters' status, so that CAPZ's manager can start.
// It exits 0 when it is done, 2 when it could not (run it again once the cause is fixed: it changes nothing twice).
//
//	go run ./cmd/capz-switch-back before-init|after-init --kubeconfig ~/.kube/config [--context name] [--namespace ns]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/internal/kubeflags"
	"github.com/capzaso/cluster-api-provider-azure/internal/switchback"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	parts := map[string]func(context.Context, client.Client, switchback.Options) (switchback.Report, error){
		"before-init": switchback.BeforeInit,
		"after-init":  switchback.AfterInit,
	}
	if len(args) == 0 || parts[args[0]] == nil {
		_, _ = fmt.Fprintln(stderr, "usage: capz-switch-back before-init|after-init [--kubeconfig file] [--context name] [--namespace ns]")
		return 2
	}
	part := parts[args[0]]
	fs := flag.NewFlagSet("capz-switch-back "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	flags := kubeflags.Register(fs, "change only this namespace's objects (default: every namespace)")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}

	c, err := flags.Client()
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "capz-switch-back: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	report, err := part(ctx, c, switchback.Options{Namespace: flags.Namespace})
	if args[0] == "before-init" {
		_, _ = fmt.Fprintf(stdout, "failure domains recorded for %d AzureCluster(s); the provider's fields released from %d ASO object(s)\n", report.FailureDomainsKept, report.FieldsReleased)
	} else {
		_, _ = fmt.Fprintf(stdout, "failure domains written in CAPZ's form for %d AzureCluster(s)\n", report.FailureDomainsRestored)
		if report.FailureDomainsDropped > 0 {
			_, _ = fmt.Fprintf(stdout, "warning: %d AzureCluster(s) had failure domains that before-init did not record: removed; CAPZ writes them again\n", report.FailureDomainsDropped)
		}
	}
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "capz-switch-back: %v (run it again once the cause is fixed)\n", err)
		return 2
	}
	return 0
}
