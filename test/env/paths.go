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

package env

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// modulePath is the module whose go.mod marks the repository root.
const modulePath = "github.com/capzaso/cluster-api-provider-azure"

// clusterAPIModule holds the Cluster API CRDs in its source tree.
const clusterAPIModule = "sigs.k8s.io/cluster-api"

// Paths relative to the repository root.
var (
	toolsBinDir = filepath.Join("hack", "tools", "bin")
	asoCRDDir   = filepath.Join("test", "crd", "aso")
	// Our CRDs; they are skipped while they do not exist.
	ownCRDDirs = []string{
		filepath.Join("config", "crd", "bases"),
		filepath.Join("exp", "config", "crd", "bases"),
	}
	webhookManifest = filepath.Join("config", "webhook", "manifests.yaml")
)

// Paths relative to the Cluster API module.
var clusterAPICRDDirs = []string{
	filepath.Join("core", "config", "crd", "bases"),
	filepath.Join("bootstrap", "kubeadm", "config", "crd", "bases"),
	filepath.Join("controlplane", "kubeadm", "config", "crd", "bases"),
}

// repoRoot finds the repository root by walking up to the go.mod of our module,
// first from the working directory (a test's package directory, or wherever a
// dev command runs) and then from this source file.
func repoRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	for _, start := range starts {
		for dir := start; ; dir = filepath.Dir(dir) {
			if isModuleRoot(dir) {
				return dir, nil
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return "", fmt.Errorf("failed to find the repository root (the go.mod of %s) above %s", modulePath, strings.Join(starts, " or "))
}

// isModuleRoot tells whether dir holds the go.mod of our module.
func isModuleRoot(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	s := bufio.NewScanner(bytes.NewReader(data))
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], "\"") == modulePath
		}
	}
	return false
}

// RepoRoot returns the repository root: the directory of the provider module's go.mod.
func RepoRoot() (string, error) {
	return repoRoot()
}

// Tool returns the path of a pinned tool in the repository's hack/tools/bin (kustomize, kubectl, ...), or an error
// that says how to build it.
func Tool(name string) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	return toolPath(root, name)
}

// toolPath returns the unversioned link in hack/tools/bin that `make tools`
// points at the pinned build of name, and fails with a hint when it is missing.
func toolPath(root, name string) (string, error) {
	path := filepath.Join(root, toolsBinDir, name)
	info, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s not found at %s: run 'make tools' (or 'make test-tools') in %s first", name, path, root)
		}
		return "", fmt.Errorf("failed to check %s: %w", path, err)
	}
	if info.IsDir() || info.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s is not an executable file: run 'make tools' in %s", path, root)
	}
	return path, nil
}

// clusterAPIDir returns the source directory of the Cluster API module in the
// module cache. Its version is the main module's requirement or, while only
// sigs.k8s.io/cluster-api/api is required, that module's version (both are
// released together). It is downloaded through the module proxy if needed.
func clusterAPIDir(ctx context.Context, root string) (string, error) {
	dir, version, err := listModule(ctx, root, clusterAPIModule)
	if err != nil {
		if _, version, err = listModule(ctx, root, clusterAPIModule+"/api"); err != nil {
			return "", err
		}
	}
	if dir != "" {
		return dir, nil
	}
	return downloadModule(ctx, clusterAPIModule, version)
}

// listModule returns the directory (empty if not downloaded) and version of a
// module in the main module's build list.
func listModule(ctx context.Context, root, module string) (dir, version string, err error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}|{{.Version}}", module)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("failed to run go list -m %s: %w: %s", module, err, strings.TrimSpace(stderr.String()))
	}
	dir, version, _ = strings.Cut(strings.TrimSpace(string(out)), "|")
	return dir, version, nil
}

// downloadModule downloads module@version into the module cache and returns its
// directory. It runs outside the main module so that go.sum is not touched.
func downloadModule(ctx context.Context, module, version string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", module+"@"+version)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	out, err := cmd.Output()
	var result struct{ Dir, Error string }
	if jsonErr := json.Unmarshal(out, &result); jsonErr != nil && err == nil {
		err = jsonErr
	}
	if err == nil && result.Dir == "" {
		err = errors.New(result.Error)
	}
	if err != nil {
		return "", fmt.Errorf("failed to download %s@%s: %w", module, version, err)
	}
	return result.Dir, nil
}

// crdDirectories returns the CRD directories to install: Cluster API's, which must
// exist, then the provider's: providerDirs when set (another provider's, which must exist), else ours, which are
// skipped while missing (the ASO CRDs are installASO's).
func crdDirectories(ctx context.Context, root string, providerDirs []string) ([]string, error) {
	capiDir, err := clusterAPIDir(ctx, root)
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, d := range clusterAPICRDDirs {
		dir := filepath.Join(capiDir, d)
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("failed to find the Cluster API CRDs: %w", err)
		}
		dirs = append(dirs, dir)
	}

	if len(providerDirs) > 0 {
		for _, dir := range providerDirs {
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				return nil, fmt.Errorf("failed to find the provider's CRDs in %s: not a directory", dir)
			}
		}
		return append(dirs, providerDirs...), nil
	}
	for _, d := range ownCRDDirs {
		dir := filepath.Join(root, d)
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			dirs = append(dirs, dir)
		}
	}
	return dirs, nil
}
