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

# build.sh IMAGE "ARCH..." OUT_DIR  (make image)
#
# Builds the manager image IMAGE for linux and every GOARCH of ARCH (space- or comma-separated) without pulling
# anything: the manager is built on the host (static: CGO_ENABLED=0, -trimpath, -buildvcs=false, -ldflags='-s -w',
# as the Dockerfile builds it) and packed with hack/image/Containerfile (FROM scratch) into an image whose only
# files are /manager, /etc/passwd and /etc/group (the non-root user 65532, "nonroot" as in distroless) and /tmp.
#
# One ARCH: the image is tagged IMAGE. Several: each is tagged IMAGE-<arch>; with podman, IMAGE is a manifest list of
# them (docker makes one only from pushed images: docker manifest create).
#
# The engine is $CONTAINER_ENGINE, or docker when its daemon answers, or podman. Everything in the image comes from
# the commit: the labels (org.opencontainers.image.*) name its revision, its version (git describe) and, as created,
# its commit time, which is also every file's time and the image's creation time; so the same commit builds the same
# image (podman: the same image ID).

set -euo pipefail

[[ $# -eq 3 ]] || { echo "usage: $0 IMAGE \"ARCH...\" OUT_DIR" >&2; exit 2; }
image=$1 arches=${2//,/ } out_dir=$3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
[[ $out_dir == /* ]] || out_dir=$root/$out_dir

# CONTAINER_ENGINE may carry global flags (make test-image: podman --runtime runc --cgroup-manager cgroupfs).
engine=${CONTAINER_ENGINE:-}
if [[ -z $engine ]]; then
	if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
		engine=docker
	elif command -v podman >/dev/null 2>&1; then
		engine=podman
	else
		echo "make image: needs Docker (with its daemon running) or podman; neither works here." >&2
		echo "  On Debian or Ubuntu: apt-get install podman (no daemon needed); or set CONTAINER_ENGINE." >&2
		exit 1
	fi
fi

read -r -a engine_cmd <<<"$engine"
engine_name=$(basename "${engine_cmd[0]}")

# The labels and timestamps come from the commit, so that the same commit builds the same image.
revision=$(git rev-parse HEAD)
version=$(git describe --tags --always --dirty)
epoch=$(git log -1 --format=%ct HEAD)
created=$(TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd HEAD)
module=$(go list -m)
source=https://${module}
labels=(
	--label "org.opencontainers.image.title=cluster-api-azure-controller"
	--label "org.opencontainers.image.description=Cluster API infrastructure provider for Azure (on Azure Service Operator v2): the manager"
	--label "org.opencontainers.image.source=${source}"
	--label "org.opencontainers.image.url=${source}"
	--label "org.opencontainers.image.revision=${revision}"
	--label "org.opencontainers.image.version=${version}"
	--label "org.opencontainers.image.created=${created}"
	--label "org.opencontainers.image.licenses=Apache-2.0"
)

tags=()
for arch in $arches; do
	tag=$image
	[[ $(wc -w <<<"$arches") -eq 1 ]] || tag=$image-$arch
	ctx=$out_dir/linux-$arch
	rm -rf "$ctx"
	mkdir -p "$ctx/rootfs/etc" "$ctx/rootfs/tmp"
	echo "make image: building the manager for linux/$arch"
	CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath -buildvcs=false -ldflags='-s -w' -o "$ctx/rootfs/manager" .
	# The same users and groups as distroless/static's, so that 65532 has a name.
	printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$ctx/rootfs/etc/passwd"
	printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' >"$ctx/rootfs/etc/group"
	chmod 0755 "$ctx/rootfs" "$ctx/rootfs/etc" "$ctx/rootfs/manager"
	chmod 0644 "$ctx/rootfs/etc/passwd" "$ctx/rootfs/etc/group"
	chmod 1777 "$ctx/rootfs/tmp"
	cp hack/image/Containerfile "$ctx/Containerfile"
	echo "make image: packing $tag with $engine_name"
	case $engine_name in
	podman)
		"${engine_cmd[@]}" build --quiet --platform "linux/$arch" --timestamp "$epoch" "${labels[@]}" -t "$tag" -f "$ctx/Containerfile" "$ctx" >/dev/null
		;;
	*)
		SOURCE_DATE_EPOCH=$epoch "${engine_cmd[@]}" build --quiet --platform "linux/$arch" --build-arg "SOURCE_DATE_EPOCH=$epoch" \
			"${labels[@]}" -t "$tag" -f "$ctx/Containerfile" "$ctx" >/dev/null
		;;
	esac
	tags+=("$tag")
done

if [[ ${#tags[@]} -gt 1 && $engine_name == podman ]]; then
	"${engine_cmd[@]}" manifest rm "$image" >/dev/null 2>&1 || true
	"${engine_cmd[@]}" manifest create "$image" >/dev/null
	for tag in "${tags[@]}"; do "${engine_cmd[@]}" manifest add "$image" "containers-storage:$tag" >/dev/null; done
	tags+=("$image (manifest list)")
fi
for tag in "${tags[@]}"; do echo "make image: built $tag"; done
echo "make image: $engine_name, revision $revision, version $version, created $created"
