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
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	clusterctl "sigs.k8s.io/cluster-api/cmd/clusterctl/client"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/config"
	"sigs.k8s.io/yaml"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

const (
	// providerName is the name clusterctl knows the provider by (clusterctl init --infrastructure azure).
	providerName = "azure"
	// managerImage is the manager image of the release manifests the repository is built from.
	managerImage = "ghcr.io/capzaso/cluster-api-azure-controller:dev"
)

// repository is a local clusterctl provider repository, laid out as clusterctl requires:
// <dir>/infrastructure-azure/<version>/{infrastructure-components.yaml,metadata.yaml,cluster-template*.yaml,
// clusterclass-*.yaml}.
type repository struct {
	// version is the provider version of the repository, the first release series of metadata.yaml.
	version string
	// componentsURL is the file:// URL of infrastructure-components.yaml, the provider's URL in clusterctl's config.
	componentsURL string
	// overrides is an empty directory for clusterctl's overrides folder, so that the user's are not read.
	overrides string
}

var repo struct {
	once sync.Once
	r    *repository
	err  error
}

// localRepository builds the repository once per test binary: the release assets freshly built from config/ by
// hack/release-manifests.sh (what make release-manifests writes to out/), and the templates as committed. It fails
// the test when kustomize has not been built (make test-tools).
func localRepository(t *testing.T) *repository {
	t.Helper()
	kustomize, err := env.Tool("kustomize")
	if err != nil {
		t.Fatal(err)
	}
	repo.once.Do(func() { repo.r, repo.err = buildRepository(kustomize, repoDir) })
	if repo.err != nil {
		t.Fatal(repo.err)
	}
	return repo.r
}

// repoDir is where the repository is built; TestMain creates and removes it.
var repoDir string

func buildRepository(kustomize, dir string) (*repository, error) {
	version, err := metadataVersion(filepath.Join("..", "metadata.yaml"))
	if err != nil {
		return nil, err
	}
	versionDir := filepath.Join(dir, "infrastructure-"+providerName, version)
	var out bytes.Buffer
	cmd := exec.Command(filepath.Join("..", "hack", "release-manifests.sh"), kustomize, managerImage, versionDir)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("hack/release-manifests.sh: %w: %s", err, out.String())
	}
	templates, err := filepath.Glob("cluster-template*.yaml")
	if err != nil {
		return nil, err
	}
	classes, err := filepath.Glob("clusterclass-*.yaml")
	if err != nil {
		return nil, err
	}
	if len(templates) == 0 {
		return nil, fmt.Errorf("no cluster-template*.yaml in templates/: run 'make generate-flavors'")
	}
	for _, f := range append(templates, classes...) {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(versionDir, f), data, 0o600); err != nil {
			return nil, err
		}
	}
	overrides := filepath.Join(dir, "overrides")
	if err := os.MkdirAll(overrides, 0o700); err != nil {
		return nil, err
	}
	return &repository{
		version:       version,
		componentsURL: "file://" + filepath.Join(versionDir, "infrastructure-components.yaml"),
		overrides:     overrides,
	}, nil
}

// metadataVersion returns v<major>.<minor>.0 of the first release series in metadata.yaml.
func metadataVersion(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	metadata := &clusterctlv1.Metadata{}
	if err := yaml.UnmarshalStrict(data, metadata); err != nil {
		return "", fmt.Errorf("failed to read %s: %w", path, err)
	}
	if len(metadata.ReleaseSeries) == 0 {
		return "", fmt.Errorf("%s has no releaseSeries", path)
	}
	s := metadata.ReleaseSeries[0]
	return fmt.Sprintf("v%d.%d.0", s.Major, s.Minor), nil
}

// newClusterctl returns a clusterctl client whose configuration points the azure infrastructure provider at the
// local repository and holds vars, as a clusterctl.yaml would. Nothing comes from the environment or the user's
// clusterctl configuration, and nothing is fetched from the network.
func newClusterctl(ctx context.Context, t *testing.T, r *repository, vars map[string]string) clusterctl.Client {
	t.Helper()
	reader := &memoryReader{values: map[string]string{"overridesFolder": r.overrides}}
	for k, v := range vars {
		reader.values[k] = v
	}
	providers, err := yaml.Marshal([]map[string]string{{
		"name": providerName, "url": r.componentsURL, "type": string(clusterctlv1.InfrastructureProviderType),
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
