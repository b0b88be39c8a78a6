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

package clusterctlrepo

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	"sigs.k8s.io/yaml"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

const (
	// ProviderName is the name clusterctl knows the provider by (clusterctl init --infrastructure azure).
	ProviderName = "azure"
	// ManagerImage is the manager image of the release manifests the repository is built from.
	ManagerImage = "ghcr.io/capzaso/cluster-api-azure-controller:dev"
)

// Repository is a local clusterctl provider repository, laid out as clusterctl requires:
// <dir>/infrastructure-azure/<version>/{infrastructure-components.yaml,metadata.yaml,cluster-template*.yaml,
// clusterclass-*.yaml}.
type Repository struct {
	// Dir is the repository's base directory.
	Dir string
	// Version is the provider version of the repository, the first release series of metadata.yaml.
	Version string
	// ComponentsURL is the file:// URL of infrastructure-components.yaml, the provider's URL in clusterctl's config.
	ComponentsURL string
	// Overrides is an empty directory for clusterctl's overrides folder, so that the user's are not read.
	Overrides string
}

// Build writes the repository into dir: the release assets freshly built from config/ by hack/release-manifests.sh
// (what make release-manifests writes to out/), and the templates as committed. It needs kustomize in
// hack/tools/bin (make test-tools).
func Build(dir string) (*Repository, error) {
	root, err := env.RepoRoot()
	if err != nil {
		return nil, err
	}
	kustomize, err := env.Tool("kustomize")
	if err != nil {
		return nil, err
	}
	version, err := metadataVersion(filepath.Join(root, "metadata.yaml"))
	if err != nil {
		return nil, err
	}
	versionDir := filepath.Join(dir, "infrastructure-"+ProviderName, version)
	var out bytes.Buffer
	cmd := exec.Command(filepath.Join(root, "hack", "release-manifests.sh"), kustomize, ManagerImage, versionDir)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("hack/release-manifests.sh: %w: %s", err, out.String())
	}
	templatesDir := filepath.Join(root, "templates")
	templates, err := filepath.Glob(filepath.Join(templatesDir, "cluster-template*.yaml"))
	if err != nil {
		return nil, err
	}
	classes, err := filepath.Glob(filepath.Join(templatesDir, "clusterclass-*.yaml"))
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
		if err := os.WriteFile(filepath.Join(versionDir, filepath.Base(f)), data, 0o600); err != nil {
			return nil, err
		}
	}
	overrides := filepath.Join(dir, "overrides")
	if err := os.MkdirAll(overrides, 0o700); err != nil {
		return nil, err
	}
	return &Repository{
		Dir:           dir,
		Version:       version,
		ComponentsURL: "file://" + filepath.Join(versionDir, "infrastructure-components.yaml"),
		Overrides:     overrides,
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
