# Copyright 2026 The Cluster API Provider Azure ASO Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

SHELL := /usr/bin/env bash -o errexit -o pipefail -o nounset
.DEFAULT_GOAL := help
.SUFFIXES:

ROOT_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

# Pinned versions (DESIGN.md §1). Change them here only; hack/tools/<tool>/go.mod
# must pin the same version (hack/ensure-tool.sh checks it before building).
KUBE_APISERVER_VERSION := v1.36.3
ETCD_VERSION := v3.6.16
# kubectl is only for people using the local management plane (make run); tests do not need it.
KUBECTL_VERSION := v1.36.3
# clusterctl comes from the Cluster API module the provider is built against (go.mod); the clusterctl test runs it.
CLUSTERCTL_VERSION := v1.14.2
CONTROLLER_GEN_VERSION := v0.21.0
# v5.8.3 needs go >= 1.27; v5.8.2 is the newest v5.8.x that builds with Go 1.26.
KUSTOMIZE_VERSION := v5.8.2
# The linter of make verify (.golangci.yml): v2.15.0 builds with Go 1.26.
GOLANGCI_LINT_VERSION := v2.15.0
# Only renders ASO's chart (make generate-aso-bundle); v3.19.x installs with go install and builds with Go 1.26.
HELM_VERSION := v3.19.5
ASO_VERSION := v2.18.0
# ASO's controller, built unmodified from the module the provider's go.mod requires (ASO_VERSION); test/env runs it
# in webhooks mode in front of every ASO write.
ASO_CONTROLLER_VERSION := $(ASO_VERSION)

# The manager image in the release manifests (make release-manifests IMG=registry/name:tag).
IMG ?= ghcr.io/capzaso/cluster-api-azure-controller:dev
RELEASE_DIR := out

# Tool binaries: version-named files in hack/tools/bin are the build stamps.
TOOLS_BIN_DIR := $(ROOT_DIR)/hack/tools/bin
KUBE_APISERVER := $(TOOLS_BIN_DIR)/kube-apiserver-$(KUBE_APISERVER_VERSION)
# kube-controller-manager comes from the same k8s.io/kubernetes release as kube-apiserver.
KUBE_CONTROLLER_MANAGER := $(TOOLS_BIN_DIR)/kube-controller-manager-$(KUBE_APISERVER_VERSION)
ETCD := $(TOOLS_BIN_DIR)/etcd-$(ETCD_VERSION)
CONTROLLER_GEN := $(TOOLS_BIN_DIR)/controller-gen-$(CONTROLLER_GEN_VERSION)
KUSTOMIZE := $(TOOLS_BIN_DIR)/kustomize-$(KUSTOMIZE_VERSION)
HELM := $(TOOLS_BIN_DIR)/helm-$(HELM_VERSION)
KUBECTL := $(TOOLS_BIN_DIR)/kubectl-$(KUBECTL_VERSION)
CLUSTERCTL := $(TOOLS_BIN_DIR)/clusterctl-$(CLUSTERCTL_VERSION)
ASO_CONTROLLER := $(TOOLS_BIN_DIR)/aso-controller-$(ASO_CONTROLLER_VERSION)
GOLANGCI_LINT := $(TOOLS_BIN_DIR)/golangci-lint-$(GOLANGCI_LINT_VERSION)
ENSURE_TOOL := $(ROOT_DIR)/hack/ensure-tool.sh

# kube-apiserver reports this version (tests check it), so stamp it like a release build.
KUBE_APISERVER_MAJOR := $(word 1,$(subst ., ,$(KUBE_APISERVER_VERSION:v%=%)))
KUBE_APISERVER_MINOR := $(word 2,$(subst ., ,$(KUBE_APISERVER_VERSION:v%=%)))
KUBE_APISERVER_LDFLAGS := -s -w \
	-X k8s.io/component-base/version.gitVersion=$(KUBE_APISERVER_VERSION) \
	-X k8s.io/component-base/version.gitMajor=$(KUBE_APISERVER_MAJOR) \
	-X k8s.io/component-base/version.gitMinor=$(KUBE_APISERVER_MINOR)

# clusterctl version reports this version, as a release build does.
CLUSTERCTL_MAJOR := $(word 1,$(subst ., ,$(CLUSTERCTL_VERSION:v%=%)))
CLUSTERCTL_MINOR := $(word 2,$(subst ., ,$(CLUSTERCTL_VERSION:v%=%)))
CLUSTERCTL_LDFLAGS := -s -w \
	-X sigs.k8s.io/cluster-api/version.gitVersion=$(CLUSTERCTL_VERSION) \
	-X sigs.k8s.io/cluster-api/version.gitMajor=$(CLUSTERCTL_MAJOR) \
	-X sigs.k8s.io/cluster-api/version.gitMinor=$(CLUSTERCTL_MINOR) \
	-X sigs.k8s.io/cluster-api/version.gitTreeState=clean

# aso-controller version reports this version (ASO's release builds stamp it the same way).
ASO_CONTROLLER_LDFLAGS := -s -w -X github.com/Azure/azure-service-operator/v2/internal/version.BuildVersion=$(ASO_CONTROLLER_VERSION)

# Compiler flags of the tools. None of them is debugged here, so no package carries DWARF (-s -w drops it at link
# time anyway; -dwarf=false saves generating it, about a tenth of the compile). ASO's controller and clusterctl do
# little work in the tests, so they are compiled without optimizations too (about a quarter less compile time;
# ASO's alone takes minutes); kube-apiserver, kube-controller-manager and etcd serve every test and stay optimized,
# and so does kubectl, which then shares most of its packages with them.
TOOLS_GCFLAGS := -dwarf=false
TOOLS_GCFLAGS_UNOPTIMIZED := -N -l -dwarf=false

# The ASO CRDs the test API server installs: the kinds of hack/aso-kinds.txt, each with every version ASO serves.
ASO_CRD_DIR := test/crd/aso
# The ASO CRDs upstream CAPZ reads besides those (hack/aso-kinds-capz.txt), which make parity installs for CAPZ.
ASO_CAPZ_CRD_DIR := test/crd/aso-capz

# Our API packages; they may not exist yet, so generation skips what is missing.
API_DIRS := $(wildcard api exp/api)
BOILERPLATE := hack/boilerplate/boilerplate.go.txt
GENERATED_PATHS := api exp config $(ASO_CRD_DIR) $(ASO_CAPZ_CRD_DIR) templates

# A test binary's limit: the longest (templates, test/chaos) take up to 15 minutes under -race when they run beside
# each other on 2 cores.
TEST_TIMEOUT ?= 30m
# Tests run with the race detector. Their binaries carry no DWARF (stack traces and race reports do not need it):
# a tenth less compile time and much quicker links of the 40-odd test binaries. rbaccheck is built with the same
# flags after them, so that it reuses their compiled packages (about 800) instead of compiling them again.
GO_BUILD_FLAGS := -race -gcflags=all=-dwarf=false -ldflags=-w
GO_TEST_FLAGS ?= $(GO_BUILD_FLAGS)
# The garbage collector's target of every process make test runs (the test binaries, and the API servers, etcds and
# controllers they start): letting their heaps grow four times as far between collections trades memory, which the
# machine has, for CPU, which it lacks (./controllers/azuremachine: 15% less CPU; its largest process 2.7 GB instead
# of 1.2 GB).
TEST_GOGC ?= 400
# The packages make test runs, the longest first: go test starts packages in the order given, so the long ones run
# beside the many short ones instead of one of them ending the run alone on a core.
TEST_PACKAGES ?= ./test/chaos ./templates ./test/realaso ./exp/controllers/azuremachinepool ./test/bench ./test/e2e \
	./test/clusterctl ./test/move ./controllers/azurecluster ./hack/localplane ./...

.PHONY: help
help: ## Show this help.
	@awk -F ':.*## ' ' \
		/^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5); next } \
		/^[A-Za-z0-9_.-]+:.*## / { printf "  \033[36m%-22s\033[0m %s\n", $$1, $$2 } \
	' $(MAKEFILE_LIST)

##@ generate

.PHONY: generate
generate: generate-go generate-manifests generate-aso-crds generate-aso-bundle generate-flavors ## Run every generator.

.PHONY: generate-go
generate-go: $(CONTROLLER_GEN) ## Generate deepcopy code for api/ and exp/api/.
	@if [[ -z "$(API_DIRS)" ]]; then echo "generate-go: no api/ or exp/api/ yet, skipping"; exit 0; fi; \
	$(CONTROLLER_GEN) object:headerFile=$(BOILERPLATE) $(foreach d,$(API_DIRS),paths=./$(d)/...)

.PHONY: generate-manifests
generate-manifests: $(CONTROLLER_GEN) ## Generate CRDs, RBAC and webhook manifests into config/.
	@if [[ -z "$(API_DIRS)" ]]; then echo "generate-manifests: no api/ or exp/api/ yet, skipping"; exit 0; fi; \
	rm -f config/crd/bases/*.yaml; \
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd webhook paths=./... \
		output:crd:artifacts:config=config/crd/bases \
		output:rbac:artifacts:config=config/rbac \
		output:webhook:artifacts:config=config/webhook

.PHONY: generate-aso-crds
generate-aso-crds: $(CONTROLLER_GEN) ## Generate the ASO CRDs that tests install into test/crd/aso, and those make parity adds for CAPZ into test/crd/aso-capz.
	@hack/generate-aso-crds.sh $(CONTROLLER_GEN) $(ASO_VERSION) $(ASO_CRD_DIR)
	@hack/generate-aso-crds.sh $(CONTROLLER_GEN) $(ASO_VERSION) $(ASO_CAPZ_CRD_DIR) hack/aso-kinds-capz.txt

.PHONY: generate-aso-bundle
generate-aso-bundle: $(HELM) $(CONTROLLER_GEN) ## Render the bundled ASO controller from its chart into config/aso.
	@hack/generate-aso-bundle.sh $(HELM) $(CONTROLLER_GEN) $(ASO_VERSION) config/aso

.PHONY: generate-flavors
generate-flavors: $(KUSTOMIZE) ## Render the cluster templates (templates/cluster-template*.yaml, clusterclass-*.yaml) from templates/flavors, and their v1beta1 form (templates/testdata/v1beta1).
	@hack/generate-flavors.sh $(KUSTOMIZE)
	@go run ./hack/v1beta1corpus templates templates/testdata/v1beta1

##@ lint and verify

.PHONY: verify
verify: verify-boilerplate verify-fmt verify-modules verify-gen verify-release vet lint ## Run every check CI needs besides tests.

.PHONY: lint
lint: $(GOLANGCI_LINT) ## Run golangci-lint (.golangci.yml): correctness linters and the layering rules of DESIGN.md.
	$(GOLANGCI_LINT) run ./...

.PHONY: verify-gen
verify-gen: generate ## Check that generated files are up to date and committed.
	@if ! git diff --quiet --exit-code -- $(GENERATED_PATHS); then \
		git diff --stat -- $(GENERATED_PATHS); \
		echo "verify-gen: generated files changed; run 'make generate' and commit the result" >&2; exit 1; fi
	@untracked=$$(git ls-files --others --exclude-standard -- $(GENERATED_PATHS)); \
	if [[ -n "$$untracked" ]]; then echo "$$untracked"; \
		echo "verify-gen: generated files are not committed" >&2; exit 1; fi

.PHONY: verify-aso-crds
verify-aso-crds: $(CONTROLLER_GEN) ## Check that test/crd/aso and test/crd/aso-capz match a fresh generation.
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	hack/generate-aso-crds.sh $(CONTROLLER_GEN) $(ASO_VERSION) "$$tmp/aso"; \
	hack/generate-aso-crds.sh $(CONTROLLER_GEN) $(ASO_VERSION) "$$tmp/aso-capz" hack/aso-kinds-capz.txt; \
	for d in aso aso-capz; do \
		if ! diff -r test/crd/$$d "$$tmp/$$d" >/dev/null; then \
			diff -r test/crd/$$d "$$tmp/$$d" | head -n 50 || true; \
			echo "verify-aso-crds: test/crd/$$d is stale; run 'make generate-aso-crds'" >&2; exit 1; fi; \
	done

.PHONY: verify-modules
verify-modules: ## Check that go.mod and go.sum of every module are tidy.
	go mod tidy -diff
	@for m in hack/tools/*/; do echo "go mod tidy -diff ($$m)"; (cd "$$m" && go mod tidy -diff); done

.PHONY: verify-boilerplate
verify-boilerplate: ## Check that every Go file starts with the license header (after a //go:build line).
	@n=$$(wc -l < $(BOILERPLATE)); bad=0; \
	while IFS= read -r f; do \
		first=$$(head -n 1 "$$f"); from=1; [[ $$first != //go:build* ]] || from=3; \
		header=$$(sed -n "$$from,$$((from + n - 1))p" "$$f"); \
		[[ "$$header" == "$$(cat $(BOILERPLATE))" ]] || { echo "missing or wrong header: $$f"; bad=1; }; \
	done < <(git ls-files --cached --others --exclude-standard -- '*.go'); \
	exit $$bad

.PHONY: verify-fmt
verify-fmt: ## Check gofmt.
	@out=$$(git ls-files --cached --others --exclude-standard -- '*.go' | xargs -r gofmt -l); \
	if [[ -n "$$out" ]]; then echo "$$out"; echo "verify-fmt: run gofmt -w on the files above" >&2; exit 1; fi

.PHONY: vet
vet: ## Run go vet.
	go vet ./...

##@ build

.PHONY: build
build: ## Build the manager binary into bin/manager.
	go build -o bin/manager .

# make image: the platforms (GOARCH: one, or several space- or comma-separated), and the engine (empty: docker when
# its daemon answers, else podman; it may carry global flags).
ARCH ?= $(shell go env GOARCH)
CONTAINER_ENGINE ?=

.PHONY: image
image: ## Build the manager image IMG for linux/ARCH (one or more GOARCHes; several: IMG-<arch> each) with docker or podman: the manager built on the host, FROM scratch, nothing pulled (hack/image; the Dockerfile builds the same from the sources).
	@CONTAINER_ENGINE="$(CONTAINER_ENGINE)" hack/image/build.sh "$(IMG)" "$(ARCH)" out/image

.PHONY: run
run: test-tools ## Run the local management plane (Cluster API and the provider in-process, simulated ASO and workload clusters) with sample clusters until Ctrl-C (RUN_ARGS=--help for its flags).
	go build -o bin/localplane ./hack/localplane
	bin/localplane $(RUN_ARGS)

.PHONY: tools
tools: kube-apiserver kube-controller-manager etcd controller-gen kustomize helm kubectl clusterctl aso-controller golangci-lint ## Build every pinned tool into hack/tools/bin.

# The tools the tests need are built three at a time (TOOLS_JOBS): one go build keeps two cores busy only part of
# the time (ASO's large generated packages compile one at a time, each link runs alone), so a cold build of them
# all takes about half the wall time it takes one after another. kube-controller-manager and kubectl are built
# after kube-apiserver, with its compiler flags, and reuse the Kubernetes packages it compiled.
TOOLS_JOBS ?= 3

.PHONY: test-tools
test-tools: ## Build the tools the tests need (kube-apiserver, kube-controller-manager, etcd, kustomize, ASO's controller; kubectl for the make run test; clusterctl for test/clusterctl).
	@$(MAKE) --no-print-directory -j $(TOOLS_JOBS) --output-sync=target kube-apiserver kube-controller-manager etcd kubectl kustomize clusterctl aso-controller

.PHONY: kube-apiserver
kube-apiserver: $(KUBE_APISERVER) ## Build kube-apiserver and point hack/tools/bin/kube-apiserver at it.
	@ln -sfn $(notdir $<) $(TOOLS_BIN_DIR)/kube-apiserver

.PHONY: kube-controller-manager
kube-controller-manager: $(KUBE_CONTROLLER_MANAGER) ## Build kube-controller-manager (its garbage collector and namespace controller run in the tests and make run).
	@ln -sfn $(notdir $<) $(TOOLS_BIN_DIR)/kube-controller-manager

.PHONY: etcd
etcd: $(ETCD) ## Build etcd and point hack/tools/bin/etcd at it.
	@ln -sfn $(notdir $<) $(TOOLS_BIN_DIR)/etcd

.PHONY: kubectl
kubectl: $(KUBECTL) ## Build kubectl and point hack/tools/bin/kubectl at it (for use with make run).
	@ln -sfn $(notdir $<) $(TOOLS_BIN_DIR)/kubectl

.PHONY: clusterctl
clusterctl: $(CLUSTERCTL) ## Build clusterctl and point hack/tools/bin/clusterctl at it.
	@ln -sfn $(notdir $<) $(TOOLS_BIN_DIR)/clusterctl

.PHONY: aso-controller
aso-controller: $(ASO_CONTROLLER) ## Build ASO's controller (its webhooks serve in test/env and make run) and point hack/tools/bin/aso-controller at it.
	@ln -sfn $(notdir $<) $(TOOLS_BIN_DIR)/aso-controller

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Build controller-gen.

.PHONY: kustomize
kustomize: $(KUSTOMIZE) ## Build kustomize and point hack/tools/bin/kustomize at it.
	@ln -sfn $(notdir $<) $(TOOLS_BIN_DIR)/kustomize

.PHONY: helm
helm: $(HELM) ## Build helm.

.PHONY: golangci-lint
golangci-lint: $(GOLANGCI_LINT) ## Build golangci-lint.

$(KUBE_APISERVER): ## Build kube-apiserver from hack/tools/kube-apiserver.
	$(ENSURE_TOOL) build kube-apiserver $(KUBE_APISERVER_VERSION) hack/tools/kube-apiserver k8s.io/kubernetes "$(KUBE_APISERVER_LDFLAGS)" . "$(TOOLS_GCFLAGS)"

$(KUBE_CONTROLLER_MANAGER): | $(KUBE_APISERVER) ## Build kube-controller-manager from hack/tools/kube-controller-manager.
	$(ENSURE_TOOL) build kube-controller-manager $(KUBE_APISERVER_VERSION) hack/tools/kube-controller-manager k8s.io/kubernetes "$(KUBE_APISERVER_LDFLAGS)" . "$(TOOLS_GCFLAGS)"

$(ETCD): ## Build etcd from hack/tools/etcd.
	$(ENSURE_TOOL) build etcd $(ETCD_VERSION) hack/tools/etcd go.etcd.io/etcd/server/v3 "-s -w" . "$(TOOLS_GCFLAGS)"

$(KUBECTL): | $(KUBE_CONTROLLER_MANAGER) ## Build kubectl from hack/tools/kubectl.
	$(ENSURE_TOOL) build kubectl $(KUBECTL_VERSION) hack/tools/kubectl k8s.io/kubectl "$(subst $(KUBE_APISERVER_VERSION),$(KUBECTL_VERSION),$(KUBE_APISERVER_LDFLAGS))" . "$(TOOLS_GCFLAGS)"

$(CLUSTERCTL): ## Build clusterctl from hack/tools/clusterctl.
	$(ENSURE_TOOL) build clusterctl $(CLUSTERCTL_VERSION) hack/tools/clusterctl sigs.k8s.io/cluster-api "$(CLUSTERCTL_LDFLAGS)" . "$(TOOLS_GCFLAGS_UNOPTIMIZED)"

$(ASO_CONTROLLER): ## Build ASO's controller from hack/tools/aso (about 730 CPU-seconds and 6 GB of memory; 12 minutes beside the other tools on 2 cores).
	$(ENSURE_TOOL) build aso-controller $(ASO_CONTROLLER_VERSION) hack/tools/aso github.com/Azure/azure-service-operator/v2 "$(ASO_CONTROLLER_LDFLAGS)" github.com/Azure/azure-service-operator/v2/cmd/controller "$(TOOLS_GCFLAGS_UNOPTIMIZED)"

$(CONTROLLER_GEN): ## Install controller-gen.
	$(ENSURE_TOOL) install controller-gen $(CONTROLLER_GEN_VERSION) sigs.k8s.io/controller-tools/cmd/controller-gen

$(KUSTOMIZE): ## Install kustomize.
	$(ENSURE_TOOL) install kustomize $(KUSTOMIZE_VERSION) sigs.k8s.io/kustomize/kustomize/v5

$(GOLANGCI_LINT): ## Install golangci-lint.
	$(ENSURE_TOOL) install golangci-lint $(GOLANGCI_LINT_VERSION) github.com/golangci/golangci-lint/v2/cmd/golangci-lint

$(HELM): ## Install helm.
	$(ENSURE_TOOL) install helm $(HELM_VERSION) helm.sh/helm/v3/cmd/helm

.PHONY: clean
clean: ## Remove build outputs (bin/, out/).
	rm -rf bin out

.PHONY: clean-tools
clean-tools: ## Remove hack/tools/bin (the per-user tool cache stays).
	rm -rf $(TOOLS_BIN_DIR)

##@ test

# make test records the requests of the provider's ServiceAccount in every test environment (test/env) into a fresh
# directory, and then test/rbaccheck checks the provider's roles against them: no wildcard, nothing denied, every
# rule used. -count=1: a result from go's test cache records no requests (the test environments read the
# directory in TestMain, before go test watches the environment, so a new directory does not invalidate the cache).
#
# With TEST_PROFILE=<directory> (make test-profile), hack/testprofile measures the run: the tools built (by
# hack/ensure-tool.sh), every compile and link, every test binary with the processes it starts, every top-level
# test; it prints the tables at the end and writes them to <directory>/report.md.
TEST_PROFILE ?=
TESTPROFILE := $(TOOLS_BIN_DIR)/testprofile
ifneq ($(TEST_PROFILE),)
export CAPZASO_PROFILE_DIR := $(abspath $(TEST_PROFILE))
GO_TEST := $(TESTPROFILE) run "go test" -- go test -json -exec "$(TESTPROFILE) exec" -toolexec "$(TESTPROFILE) toolexec"
GO_TEST_OUTPUT := | $(TESTPROFILE) render
else
GO_TEST := go test
GO_TEST_OUTPUT :=
endif

.PHONY: test
test: test-tools ## Run all tests, including the ones on a real API server, then check the provider's RBAC against the requests they made.
	@if [[ -n "$(TEST_PROFILE)" ]]; then mkdir -p "$(TEST_PROFILE)" && go build -o $(TESTPROFILE) ./hack/testprofile; fi
	usage=$$(mktemp -d); trap 'rm -rf "$$usage"' EXIT; status=0; \
	CAPZASO_RBAC_USAGE_DIR=$$usage GOGC=$(TEST_GOGC) $(GO_TEST) $(GO_TEST_FLAGS) -count=1 -timeout $(TEST_TIMEOUT) $(TEST_PACKAGES) $(GO_TEST_OUTPUT) || status=$$?; \
	if [[ -n "$(TEST_PROFILE)" ]]; then $(TESTPROFILE) report | tee "$(TEST_PROFILE)/report.md"; fi; \
	[[ $$status -eq 0 ]] || exit $$status; \
	go run $(GO_BUILD_FLAGS) ./test/rbaccheck "$$usage"

# make test-image runs podman so: with runc and cgroupfs (crun refuses a hybrid cgroup hierarchy), and, in podman
# run, ulimits within what the machine allows (podman's defaults exceed them).
PODMAN ?= podman --runtime runc --cgroup-manager cgroupfs
PODMAN_RUN_FLAGS ?= --ulimit nofile=1000:1000 --ulimit nproc=1000:1000

# The image test (test/image) runs with make test's build flags, so that it and the local plane it builds reuse the
# packages make test compiled.
.PHONY: test-image
test-image: test-tools $(KUSTOMIZE) ## Build the manager image with podman (apt-get installs podman and runc when missing) and run it exactly as the release manifests' Deployment says against a local management plane: probes, metrics, webhooks, a sample cluster, SIGTERM (test/image).
	@hack/image/ensure-podman.sh
	@$(MAKE) --no-print-directory image CONTAINER_ENGINE="$(PODMAN)" ARCH="$$(go env GOARCH)"
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	hack/release-manifests.sh $(KUSTOMIZE) "$(IMG)" "$$tmp"; \
	CAPZASO_TEST_IMAGE="$(IMG)" CAPZASO_TEST_IMAGE_COMPONENTS="$$tmp/infrastructure-components.yaml" \
	CAPZASO_TEST_IMAGE_PODMAN="$(PODMAN)" CAPZASO_TEST_IMAGE_PODMAN_RUN_FLAGS="$(PODMAN_RUN_FLAGS)" \
	go test $(GO_BUILD_FLAGS) -count=1 -timeout 20m -v -run '^TestImage$$' ./test/image

# Where make test-profile keeps its records and report.
PROFILE_DIR ?= out/test-profile

.PHONY: test-profile
test-profile: ## Run make test and print what it cost: CPU-seconds and wall time per test package (with the API servers, etcd and controllers its tests start), per top-level test, per compile and link, and per tool built (records and report.md in PROFILE_DIR, default out/test-profile).
	rm -rf $(PROFILE_DIR)
	$(MAKE) test TEST_PROFILE=$(PROFILE_DIR)

# make goldens reconciles every flavor, in both its forms, on ASO's own controllers against test/fakearm (the
# templates tests with TEMPLATES_ASO=fake-arm) and compares the first PUT of every resource with the ARM golden
# files in templates/testdata/arm; UPDATE_GOLDENS=1 rewrites them from those requests (review the diff). make test
# compares the same files with ASO's own ARM conversion run in process (templates) and, for the default and aks-aso
# flavors, with ASO's controller (test/realaso).
UPDATE_GOLDENS ?=
.PHONY: goldens
goldens: test-tools ## Compare the ARM requests of every flavor (both forms) on ASO's own controllers with templates/testdata/arm (UPDATE_GOLDENS=1 rewrites them).
	TEMPLATES_ASO=fake-arm UPDATE_GOLDENS=$(UPDATE_GOLDENS) go test -count=1 -timeout 120m ./templates -run '^TestFlavors$$'

# make parity runs upstream CAPZ beside the provider (test/parity, docs/capz-parity.md). It builds nothing of CAPZ:
# CAPZ_SRC is CAPZ's source tree at v1.26.0 (its CRDs, webhook configuration and templates are read at run time) and
# CAPZ_MANAGER its v1.26.0 manager binary. PARITY_ARGS are the command's flags (PARITY_ARGS=--help lists them).
CAPZ_SRC ?=
CAPZ_MANAGER ?=
PARITY_ARGS ?=

.PHONY: parity
parity: ## Run upstream CAPZ v1.26.0 (CAPZ_SRC=<source tree> CAPZ_MANAGER=<binary>) and the provider on the same flavors against fake ARMs, print their ARM requests resource by resource, and fail on a difference docs/capz-parity.md does not document.
	@if [[ -z "$(CAPZ_SRC)" || -z "$(CAPZ_MANAGER)" ]]; then \
		echo "make parity: set CAPZ_SRC to CAPZ's source tree at tag v1.26.0 (git clone --branch v1.26.0 https://github.com/kubernetes-sigs/cluster-api-provider-azure)" >&2; \
		echo "  and CAPZ_MANAGER to its v1.26.0 manager binary: /manager of registry.k8s.io/cluster-api-azure/cluster-api-azure-controller:v1.26.0," >&2; \
		echo "  or one built as CAPZ's own instructions say. make parity builds nothing of CAPZ; see docs/capz-parity.md." >&2; \
		exit 2; fi
	@$(MAKE) --no-print-directory test-tools
	go run ./test/parity/cmd/parity --capz-src="$(CAPZ_SRC)" --capz-manager="$(CAPZ_MANAGER)" $(PARITY_ARGS)

.PHONY: parity-switch
parity-switch: ## Build the flavors with upstream CAPZ v1.26.0 (CAPZ_SRC, CAPZ_MANAGER as for make parity), switch them to the provider, back to CAPZ and to the provider again on the same management plane, and fail on any resource a switch creates or deletes or any change the table of docs/migrating-from-capz.md does not list.
	@$(MAKE) --no-print-directory parity PARITY_ARGS="--switch $(PARITY_ARGS)"

# BENCH_ARGS are the flags of make bench (BENCH_ARGS=--help lists them; --smoke runs the small variant).
BENCH_ARGS ?=

.PHONY: bench
bench: test-tools ## Run the scale benchmark (test/bench; over an hour at full scale on 2 cores): prints the results table and writes out/bench/<time>/results.{json,md} (BENCH_ARGS=--help for its flags).
	go run ./test/bench/cmd/bench $(BENCH_ARGS)

.PHONY: bench-micro
bench-micro: test-tools ## Run the Go micro-benchmarks (translation, the engine's no-op pass, watch latency).
	go test -run '^$$' -bench . -benchmem ./azure/...

# The crash suite's long run (make chaos): kills per scenario, the seed of their moments, the workers of the scale
# scenario, and where the provider replicas' logs go. make test runs it with 2 kills and 5 workers.
CHAOS_RESTARTS ?= 100
CHAOS_SEED ?= 1
CHAOS_SCALE ?= 50
CHAOS_LOGS ?= out/chaos-replicas

.PHONY: chaos
chaos: test-tools ## Kill the provider (its replicas, SIGKILL; now and then a SIGTERM that must end within the grace period) CHAOS_RESTARTS times (default 100) in each crash scenario (create, scale up to CHAOS_SCALE workers and down, upgrade, pause for a move, unpause, delete, each on a self-managed, an AKS and an ASO-managed cluster at once); prints a line per scenario.
	@mkdir -p out
	@rm -rf $(CHAOS_LOGS)
	@status=0; go test ./test/chaos -run TestCrash -count=1 -v -timeout 360m \
		-args -chaos.restarts=$(CHAOS_RESTARTS) -chaos.seed=$(CHAOS_SEED) -chaos.scale=$(CHAOS_SCALE) -chaos.logs=$(abspath $(CHAOS_LOGS)) \
		> out/chaos.log 2>&1 || status=$$?; \
	grep -E '^(crash: |--- |ok|FAIL)' out/chaos.log || true; \
	echo "make chaos: the full log is in out/chaos.log, the replicas' logs in $(CHAOS_LOGS)"; exit $$status

# The fuzz targets' run (make fuzz): how long each target runs, which targets (a regular expression of their
# names; all by default), and go test flags (e.g. -parallel 1 for one worker). make test runs their seed corpora.
FUZZTIME ?= 60s
FUZZ ?= .
FUZZ_FLAGS ?=

.PHONY: fuzz
fuzz: ## Run every fuzz target (func FuzzXxx in a _test.go file) for FUZZTIME each (default 60s), one after another; FUZZ=regexp picks targets.
	@failed=""; \
	for file in $$(git ls-files --cached --others --exclude-standard -- '*_test.go' | xargs grep -l '^func Fuzz' | sort); do \
		pkg=./$$(dirname "$$file"); \
		for target in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$$file" | grep -E -- '$(FUZZ)'); do \
			echo "make fuzz: $$target in $$pkg for $(FUZZTIME)"; \
			go test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $(FUZZ_FLAGS) "$$pkg" || failed="$$failed $$pkg:$$target"; \
		done; \
	done; \
	if [[ -n "$$failed" ]]; then echo "make fuzz: failed:$$failed (crashers are in the packages' testdata/fuzz)" >&2; exit 1; fi

.PHONY: crd-coverage
crd-coverage: ## Print how many CAPZ v1beta1 spec fields each CRD accepts, and how many of them are implemented or rejected.
	go test ./api/v1beta1 -run 'TestCRDCoverage|TestFieldSupport' -v -count=1 | grep -E 'spec fields|implemented|total|FAIL|ok'

##@ release

.PHONY: release-manifests
release-manifests: $(KUSTOMIZE) ## Write the clusterctl assets out/infrastructure-components.yaml (manager image: IMG) and out/metadata.yaml, and the optional out/credential-secrets-policy.yaml.
	@hack/release-manifests.sh $(KUSTOMIZE) "$(IMG)" $(RELEASE_DIR)

.PHONY: verify-release
verify-release: $(KUSTOMIZE) ## Check that the release manifests build, and build to the same bytes twice.
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	hack/release-manifests.sh $(KUSTOMIZE) "$(IMG)" "$$tmp/1" >/dev/null; \
	hack/release-manifests.sh $(KUSTOMIZE) "$(IMG)" "$$tmp/2" >/dev/null; \
	if ! diff -r "$$tmp/1" "$$tmp/2" >/dev/null; then \
		diff -r "$$tmp/1" "$$tmp/2" | head -n 20 || true; \
		echo "verify-release: two builds of the release manifests differ" >&2; exit 1; fi; \
	echo "verify-release: $$(grep -c '^kind:' "$$tmp/1/infrastructure-components.yaml") objects, reproducible"
