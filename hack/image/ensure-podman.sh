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

# ensure-podman.sh (make test-image)
#
# make test-image runs the manager's image with podman and the runc runtime. When either is missing, on a Debian-like
# machine (apt-get), it installs the distribution's packages podman and runc (apt-get update first; as root, or with
# sudo); anywhere else it says what to install and fails.

set -euo pipefail

missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || [[ -x /usr/sbin/runc ]] || [[ -x /sbin/runc ]] || missing+=(runc)
[[ ${#missing[@]} -gt 0 ]] || exit 0

if ! command -v apt-get >/dev/null 2>&1; then
	echo "make test-image: needs ${missing[*]} (podman runs the image with the runc runtime), and this machine has no apt-get:" >&2
	echo "  install the packages podman and runc with your distribution's package manager (e.g. dnf install podman runc)," >&2
	echo "  then run make test-image again." >&2
	exit 1
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "make test-image: needs ${missing[*]}; run as root, or install them: apt-get install podman runc" >&2
		exit 1
	fi
	sudo=(sudo)
fi
echo "make test-image: installing podman and runc (missing: ${missing[*]}) with apt-get"
start=$(date +%s)
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends podman runc >/dev/null
echo "make test-image: installed $(podman --version) and runc in $(($(date +%s) - start))s"
