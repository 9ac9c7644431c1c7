#!/usr/bin/env bash
# The container engine the kit tests (test/kit) run on: podman from Debian's packages, configured as
# ../shared/CONTAINERS.md found it works on these hosts (runc, netavark), a Debian base image built
# locally (no image registry is needed), and podman's Docker-compatible socket for testcontainers.
# Idempotent and quick when everything is there. As root it installs what is missing; otherwise it
# only says what is missing, and the kit suite skips with that reason.
#   FUNDUS_BASE_IMAGE  the base image to build (default localhost/debian:bookworm)
#   PODMAN_SOCKET      where to serve the Docker API (default /run/podman/podman.sock)
set -euo pipefail

BASE_IMAGE=${FUNDUS_BASE_IMAGE:-localhost/debian:bookworm}
SOCKET=${PODMAN_SOCKET:-/run/podman/podman.sock}
say() { echo "ensure-container-engine: $*" >&2; }

packages=(podman runc netavark aardvark-dns podman-compose debootstrap iptables catatonit)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done

if [ "$(id -u)" -ne 0 ]; then
  if [ ${#missing[@]} -gt 0 ]; then
    say "not root and missing ${missing[*]}: the kit tests will skip (as root: bash $0)"
  fi
  exit 0
fi

if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# crun fails on these hosts (hybrid cgroups) and CNI plugins are not installed: runc + netavark.
conf=/etc/containers/containers.conf
wanted='[containers]
default_ulimits = []
[network]
network_backend = "netavark"
[engine]
runtime = "runc"'
if [ ! -f "$conf" ]; then
  mkdir -p /etc/containers
  printf '%s\n' "$wanted" > "$conf"
  say "wrote $conf"
fi
# A podman that already chose CNI keeps it until reset; reset only an engine that holds nothing.
if [ "$(podman info --format '{{.Host.NetworkBackend}}' 2>/dev/null)" != netavark ]; then
  if [ -z "$(podman ps -aq 2>/dev/null)" ] && [ -z "$(podman images -q 2>/dev/null)" ]; then
    say "switching the empty engine to netavark (podman system reset)"
    podman system reset -f >/dev/null 2>&1
  else
    say "warning: podman uses $(podman info --format '{{.Host.NetworkBackend}}') and holds containers or images; not resetting"
  fi
fi

# The base image: Debian's minimal root file system from the machine's own mirror, less docs,
# manuals, locales and package caches (what debian:bookworm-slim leaves out too).
if ! podman image exists "$BASE_IMAGE"; then
  exec 9>/run/fundus-base-image.lock
  flock 9
  if ! podman image exists "$BASE_IMAGE"; then
    mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    [ -n "$mirror" ] || mirror=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
    mirror=${mirror:-http://deb.debian.org/debian}
    rootfs=$(mktemp -d /var/tmp/fundus-rootfs.XXXXXX)
    trap 'rm -rf "$rootfs"' EXIT
    say "building $BASE_IMAGE with debootstrap from $mirror (1-4 min)"
    if debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >/var/tmp/fundus-debootstrap.log 2>&1; then
      rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
        "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
        "$rootfs"/usr/share/locale/* "$rootfs"/var/log/*.log
      cat > "$rootfs"/etc/dpkg/dpkg.cfg.d/slim <<'SLIM'
path-exclude /usr/share/doc/*
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
SLIM
      printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' > "$rootfs"/etc/apt/apt.conf.d/99slim
      tar -C "$rootfs" -c . | podman import --change 'CMD ["bash"]' - "$BASE_IMAGE" >/dev/null
      say "built $BASE_IMAGE"
    else
      say "debootstrap failed (see /var/tmp/fundus-debootstrap.log): the kit tests will skip"
    fi
    rm -rf "$rootfs"
    trap - EXIT
  fi
  flock -u 9
fi

# testcontainers and the Docker CLI talk to this socket (DOCKER_HOST=unix://$SOCKET).
if ! curl -fsS --max-time 3 --unix-socket "$SOCKET" http://d/_ping >/dev/null 2>&1; then
  mkdir -p "$(dirname "$SOCKET")"
  rm -f "$SOCKET"
  setsid nohup podman system service --time=0 "unix://$SOCKET" >/var/tmp/podman-service.log 2>&1 < /dev/null &
  for _ in $(seq 1 50); do
    curl -fsS --max-time 1 --unix-socket "$SOCKET" http://d/_ping >/dev/null 2>&1 && break
    sleep 0.2
  done
  say "podman API on unix://$SOCKET"
fi
