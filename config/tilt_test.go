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

package config

import (
	"bufio"
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/yaml"
)

// Tilt support is checked here rather than by running Tilt: Tilt needs Docker and a kind cluster. The tests read
// tilt-provider.yaml the way Cluster API's Tiltfile and its hack/tools/internal/tilt-prepare do, and check what
// those rely on in the provider's kustomize output.

const (
	repoRoot         = ".."
	tiltProviderFile = "tilt-provider.yaml"
	tiltProviderName = "azure"
	// tiltContainer is the container tilt-prepare starts through Tilt's restart script and whose binary it replaces.
	tiltContainer = "manager"
	// tiltDefaultKustomizeFolder is what tilt-prepare builds when kustomize_folder is not set.
	tiltDefaultKustomizeFolder = "config/default"
)

// tiltProvider is one entry of tilt-provider.yaml, with every field Cluster API's Tiltfile and tilt-prepare read;
// the file is decoded strictly, so a misspelt field fails the test instead of being ignored by Tilt.
type tiltProvider struct {
	Name   string              `json:"name"`
	Config *tiltProviderConfig `json:"config"`
}

type tiltProviderConfig struct {
	Context                          *string  `json:"context,omitempty"`
	Version                          *string  `json:"version,omitempty"`
	Image                            string   `json:"image,omitempty"`
	LiveReloadDeps                   []string `json:"live_reload_deps,omitempty"`
	Label                            string   `json:"label,omitempty"`
	GoMain                           *string  `json:"go_main,omitempty"`
	KustomizeFolder                  *string  `json:"kustomize_folder,omitempty"`
	KustomizeOptions                 []string `json:"kustomize_options,omitempty"`
	ApplyProviderYaml                *bool    `json:"apply_provider_yaml,omitempty"`
	AdditionalDockerHelperCommands   string   `json:"additional_docker_helper_commands,omitempty"`
	AdditionalDockerBuildCommands    string   `json:"additional_docker_build_commands,omitempty"`
	AdditionalResources              []string `json:"additional_resources,omitempty"`
	AdditionalUncategorizedResources []string `json:"additional_uncategorized_resources,omitempty"`
	ResourceDeps                     []string `json:"resource_deps,omitempty"`
}

// readTiltProvider returns the entry named azure. Like tilt-prepare, it reads a list only when the file starts with
// "-" or "[", and a single object otherwise.
func readTiltProvider(t *testing.T) tiltProviderConfig {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, tiltProviderFile))
	if err != nil {
		t.Fatal(err)
	}
	var entries []tiltProvider
	if bytes.HasPrefix(data, []byte("-")) || bytes.HasPrefix(data, []byte("[")) {
		if err := yaml.UnmarshalStrict(data, &entries); err != nil {
			t.Fatalf("failed to read %s as a list: %v", tiltProviderFile, err)
		}
	} else {
		var p tiltProvider
		if err := yaml.UnmarshalStrict(data, &p); err != nil {
			t.Fatalf("failed to read %s as one object: %v", tiltProviderFile, err)
		}
		entries = append(entries, p)
	}
	for _, p := range entries {
		if p.Name == tiltProviderName {
			if p.Config == nil {
				t.Fatalf("%s: provider %s has no config section", tiltProviderFile, p.Name)
			}
			return *p.Config
		}
	}
	t.Fatalf("%s has no provider named %s", tiltProviderFile, tiltProviderName)
	return tiltProviderConfig{}
}

// imageRepository strips the tag or digest: Tilt matches images by repository.
func imageRepository(image string) string {
	if at := strings.Index(image, "@"); at >= 0 {
		image = image[:at]
	}
	if colon := strings.LastIndex(image, ":"); colon > strings.LastIndex(image, "/") {
		image = image[:colon]
	}
	return image
}

// makefileImage is the default of IMG in the Makefile: the image the release manifests use.
func makefileImage(t *testing.T) string {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "IMG ?="); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatal("the Makefile does not set IMG ?=")
	return ""
}

func TestTiltProvider_Config(t *testing.T) {
	g := NewWithT(t)
	p := readTiltProvider(t)

	// The Tiltfile builds and live-updates an image only when "image" is set, and Tilt replaces only images that
	// match it; the release uses the same repository.
	g.Expect(p.Image).NotTo(BeEmpty())
	g.Expect(p.Image).To(Equal(imageRepository(p.Image)), "image must not carry a tag: Tilt tags what it builds")
	g.Expect(p.Image).To(Equal(imageRepository(makefileImage(t))), "image differs from the Makefile's IMG")
	manager := &appsv1.Deployment{}
	data, err := os.ReadFile(filepath.Join("manager", "manager.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(yaml.Unmarshal(data, manager)).To(Succeed())
	g.Expect(manager.Spec.Template.Spec.Containers).To(ContainElement(And(
		HaveField("Name", tiltContainer),
		HaveField("Image", WithTransform(imageRepository, Equal(p.Image))),
	)), "config/manager/manager.yaml does not run image %s in a container named %s", p.Image, tiltContainer)

	// The Tiltfile uses the label as the name of the Tilt resources (<label>_binary, <label>_controller).
	g.Expect(p.Label).NotTo(BeEmpty())
	g.Expect(p.Label).NotTo(ContainSubstring(" "))

	// Paths are relative to the context; the context is the repository root.
	g.Expect(p.Context).To(Or(BeNil(), HaveValue(Equal("."))))
	g.Expect(p.ApplyProviderYaml).To(Or(BeNil(), HaveValue(BeTrue())), "Tilt would not apply the provider's components")

	// The Provider object tilt-prepare creates has this version; clusterctl expects it in a release series of
	// metadata.yaml.
	g.Expect(p.Version).NotTo(BeNil(), "without a version tilt-prepare uses Cluster API's own (v1.x)")
	v, err := version.ParseSemantic(*p.Version)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(strings.HasPrefix(*p.Version, "v")).To(BeTrue())
	var metadata struct {
		ReleaseSeries []struct {
			Major    uint   `json:"major"`
			Minor    uint   `json:"minor"`
			Contract string `json:"contract"`
		} `json:"releaseSeries"`
	}
	data, err = os.ReadFile(filepath.Join(repoRoot, "metadata.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(yaml.Unmarshal(data, &metadata)).To(Succeed())
	g.Expect(metadata.ReleaseSeries).To(ContainElement(And(
		HaveField("Major", v.Major()), HaveField("Minor", v.Minor()))), "version %s is in no release series of metadata.yaml", *p.Version)

	// The Tiltfile runs `go build <go_main>` in the context, which compiles that one file: package main must have
	// no other file.
	goMain := "main.go"
	if p.GoMain != nil {
		goMain = *p.GoMain
	}
	mainDir := filepath.Join(repoRoot, filepath.Dir(goMain))
	files, err := filepath.Glob(filepath.Join(mainDir, "*.go"))
	g.Expect(err).NotTo(HaveOccurred())
	var mainFiles []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly)
		g.Expect(err).NotTo(HaveOccurred())
		if file.Name.Name == "main" {
			mainFiles = append(mainFiles, filepath.Base(f))
		}
	}
	g.Expect(mainFiles).To(Equal([]string{filepath.Base(goMain)}),
		"Tilt builds only %s; package main must not have other files", goMain)

	folder := tiltDefaultKustomizeFolder
	if p.KustomizeFolder != nil {
		folder = *p.KustomizeFolder
	}
	g.Expect(filepath.Join(repoRoot, folder, "kustomization.yaml")).To(BeARegularFile())
}

// mainPackageDirs returns the directories, relative to the repository root, of this module's packages that main.go
// builds from.
func mainPackageDirs(t *testing.T) []string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not in PATH (%v)", err)
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	// -e: a package that does not compile right now still has a directory.
	cmd := exec.Command(goTool, "list", "-e", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}", ".")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list failed: %v: %s", err, stderr.String())
	}
	var dirs []string
	for _, dir := range strings.Fields(stdout.String()) {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, filepath.ToSlash(rel))
	}
	if len(dirs) < 2 {
		t.Fatalf("go list found too few packages: %v", dirs)
	}
	return dirs
}

// covered reports whether path is one of roots or lies under one of them.
func covered(path string, roots []string) bool {
	for _, r := range roots {
		r = strings.TrimSuffix(filepath.ToSlash(filepath.Clean(r)), "/")
		if path == r || strings.HasPrefix(path, r+"/") {
			return true
		}
	}
	return false
}

// TestTiltProvider_LiveReloadDeps checks that a change to any source the manager is built from makes Tilt rebuild
// it, and that the Docker build context (.dockerignore) lets those sources in too.
func TestTiltProvider_LiveReloadDeps(t *testing.T) {
	g := NewWithT(t)
	p := readTiltProvider(t)

	for _, dep := range p.LiveReloadDeps {
		g.Expect(filepath.Join(repoRoot, dep)).To(BeAnExistingFile(), "live_reload_deps: %s does not exist", dep)
	}
	goMain := "main.go"
	if p.GoMain != nil {
		goMain = *p.GoMain
	}
	sources := []string{goMain, "go.mod", "go.sum"}
	for _, dir := range mainPackageDirs(t) {
		if dir != "." {
			sources = append(sources, dir)
		}
	}
	for _, s := range sources {
		g.Expect(covered(s, p.LiveReloadDeps)).To(BeTrue(), "live_reload_deps does not cover %s, which the manager is built from", s)
	}

	// .dockerignore excludes everything ("*") and lets in top-level entries with "!".
	data, err := os.ReadFile(filepath.Join(repoRoot, ".dockerignore"))
	g.Expect(err).NotTo(HaveOccurred())
	var patterns, allowed []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		patterns = append(patterns, line)
		if a, ok := strings.CutPrefix(line, "!"); ok {
			allowed = append(allowed, a)
		}
	}
	g.Expect(patterns).NotTo(BeEmpty())
	g.Expect(patterns[0]).To(Equal("*"), ".dockerignore should start by excluding everything")
	for _, s := range sources {
		g.Expect(covered(s, allowed)).To(BeTrue(), ".dockerignore keeps %s, which the manager is built from, out of the image build", s)
	}
}

// TestTiltProvider_Components builds the kustomize folder Tilt applies and checks what tilt-prepare and the
// Tiltfile rely on: the first Namespace names the provider, exactly one Deployment is labelled as the provider's,
// and it runs the image in a container named manager. It also checks that Tilt runs the release's components.
func TestTiltProvider_Components(t *testing.T) {
	g := NewWithT(t)
	p := readTiltProvider(t)
	folder := tiltDefaultKustomizeFolder
	if p.KustomizeFolder != nil {
		folder = *p.KustomizeFolder
	}

	release := componentsYAML(t)
	kustomize, err := env.Tool("kustomize")
	g.Expect(err).NotTo(HaveOccurred())
	args := append([]string{"build"}, p.KustomizeOptions...)
	args = append(args, folder)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(kustomize, args...)
	cmd.Dir = repoRoot
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	g.Expect(cmd.Run()).To(Succeed(), "kustomize build %s: %s", folder, stderr.String())
	// tilt-prepare substitutes variables from the environment, with their defaults, as clusterctl does.
	objs := decode(t, withDefaults(t, stdout.Bytes(), nil))

	// tilt-prepare names the clusterctl Provider object after the first Namespace's provider label.
	var namespace *unstructured.Unstructured
	for i := range objs {
		if objs[i].GetKind() == "Namespace" {
			namespace = &objs[i]
			break
		}
	}
	g.Expect(namespace).NotTo(BeNil(), "no Namespace in %s", folder)
	g.Expect(namespace.GetLabels()).To(HaveKeyWithValue(providerLabel, "infrastructure-"+tiltProviderName))

	// The Tiltfile's workload is the first Deployment with the provider label, and tilt-prepare replaces the
	// command of the manager container of every such Deployment; only ours may carry it.
	var labelled []string
	for i := range objs {
		if objs[i].GetKind() != "Deployment" {
			continue
		}
		if _, ok := objs[i].GetLabels()[providerLabel]; !ok {
			continue
		}
		labelled = append(labelled, objs[i].GetName())
		d := convert[appsv1.Deployment](t, &objs[i])
		g.Expect(d.Spec.Template.Spec.Containers).To(ContainElement(And(
			HaveField("Name", tiltContainer),
			HaveField("Image", WithTransform(imageRepository, Equal(p.Image))),
		)), "Deployment %s is labelled %s but does not run %s in a container named %s", d.Name, providerLabel, p.Image, tiltContainer)
	}
	g.Expect(labelled).To(Equal([]string{managerDeployment}))

	// Tilt runs the release's components: the same objects as config/default, except for the label Tilt must not see
	// on ASO's Deployment.
	want := decode(t, withDefaults(t, release, nil))
	asoManager := find(want, "Deployment", asoDeployment)
	g.Expect(asoManager).NotTo(BeNil())
	labels := asoManager.GetLabels()
	delete(labels, providerLabel)
	asoManager.SetLabels(labels)
	key := func(o unstructured.Unstructured) string {
		return fmt.Sprintf("%s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName())
	}
	got := map[string]unstructured.Unstructured{}
	for _, o := range objs {
		got[key(o)] = o
	}
	g.Expect(got).To(HaveLen(len(want)))
	for _, o := range want {
		g.Expect(got).To(HaveKeyWithValue(key(o), Equal(o)), "%s differs between %s and config/default", key(o), folder)
	}
}
