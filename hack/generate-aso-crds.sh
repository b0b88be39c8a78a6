#!/usr/bin/env bash
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

# generate-aso-crds.sh CONTROLLER_GEN ASO_VERSION OUT_DIR [KINDS_FILE]
#
# Writes into OUT_DIR, replacing what is there, the CRD of every ASO kind the
# provider produces (hack/aso-kinds.txt, or KINDS_FILE) as the ASO the release bundles
# installs it: every API version ASO has of the kind (from every version
# package of its group, resolved through the main module's requirement on ASO),
# the storage version ASO marks (+kubebuilder:storageversion), and ASO's labels.
# Their conversion is left to whoever installs them (test/env points it at
# ASO's webhook server), as ASO's own CRD manager does. go.mod and go.sum are
# never modified: the go command works on temporary copies (-modfile), which it
# may complete with go.sum lines for ASO's dependencies that the main module
# does not import (yet).

set -euo pipefail

[[ $# -eq 3 || $# -eq 4 ]] || { echo "usage: $0 CONTROLLER_GEN ASO_VERSION OUT_DIR [KINDS_FILE]" >&2; exit 2; }
controller_gen=$1 aso_version=$2 out_dir=$3 kinds_file=${4:-hack/aso-kinds.txt}
[[ $controller_gen == /* ]] || controller_gen=$PWD/$controller_gen
[[ $out_dir == /* ]] || out_dir=$PWD/$out_dir

cd "$(dirname "${BASH_SOURCE[0]}")/.."

aso_module=github.com/Azure/azure-service-operator/v2
got=$(go list -m -f '{{.Version}}' "$aso_module" 2>/dev/null || true)
if [[ $got != "$aso_version" ]]; then
	echo "generate-aso-crds: go.mod requires $aso_module ${got:-(nothing)}, but the Makefile pins $aso_version" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp go.mod "$tmp/go.mod"
cp go.sum "$tmp/go.sum"

# group.azure.com/Kind=plural → the CRD file controller-gen writes, and the
# package tree of the group in ASO's API.
mapfile -t kinds < <(grep -v '^#' "$kinds_file")
files=() paths=()
for entry in "${kinds[@]}"; do
	group_kind=${entry%%=*} plural=${entry#*=}
	group=${group_kind%%/*}
	files+=("${group}_$plural.yaml")
	path="paths=$aso_module/api/${group%%.*}/..."
	[[ " ${paths[*]} " == *" $path "* ]] || paths+=("$path")
done

GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=mod -modfile=$tmp/go.mod" \
	"$controller_gen" crd:crdVersions=v1,allowDangerousTypes=true,maxDescLen=0 \
	"${paths[@]}" output:crd:artifacts:config="$tmp/crds"

# ASO's release labels its CRDs (config/crd/labels.yaml in the ASO module); ASO
# serves webhooks only for the CRDs it finds by these labels.
mkdir -p "$out_dir"
rm -f "$out_dir"/*.yaml
for f in "${files[@]}"; do
	[[ -f $tmp/crds/$f ]] || { echo "generate-aso-crds: ASO $aso_version has no CRD $f" >&2; exit 1; }
	sed "0,/^  name: /s//  labels:\n    app.kubernetes.io\/name: azure-service-operator\n    app.kubernetes.io\/version: $aso_version\n  name: /" \
		"$tmp/crds/$f" >"$out_dir/$f"
done
echo "generate-aso-crds: ${#files[@]} CRDs, with every version ASO serves, in $out_dir"
