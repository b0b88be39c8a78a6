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

# ensure-tool.sh puts a pinned tool binary at hack/tools/bin/<name>-<version>.
#
#   ensure-tool.sh build   NAME VERSION MODULE_DIR PINNED_MODULE [LDFLAGS [PACKAGE [GCFLAGS]]]
#       go build the main package of the local tool module MODULE_DIR (for
#       example hack/tools/etcd), or PACKAGE (default "."), a main package of
#       one of its requirements, built unmodified with the module's requirements
#       (ASO's controller). PINNED_MODULE is the dependency whose version must
#       equal VERSION in MODULE_DIR/go.mod (for example go.etcd.io/etcd/server/v3),
#       so the Makefile and the tool module cannot drift apart silently. GCFLAGS
#       go to every package's compilation (-gcflags=all=GCFLAGS).
#   ensure-tool.sh install NAME VERSION PACKAGE
#       go install PACKAGE@VERSION.
#
# The version-named file is the stamp: if it exists nothing is built. Otherwise
# the binary is copied from the per-user cache
# ${CAPZASO_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capzaso-tools}/NAME/KEY/NAME,
# where KEY is VERSION-GOOS-GOARCH (plus a hash of the tool module's go.mod,
# go.sum, *.go, flags and package for local modules), and built only when the cache
# has no entry. Everything comes through the Go module proxy.
#
# When CAPZASO_PROFILE_DIR names a directory (make test-profile), a build adds a
# line with its wall and CPU time (of go build and every process it ran) to
# records.jsonl there, for hack/testprofile's report.

set -euo pipefail

usage() {
	sed -n '18,28p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

[[ $# -ge 4 ]] || usage
mode=$1 name=$2 version=$3

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin_dir=${TOOLS_BIN_DIR:-$root/hack/tools/bin}
cache_root=${CAPZASO_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capzaso-tools}
dest=$bin_dir/$name-$version
platform=$(go env GOOS)-$(go env GOARCH)

case $mode in
build)
	[[ $# -ge 5 ]] || usage
	module_dir=$4 pinned_module=$5 ldflags=${6:-} package=${7:-.} gcflags=${8:-}
	[[ $module_dir == /* ]] || module_dir=$root/$module_dir
	hash=$(cd "$module_dir" && { cat go.mod go.sum ./*.go; printf '%s' "$ldflags$package$gcflags"; } | sha256sum | cut -c1-12)
	key=$version-$platform-$hash
	;;
install)
	package=$4
	key=$version-$platform
	;;
*)
	usage
	;;
esac

cached=$cache_root/$name/$key/$name

# save_to_cache copies $1 into the cache; a cache that cannot be written only
# costs a rebuild next time, so failures are warnings.
save_to_cache() {
	local tmp
	if mkdir -p "$(dirname "$cached")" 2>/dev/null &&
		tmp=$(mktemp "$cached.XXXXXX" 2>/dev/null) &&
		cp "$1" "$tmp" && chmod 0755 "$tmp" && mv -f "$tmp" "$cached"; then
		echo "ensure-tool: cached $name $version in $cached"
	else
		echo "ensure-tool: warning: could not write the tool cache $cached" >&2
		rm -f "${tmp:-}"
	fi
}

if [[ -x $dest ]]; then
	[[ -x $cached ]] || save_to_cache "$dest"
	exit 0
fi

mkdir -p "$bin_dir"
tmp_bin=$(mktemp "$dest.XXXXXX")
tmp_dir=
trap 'rm -rf "$tmp_bin" ${tmp_dir:+"$tmp_dir"}' EXIT

if [[ -x $cached ]]; then
	echo "ensure-tool: copying $name $version from $cached"
	cp "$cached" "$tmp_bin"
	chmod 0755 "$tmp_bin"
	mv -f "$tmp_bin" "$dest"
	exit 0
fi

# build_tool builds or installs the tool into $tmp_bin.
build_tool() {
	case $mode in
	build)
		# Kubernetes staging modules (k8s.io/kubectl) are versioned v0.X.Y for release v1.X.Y.
		got=$(cd "$module_dir" && go list -m -f '{{.Version}}' "$pinned_module")
		if [[ $got != "$version" && $got != "${version/#v1./v0.}" ]]; then
			echo "ensure-tool: $module_dir/go.mod pins $pinned_module $got, but the Makefile asks for $name $version; update one of them" >&2
			exit 1
		fi
		echo "ensure-tool: building $name $version from $module_dir (takes minutes the first time)"
		(cd "$module_dir" && go build -trimpath -gcflags=all="$gcflags" -ldflags "$ldflags" -o "$tmp_bin" "$package")
		;;
	install)
		echo "ensure-tool: installing $package@$version"
		tmp_dir=$(mktemp -d "$bin_dir/.install.XXXXXX")
		GOBIN=$tmp_dir go install -trimpath "$package@$version"
		built=("$tmp_dir"/*)
		if [[ ${#built[@]} -ne 1 || ! -x ${built[0]} ]]; then
			echo "ensure-tool: expected exactly one binary from go install $package@$version" >&2
			exit 1
		fi
		mv -f "${built[0]}" "$tmp_bin"
		;;
	esac
}

start=$SECONDS
if [[ -n ${CAPZASO_PROFILE_DIR:-} ]]; then
	# The time keyword reports the function's wall time and the CPU of every process it waited for; its report goes
	# to the group's stderr (a file), the build's own stderr to fd 4 (the script's).
	mkdir -p "$CAPZASO_PROFILE_DIR"
	times_file=$(mktemp)
	TIMEFORMAT='%3R %3U %3S'
	{ time build_tool 2>&4; } 4>&2 2>"$times_file"
	read -r wall user sys <"$times_file"
	rm -f "$times_file"
	printf '{"kind":"tool","name":"%s","wall":%s,"user":%s,"sys":%s}\n' "$name" "$wall" "$user" "$sys" >>"$CAPZASO_PROFILE_DIR/records.jsonl"
else
	build_tool
fi
chmod 0755 "$tmp_bin"
echo "ensure-tool: built $name $version in $((SECONDS - start))s"
save_to_cache "$tmp_bin"
mv -f "$tmp_bin" "$dest"
