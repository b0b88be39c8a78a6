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

package parity

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane/process"
)

// This file runs the provider's manager on a side as CAPZ's runs on CAPZ's (capz.go): the binary built from main.go,
// a process of its own, whose CPU and memory are its own (measure.go), serving its webhooks with a certificate made
// here and registered on the side's API server.

// providerStopGrace is how long the provider's manager may take to stop: its --graceful-shutdown-timeout and more.
const providerStopGrace = time.Minute

// providerArgs are the flags of the provider's manager in make parity: those CAPZ's manager gets (capz.go), with the
// webhook server at port and certDir. The rest are the manager's defaults, as a user runs it (permissive
// credential policy, sync period, API rates, concurrency).
func providerArgs(port int, certDir string) []string {
	return []string{
		"--leader-elect=false",
		"--webhook-port=" + strconv.Itoa(port),
		"--webhook-cert-dir=" + certDir,
		"--diagnostics-address=0",
		"--feature-gates=" + capzFeatureGates,
		"--v=2",
	}
}

// providerBuild is the provider's manager built into a temporary directory, which also holds its kubeconfig.
type providerBuild struct {
	done        chan struct{} // closed when the build has ended; dir, binary and err are then set
	dir, binary string
	err         error
}

// buildProvider builds the provider's manager (main.go of root) in the background, with the go build flags of this
// binary (test/plane/process.Build: -trimpath when make parity's go run has it), so that the build cache serves every
// package the two share and only the manager's own are compiled.
func buildProvider(ctx context.Context, root string) *providerBuild {
	b := &providerBuild{done: make(chan struct{})}
	go func() {
		defer close(b.done)
		if b.dir, b.err = os.MkdirTemp("", "parity-provider-"); b.err != nil {
			return
		}
		b.binary, b.err = process.Build(ctx, root, b.dir)
	}()
	return b
}

// wait waits for the build and returns the binary.
func (b *providerBuild) wait() (string, error) {
	<-b.done
	return b.binary, b.err
}

// remove waits for the build and removes its directory.
func (b *providerBuild) remove() error {
	if b == nil {
		return nil
	}
	<-b.done
	if b.dir == "" {
		return nil
	}
	return os.RemoveAll(b.dir)
}

// startProvider runs the provider's manager as a process of its own (built by buildProvider) under the provider's
// ServiceAccount and generated RBAC role, as config/default deploys it, serving its webhooks on a port of its own,
// and registers config/webhook there. Its output goes to <side>-provider.log (-provider-<n>.log when it starts again
// after the way back, switchToCAPZ).
func (s *side) startProvider(ctx context.Context, logger logr.Logger) error {
	if s.providerBuild == nil {
		s.providerBuild = buildProvider(ctx, s.management.RootDir)
	}
	binary, err := s.providerBuild.wait()
	if err != nil {
		return err
	}
	if err := s.management.InstallProviderRBAC(ctx); err != nil {
		return fmt.Errorf("failed to install the provider's RBAC: %w", err)
	}
	cfg, err := env.ProviderConfig(s.management.Config)
	if err != nil {
		return err
	}
	kubeconfig := filepath.Join(s.providerBuild.dir, "provider.kubeconfig")
	if err := writeKubeconfig(cfg, kubeconfig); err != nil {
		return err
	}
	s.providerWebhooks = &envtest.WebhookInstallOptions{
		Paths:            []string{filepath.Join(s.management.RootDir, "config", "webhook", "manifests.yaml")},
		LocalServingHost: "127.0.0.1",
	}
	hooks := s.providerWebhooks
	if err := hooks.PrepWithoutInstalling(); err != nil {
		return fmt.Errorf("failed to prepare the provider's webhook certificates: %w", err)
	}
	s.providerStarts++
	log := filepath.Join(s.logDir, s.name+"-provider.log")
	if s.providerStarts > 1 {
		log = filepath.Join(s.logDir, fmt.Sprintf("%s-provider-%d.log", s.name, s.providerStarts))
	}
	if s.provider, err = process.Start(ctx, process.Options{
		Binary: binary, Kubeconfig: kubeconfig, Args: providerArgs(hooks.LocalServingPort, hooks.LocalServingCertDir), Log: log,
	}); err != nil {
		return err
	}
	logger.Info("Started the provider's manager", "pid", s.provider.PID(), "log", log)
	if err := hooks.Install(s.management.Config); err != nil {
		return fmt.Errorf("failed to register the provider's webhooks: %w", err)
	}
	return nil
}

// stopProvider stops the provider's manager started by startProvider, if any, and removes its certificates.
func (s *side) stopProvider() error {
	var errs []error
	if s.provider != nil {
		errs = append(errs, s.provider.Stop(providerStopGrace))
		s.provider = nil
	}
	if s.providerWebhooks != nil {
		errs = append(errs, s.providerWebhooks.Cleanup())
		s.providerWebhooks = nil
	}
	return errors.Join(errs...)
}

// writeKubeconfig writes a client configuration with client certificates as a kubeconfig file.
func writeKubeconfig(cfg *rest.Config, path string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["management"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["provider"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts["provider"] = &clientcmdapi.Context{Cluster: "management", AuthInfo: "provider"}
	kc.CurrentContext = "provider"
	return clientcmd.WriteToFile(*kc, path)
}
