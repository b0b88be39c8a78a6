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
	"context"
	"fmt"
	"os"
	"time"

	"golang.org/x/term"
	"k8s.io/klog/v2"

	"github.com/capzaso/cluster-api-provider-azure/hack/localplane/progress"
)

// watchProgress shows the clusters' progress every o.refresh until ctx is done or the manager stops.
func watchProgress(ctx context.Context, o options, p *plane, start time.Time) {
	screen := &progress.Screen{W: os.Stdout, ANSI: o.view == "ansi"}
	azure := map[string]string{
		azureSimulated: "Azure simulated",
		azureFakeARM:   "ASO against a fake Azure",
		azureNone:      "Azure not simulated",
	}[o.azure]
	ticker := time.NewTicker(o.refresh)
	defer ticker.Stop()
	fmt.Println()
	for {
		objs, err := progress.Collect(ctx, p.reader, p.scheme, progress.Kinds())
		if err != nil && ctx.Err() == nil {
			klog.Errorf("Failed to read the clusters for the progress view: %v", err)
		}
		opts := progress.RenderOptions{Color: screen.ANSI}
		if screen.ANSI {
			if width, height, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
				opts.Width, screen.Height = width-1, height
			}
		}
		now := time.Now()
		header := fmt.Sprintf("── Clusters at %s (%s after start; %s, workload nodes simulated) ──",
			now.Format("15:04:05"), now.Sub(start).Round(time.Second), azure)
		if r := []rune(header); opts.Width > 0 && len(r) > opts.Width {
			header = string(r[:opts.Width-1]) + "…"
		}
		body := progress.Render(progress.Build(objs), opts)
		if ctx.Err() == nil {
			if err := screen.Show(header, body); err != nil {
				klog.Errorf("Failed to show the progress view: %v", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-p.done:
			return
		case <-ticker.C:
		}
	}
}
