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

# generate-aso-bundle.sh HELM CONTROLLER_GEN ASO_VERSION OUT_DIR
#
# Renders the Azure Service Operator (ASO) controller that the provider bundles
# into OUT_DIR/aso.yaml, and writes OUT_DIR/crd-manager-role-patch.yaml.
#
# The chart comes from the ASO module in the module cache (the main module's
# requirement, which must equal ASO_VERSION). That copy of the chart lacks what
# ASO's release process generates into templates/generated: the manager
# ClusterRole and the admission webhook configurations. They are generated here
# from ASO's own kubebuilder markers with controller-gen, limited to the kinds
# below, and rendered by helm together with the chart.
#
# The chart's Secret is not rendered (its values are base64-encoded, which would
# hide clusterctl variables); OUT_DIR/credentials.yaml provides it.

set -euo pipefail

[[ $# -eq 4 ]] || { echo "usage: $0 HELM CONTROLLER_GEN ASO_VERSION OUT_DIR" >&2; exit 2; }
helm=$1 controller_gen=$2 aso_version=$3 out_dir=$4
export LC_ALL=C
[[ $helm == /* ]] || helm=$PWD/$helm
[[ $controller_gen == /* ]] || controller_gen=$PWD/$controller_gen
[[ $out_dir == /* ]] || out_dir=$PWD/$out_dir

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The ASO kinds the provider produces, as group/Kind=plural.
mapfile -t kinds < <(grep -v '^#' hack/aso-kinds.txt)

# ASO fails to start when a --crd-pattern entry matches no CRD, and clusterctl
# treats a variable with an empty default as unset, so the default of
# ADDITIONAL_ASO_CRDS repeats a pattern that always matches.
additional_crds='${ADDITIONAL_ASO_CRDS:=resources.azure.com/ResourceGroup}'

# Rendered with this namespace; config/default moves everything to its own.
placeholder_namespace=azureserviceoperator-system

aso_module=github.com/Azure/azure-service-operator/v2
got=$(go list -m -f '{{.Version}}' "$aso_module" 2>/dev/null || true)
if [[ $got != "$aso_version" ]]; then
	echo "generate-aso-bundle: go.mod requires $aso_module ${got:-(nothing)}, but the Makefile pins $aso_version" >&2
	exit 1
fi
aso_dir=$(go list -m -f '{{.Dir}}' "$aso_module")
if [[ -z $aso_dir ]]; then
	go mod download "$aso_module"
	aso_dir=$(go list -m -f '{{.Dir}}' "$aso_module")
fi
chart_src=$aso_dir/charts/azure-service-operator
[[ -f $chart_src/Chart.yaml ]] || { echo "generate-aso-bundle: no chart in $chart_src" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The chart, completed with the generated templates. Its Deployment and Service
# templates hard-code the version label of the release before (the module's
# chart is updated after a release), so that label is set to ASO_VERSION.
cp -R "$chart_src" "$tmp/chart"
chmod -R u+w "$tmp/chart"
mkdir -p "$tmp/chart/templates/generated"
find "$tmp/chart/templates" -name '*.yaml' -exec \
	sed -i -E "s|^( *app\.kubernetes\.io/version: ).*$|\1$aso_version|" {} +

# ASO's kubebuilder markers for our kinds, in a throw-away package that
# controller-gen reads: RBAC markers from the storage packages (one per kind),
# admission webhook markers for every API version of each kind, and the
# permissions of ASO's generic controller.
markers=$tmp/markers
mkdir -p "$markers"
printf 'module asomarkers\n\ngo 1.26\n' >"$markers/go.mod"
{
	printf '// Package markers holds ASO %s kubebuilder markers.\npackage markers\n\n' "$aso_version"
	for entry in "${kinds[@]}"; do
		group_kind=${entry%%=*} plural=${entry#*=}
		group=${group_kind%%/*} dir=${group_kind%%.*}
		g=${group//./\\.}
		rbac=$(grep -hE "^// \+kubebuilder:rbac:groups=$g,resources=($plural|\{$plural/status,$plural/finalizers\}),verbs=" \
			"$aso_dir"/api/"$dir"/*/storage/*.go | sort -u || true)
		webhooks=$(grep -hE "^// \+kubebuilder:webhook:.*,groups=$g,resources=$plural," \
			"$aso_dir"/api/"$dir"/*/webhook/*.go | sort -u || true)
		if [[ $(grep -c . <<<"$rbac") -ne 2 || -z $webhooks ]]; then
			echo "generate-aso-bundle: ASO $aso_version has no RBAC or webhook markers for $group_kind ($plural)" >&2
			exit 1
		fi
		printf '%s\n%s\n' "$rbac" "$webhooks"
	done
	grep -h '^// +kubebuilder:rbac:' "$aso_dir/api/resources/v1api20200601/permissions.go"
} >"$markers/markers.go"
(cd "$markers" && "$controller_gen" rbac:roleName=azureserviceoperator-manager-role webhook paths=./... \
	output:rbac:artifacts:config="$tmp/gen" output:webhook:artifacts:config="$tmp/gen")

cp "$tmp/gen/role.yaml" "$tmp/chart/templates/generated/rbac.authorization.k8s.io_v1_clusterrole_azureserviceoperator-manager-role.yaml"
sed -E \
	-e 's#^  name: (mutating|validating)-webhook-configuration$#  name: azureserviceoperator-\1-webhook-configuration#' \
	-e 's|^      name: webhook-service$|      name: azureserviceoperator-webhook-service|' \
	-e 's|^      namespace: system$|      namespace: {{ .Release.Namespace }}|' \
	"$tmp/gen/manifests.yaml" >"$tmp/chart/templates/generated/admissionregistration.k8s.io_v1_webhookconfigurations.yaml"

crd_pattern=
for entry in "${kinds[@]}"; do crd_pattern+="${entry%%=*};"; done
crd_pattern+=$additional_crds

cat >"$tmp/values.yaml" <<EOF
image:
  tag: $aso_version
crdPattern: "$crd_pattern"
# config/aso/credentials.yaml holds aso-controller-settings, with clusterctl variables.
createAzureOperatorSecret: false
multitenant:
  enable: false
azureOperatorMode: ""
# One replica like the provider's manager; a PodDisruptionBudget with minAvailable
# 50% of one replica would block every node drain.
replicaCount: 1
podDisruptionBudget:
  enabled: false
# The chart sets every restricted Pod Security Standard but the seccomp profile.
podSecurityContext:
  seccompProfile:
    type: RuntimeDefault
EOF

mkdir -p "$out_dir"
{
	echo "# Code generated by hack/generate-aso-bundle.sh from the azure-service-operator chart of"
	echo "# $aso_module@$aso_version and ASO's kubebuilder markers. DO NOT EDIT."
	"$helm" template azure-service-operator "$tmp/chart" --namespace "$placeholder_namespace" --values "$tmp/values.yaml"
} >"$tmp/aso.yaml"
grep -q -- "--crd-pattern=$crd_pattern\$" "$tmp/aso.yaml" ||
	{ echo "generate-aso-bundle: the rendered Deployment does not carry --crd-pattern=$crd_pattern" >&2; exit 1; }
mv "$tmp/aso.yaml" "$out_dir/aso.yaml"

# Least privilege for ASO's CRD manager: it creates the CRDs that --crd-pattern
# selects (create cannot be limited by name), but updates only ours. The test
# operations make kustomize fail if the chart's rule changes.
{
	echo "# Code generated by hack/generate-aso-bundle.sh. DO NOT EDIT."
	echo "- op: test"
	echo "  path: /rules/0"
	echo "  value:"
	echo "    apiGroups: [apiextensions.k8s.io]"
	echo "    resources: [customresourcedefinitions, customresourcedefinitions/status]"
	echo "    verbs: [create, get, list, patch, update, watch]"
	echo "- op: replace"
	echo "  path: /rules/0"
	echo "  value:"
	echo "    apiGroups: [apiextensions.k8s.io]"
	echo "    resources: [customresourcedefinitions]"
	echo "    verbs: [create, get, list, watch]"
	echo "- op: add"
	echo "  path: /rules/1"
	echo "  value:"
	echo "    apiGroups: [apiextensions.k8s.io]"
	echo "    resources: [customresourcedefinitions, customresourcedefinitions/status]"
	echo "    resourceNames:"
	for entry in "${kinds[@]}"; do
		group_kind=${entry%%=*}
		echo "    - ${entry#*=}.${group_kind%%/*}"
	done | sort
	echo "    verbs: [patch, update]"
} >"$out_dir/crd-manager-role-patch.yaml"

echo "generate-aso-bundle: rendered ASO $aso_version for ${#kinds[@]} kinds into $out_dir"
