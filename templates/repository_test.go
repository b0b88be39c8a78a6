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
	"context"
	"fmt"
	"sync"
	"testing"

	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	clusterctl "sigs.k8s.io/cluster-api/cmd/clusterctl/client"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/config"
	"sigs.k8s.io/yaml"

	"github.com/capzaso/cluster-api-provider-azure/test/clusterctlrepo"
)

const (
	// providerName is the name clusterctl knows the provider by (clusterctl init --infrastructure azure).
	providerName = clusterctlrepo.ProviderName
	// managerImage is the manager image of the release manifests the repository is built from.
	managerImage = clusterctlrepo.ManagerImage
)

var repo struct {
	once sync.Once
	r    *clusterctlrepo.Repository
	err  error
}

// localRepository builds the local clusterctl repository (test/clusterctlrepo) once per test binary. It fails the
// test when kustomize has not been built (make test-tools).
func localRepository(t *testing.T) *clusterctlrepo.Repository {
	t.Helper()
	repo.once.Do(func() { repo.r, repo.err = clusterctlrepo.Build(repoDir) })
	if repo.err != nil {
		t.Fatal(repo.err)
	}
	return repo.r
}

// repoDir is where the repository is built; TestMain creates and removes it.
var repoDir string

// newClusterctl returns a clusterctl client whose configuration points the azure infrastructure provider at the
// local repository and holds vars, as a clusterctl.yaml would. Nothing comes from the environment or the user's
// clusterctl configuration, and nothing is fetched from the network.
func newClusterctl(ctx context.Context, t *testing.T, r *clusterctlrepo.Repository, vars map[string]string) clusterctl.Client {
	t.Helper()
	reader := &memoryReader{values: map[string]string{"overridesFolder": r.Overrides}}
	for k, v := range vars {
		reader.values[k] = v
	}
	providers, err := yaml.Marshal([]map[string]string{{
		"name": providerName, "url": r.ComponentsURL, "type": string(clusterctlv1.InfrastructureProviderType),
	}})
	if err != nil {
		t.Fatal(err)
	}
	reader.values["providers"] = string(providers)
	cfg, err := config.New(ctx, "", config.InjectReader(reader))
	if err != nil {
		t.Fatalf("failed to create clusterctl's configuration: %v", err)
	}
	c, err := clusterctl.New(ctx, "", clusterctl.InjectConfig(cfg))
	if err != nil {
		t.Fatalf("failed to create the clusterctl client: %v", err)
	}
	return c
}

// memoryReader is a clusterctl configuration held in memory: values are variables, except providers (YAML).
type memoryReader struct {
	mu     sync.Mutex
	values map[string]string
}

func (r *memoryReader) Init(context.Context, string) error { return nil }

func (r *memoryReader) Get(key string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if v, ok := r.values[key]; ok {
		return v, nil
	}
	return "", fmt.Errorf("value for variable %q is not set", key)
}

func (r *memoryReader) Set(key, value string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.values[key] = value
}

func (r *memoryReader) UnmarshalKey(key string, value any) error {
	data, err := r.Get(key)
	if err != nil {
		return nil //nolint:nilerr // an absent key leaves the value as it is, as clusterctl's reader does
	}
	return yaml.Unmarshal([]byte(data), value)
}
