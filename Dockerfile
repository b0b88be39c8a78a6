# syntax=docker/dockerfile:1
# The manager image. Build and publish it, then write release assets that use it:
#   docker build -t <registry>/cluster-api-azure-controller:<tag> . && docker push <registry>/cluster-api-azure-controller:<tag>
#   make release-manifests IMG=<registry>/cluster-api-azure-controller:<tag>
# .dockerignore limits the context to the Go module's sources (config/config_test.go checks it covers what main.go
# builds from). Tilt does not use this file: it builds the binary on the host and packs it into its own image.

FROM --platform=$BUILDPLATFORM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG TARGETOS TARGETARCH
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags='-s -w' -o /manager .

FROM gcr.io/distroless/static:nonroot
COPY --from=build /manager /manager
# The same user the Deployment runs as (config/manager/manager.yaml).
USER 65532:65532
ENTRYPOINT ["/manager"]
