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

# generate-aso-crds.sh CONTROLLER_GEN ASO_VERSION OUT_DIR PACKAGE...
#
# Generates the CRDs of the given ASO API packages (import paths, resolved
# through the main module's requirement on ASO) into OUT_DIR, replacing what is
# there. go.mod and go.sum are never modified: the go command works on
# temporary copies (-modfile), which it may complete with go.sum lines for
# ASO's dependencies that the main module does not import (yet).

set -euo pipefail

[[ $# -ge 4 ]] || { echo "usage: $0 CONTROLLER_GEN ASO_VERSION OUT_DIR PACKAGE..." >&2; exit 2; }
controller_gen=$1 aso_version=$2 out_dir=$3
shift 3

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

paths=()
for p in "$@"; do paths+=("paths=$p"); done

mkdir -p "$out_dir"
rm -f "$out_dir"/*.yaml
GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=mod -modfile=$tmp/go.mod" \
	"$controller_gen" crd:crdVersions=v1,allowDangerousTypes=true,maxDescLen=0 \
	"${paths[@]}" output:crd:artifacts:config="$out_dir"
echo "generate-aso-crds: $(find "$out_dir" -name '*.yaml' | wc -l) CRDs in $out_dir"
