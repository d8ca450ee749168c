# lmp-server (and lmp-check) as a container image: a static binary on a
# distroless base, running as a non-root user, its data in the /data volume.
#
#   docker build -t lmp-server .
#   docker run --rm -p 127.0.0.1:8787:8787 -v lmp-data:/data lmp-server
#
# deploy/compose.yaml runs it behind nginx; docs/deployment.md explains both.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w ${VERSION:+-X github.com/loomi-lmp/lmpkit/internal/buildinfo.version=$VERSION}" \
      -o /out/ ./cmd/lmp-server ./cmd/lmp-check \
 && install -d -m 0700 /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/lmp-server /out/lmp-check /usr/local/bin/
# The data directory belongs to the image's non-root user (65532), mode
# 0700: a new named volume starts as a copy of it.
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
VOLUME /data
EXPOSE 8787
ENTRYPOINT ["/usr/local/bin/lmp-server"]
# Every interface of the container, so that a published port or a proxy on
# the container network reaches it. Without TLS that needs
# LOOMI_ALLOW_INSECURE_BIND=true (S-3): set it when the plain WebSocket only
# crosses the host's loopback (-p 127.0.0.1:8787:8787) or the compose network
# behind a TLS proxy, or give --tls-cert and --tls-key.
CMD ["serve", "--addr", "0.0.0.0:8787", "--data", "/data"]
