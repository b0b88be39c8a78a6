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

package setup_test

import (
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	. "github.com/onsi/gomega"
	logsv1 "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"

	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
)

func TestLogger(t *testing.T) {
	g := NewWithT(t)
	var lines []string
	base := funcr.New(func(prefix, args string) { lines = append(lines, prefix+" "+args) },
		funcr.Options{Verbosity: 10, LogCaller: funcr.All})
	log := setup.Logger(base).WithName("capped").WithValues("Cluster", "ns/name")

	log.Info("Reconciling")
	log.V(setup.MaxLogVerbosity).Info("Request URL")
	log.V(setup.MaxLogVerbosity+1).Info("Request Body", "body", "secret")
	log.V(setup.MaxLogVerbosity).V(1).Info("Response Body", "body", "secret")
	log.V(10).Error(errors.New("boom"), "Failed")
	log.V(5).Info(setup.QueueItemsMessage, "items", []string{"queue internals"})

	g.Expect(log.V(setup.MaxLogVerbosity).Enabled()).To(BeTrue())
	g.Expect(log.V(setup.MaxLogVerbosity + 1).Enabled()).To(BeFalse())
	g.Expect(lines).To(HaveLen(3))
	g.Expect(strings.Join(lines, "\n")).NotTo(ContainSubstring("secret"))
	g.Expect(strings.Join(lines, "\n")).NotTo(ContainSubstring("queue internals"), "the priority queue's items are dropped")
	for _, l := range lines {
		g.Expect(l).To(HavePrefix("capped "))
		g.Expect(l).To(ContainSubstring(`"Cluster"="ns/name"`))
		// The caller is this file, not the wrapper's.
		g.Expect(l).To(ContainSubstring(`"file"="logging_test.go"`))
	}
	g.Expect(lines[2]).To(ContainSubstring(`"error"="boom"`), "errors pass whatever the level")

	// A logger that discards stays one.
	g.Expect(setup.Logger(logr.Discard()).Enabled()).To(BeFalse())
}

func TestCapLogVerbosity(t *testing.T) {
	tests := []struct {
		name         string
		config       logsv1.LoggingConfiguration
		want         logsv1.LoggingConfiguration
		wantWarnings int
	}{
		{
			name:   "at or below the cap",
			config: logsv1.LoggingConfiguration{Verbosity: 7, VModule: logsv1.VModuleConfiguration{{FilePattern: "request", Verbosity: 4}}},
			want:   logsv1.LoggingConfiguration{Verbosity: 7, VModule: logsv1.VModuleConfiguration{{FilePattern: "request", Verbosity: 4}}},
		},
		{
			name:         "-v above the cap",
			config:       logsv1.LoggingConfiguration{Verbosity: 10},
			want:         logsv1.LoggingConfiguration{Verbosity: 7},
			wantWarnings: 1,
		},
		{
			name:         "--vmodule above the cap",
			config:       logsv1.LoggingConfiguration{Verbosity: 2, VModule: logsv1.VModuleConfiguration{{FilePattern: "request", Verbosity: 9}, {FilePattern: "engine", Verbosity: 5}}},
			want:         logsv1.LoggingConfiguration{Verbosity: 2, VModule: logsv1.VModuleConfiguration{{FilePattern: "request", Verbosity: 7}, {FilePattern: "engine", Verbosity: 5}}},
			wantWarnings: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			warnings := setup.CapLogVerbosity(&tt.config)
			g.Expect(tt.config).To(Equal(tt.want))
			g.Expect(warnings).To(HaveLen(tt.wantWarnings))
		})
	}
}

func TestSetLogVerbosity(t *testing.T) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	before := fs.Lookup("v").Value.String()
	t.Cleanup(func() { _ = fs.Set("v", before) })

	tests := []struct {
		name    string
		value   string
		wantErr bool
		wantV   string
	}{
		{name: "the cap", value: "7", wantV: "7"},
		{name: "below the cap", value: "3", wantV: "3"},
		{name: "above the cap", value: "8", wantErr: true, wantV: "3"},
		{name: "not a number", value: "debug", wantErr: true, wantV: "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			_, err := setup.SetLogVerbosity(tt.value)
			g.Expect(err != nil).To(Equal(tt.wantErr), "%v", err)
			g.Expect(fs.Lookup("v").Value.String()).To(Equal(tt.wantV))
		})
	}
}
