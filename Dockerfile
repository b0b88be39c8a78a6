# syntax=docker/dockerfile:1
# The manager image, built from the sources with Docker (BuildKit). Build and publish it, then write release assets
# that use it:
#   docker build -t <registry>/cluster-api-azure-controller:<tag> \
#     --build-arg SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) --build-arg REVISION=$(git rev-parse HEAD) \
#     --build-arg VERSION=$(git describe --tags --always --dirty) \
#     --build-arg CREATED=$(TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd) .
#   docker push <registry>/cluster-api-azure-controller:<tag>
#   make release-manifests IMG=<registry>/cluster-api-azure-controller:<tag>
# make image builds the same image without pulling anything (hack/image: the same binary, built on the host, FROM
# scratch, with the same user and labels); docs/development.md says which to use when. For a reproducible build, pin
# GO_IMAGE and BASE_IMAGE by digest (--build-arg GO_IMAGE=golang:1.26@sha256:...): the same sources and base images
# then build the same binary, and SOURCE_DATE_EPOCH (the commit time) fixes the timestamps.
# .dockerignore limits the context to the Go module's sources (config/config_test.go checks it covers what main.go
# builds from). Tilt does not use this file: it builds the binary on the host and packs it into its own image.

ARG GO_IMAGE=golang:1.26
ARG BASE_IMAGE=gcr.io/distroless/static:nonroot

FROM --platform=$BUILDPLATFORM ${GO_IMAGE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG TARGETOS TARGETARCH
# The flags of make image (hack/image/build.sh): static, no paths of the build machine, no VCS stamp (.git is not in
# the context; the revision is a label).
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -buildvcs=false -ldflags='-s -w' -o /manager .

FROM ${BASE_IMAGE}
ARG VERSION=dev
ARG REVISION=unknown
ARG CREATED
LABEL org.opencontainers.image.title="cluster-api-azure-controller" \
      org.opencontainers.image.description="Cluster API infrastructure provider for Azure (on Azure Service Operator v2): the manager" \
      org.opencontainers.image.source="https://github.com/capzaso/cluster-api-provider-azure" \
      org.opencontainers.image.url="https://github.com/capzaso/cluster-api-provider-azure" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY --from=build /manager /manager
# The same user the Deployment runs as (config/manager/manager.yaml).
USER 65532:65532
ENTRYPOINT ["/manager"]
