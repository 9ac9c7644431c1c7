#!/usr/bin/env bash
# Builds the kit's images where no image registry is reachable: stand-ins for Caddy and Redis from
# Debian's packages, and the Fundus image itself, all from one local Debian base image
# (scripts/dev/ensure-container-engine.sh builds localhost/debian:bookworm with debootstrap).
#   infra/images/build.sh                 # caddy, redis and fundus
#   infra/images/build.sh caddy redis     # only these
# Then use them with compose: CADDY_IMAGE=localhost/fundus-caddy:2.6 REDIS_IMAGE=localhost/fundus-redis:7.0
# FUNDUS_IMAGE=localhost/fundus:latest (the .env.example lines for this are commented there).
# Settings (environment): ENGINE (podman or docker; default: podman if present), BASE_IMAGE,
# EXTRA_CA (a PEM file with a TLS-inspecting proxy's CA, handed to the Fundus build as a secret),
# FUNDUS_IMAGE, CADDY_IMAGE, REDIS_IMAGE (tags to build).
set -euo pipefail
cd "$(dirname "$0")/../.."

ENGINE=${ENGINE:-$(command -v podman >/dev/null 2>&1 && echo podman || echo docker)}
BASE_IMAGE=${BASE_IMAGE:-localhost/debian:bookworm}
FUNDUS_IMAGE=${FUNDUS_IMAGE:-localhost/fundus:latest}
CADDY_IMAGE=${CADDY_IMAGE:-localhost/fundus-caddy:2.6}
REDIS_IMAGE=${REDIS_IMAGE:-localhost/fundus-redis:7.0}
# podman: the Docker image format keeps HEALTHCHECK (the OCI format drops it).
format=(); [ "$ENGINE" = podman ] && format=(--format docker)

targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(caddy redis fundus)
for target in "${targets[@]}"; do
  case "$target" in
    caddy) "$ENGINE" build "${format[@]}" --build-arg BASE_IMAGE="$BASE_IMAGE" -t "$CADDY_IMAGE" infra/images/caddy ;;
    redis) "$ENGINE" build "${format[@]}" --build-arg BASE_IMAGE="$BASE_IMAGE" -t "$REDIS_IMAGE" infra/images/redis ;;
    fundus)
      secret=(); [ -n "${EXTRA_CA:-}" ] && secret=(--secret "id=extra_ca,src=$EXTRA_CA")
      "$ENGINE" build "${format[@]}" "${secret[@]}" -f infra/Dockerfile \
        --build-arg BUILD_IMAGE="$BASE_IMAGE" --build-arg RUNTIME_IMAGE="$BASE_IMAGE" -t "$FUNDUS_IMAGE" . ;;
    *) echo "build.sh: unknown image $target (caddy, redis, fundus)" >&2; exit 2 ;;
  esac
done
