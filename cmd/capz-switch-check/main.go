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

// Command capz-switch-check is the dry run of a switch from CAPZ to this provider (docs/migrating-from-capz.md,
// "Before you start"): run against the management cluster right before `clusterctl delete --infrastructure azure`,
// it reads every object the switch hands over and prints, as a table, what would block or endanger it. It changes
// nothing. It exits 1 when anything blocks the switch, 2 when it could not read the cluster, 0 otherwise (warnings
// included).
//
//	go run ./cmd/capz-switch-check --kubeconfig ~/.kube/config [--context name] [--namespace ns]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"

	"github.com/capzaso/cluster-api-provider-azure/internal/kubeflags"
	"github.com/capzaso/cluster-api-provider-azure/internal/switchcheck"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("capz-switch-check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flags := kubeflags.Register(fs, "read only this namespace's objects (default: every namespace; CRDs are always read)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}

	c, err := flags.Client()
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "capz-switch-check: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	findings, err := switchcheck.Run(ctx, c, switchcheck.Options{Namespace: flags.Namespace})
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "capz-switch-check: %v\n", err)
		return 2
	}
	printFindings(stdout, findings)
	if switchcheck.Blocks(findings) {
		return 1
	}
	return 0
}

// printFindings writes the findings as a table and a summary line.
func printFindings(w io.Writer, findings []switchcheck.Finding) {
	blocking := 0
	for _, f := range findings {
		if f.Severity == switchcheck.Block {
			blocking++
		}
	}
	if len(findings) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		_, _ = fmt.Fprintln(tw, "SEVERITY\tCHECK\tOBJECT\tMESSAGE")
		for _, f := range findings {
			_, _ = fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Severity, f.Check, f.Object, strings.ReplaceAll(f.Message, "\n", " "))
		}
		_ = tw.Flush()
	}
	switch {
	case blocking > 0:
		_, _ = fmt.Fprintf(w, "%d finding(s), %d blocking: do not switch yet (docs/migrating-from-capz.md)\n", len(findings), blocking)
	case len(findings) > 0:
		_, _ = fmt.Fprintf(w, "%d warning(s), nothing blocks the switch: handle the warnings first (docs/migrating-from-capz.md)\n", len(findings))
	default:
		_, _ = fmt.Fprintln(w, "nothing blocks the switch")
	}
}
