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

# release-manifests.sh KUSTOMIZE IMAGE OUT_DIR
#
# Writes the clusterctl release assets into OUT_DIR: infrastructure-components.yaml
# (config/default, with the manager container running IMAGE) and metadata.yaml; and
# credential-secrets-policy.yaml (config/policies/credential-secrets), the optional
# admission policy for credential Secrets, which clusterctl does not install.
# The same inputs give the same bytes.

set -euo pipefail

[[ $# -eq 3 ]] || { echo "usage: $0 KUSTOMIZE IMAGE OUT_DIR" >&2; exit 2; }
kustomize=$1 image=$2 out_dir=$3
[[ $kustomize == /* ]] || kustomize=$PWD/$kustomize
[[ $out_dir == /* ]] || out_dir=$PWD/$out_dir
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

mkdir -p "$out_dir" "$root/out"
# kustomize only accepts relative paths to other kustomizations, so the overlay
# that sets the image lives in the repository (out/ is git-ignored).
overlay=$(mktemp -d "$root/out/.release-overlay.XXXXXX")
trap 'rm -rf "$overlay"' EXIT
cat >"$overlay/kustomization.yaml" <<OVERLAY
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- ../../config/default
patches:
- target:
    group: apps
    version: v1
    kind: Deployment
    name: capz-controller-manager
  patch: |-
    - op: test
      path: /spec/template/spec/containers/0/name
      value: manager
    - op: replace
      path: /spec/template/spec/containers/0/image
      value: "$image"
OVERLAY

"$kustomize" build "$overlay" >"$overlay/infrastructure-components.yaml"
mv "$overlay/infrastructure-components.yaml" "$out_dir/infrastructure-components.yaml"
cp "$root/metadata.yaml" "$out_dir/metadata.yaml"
"$kustomize" build "$root/config/policies/credential-secrets" >"$overlay/credential-secrets-policy.yaml"
mv "$overlay/credential-secrets-policy.yaml" "$out_dir/credential-secrets-policy.yaml"
echo "release-manifests: wrote $out_dir/infrastructure-components.yaml (manager image $image), $out_dir/metadata.yaml and $out_dir/credential-secrets-policy.yaml"
