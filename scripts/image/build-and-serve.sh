#!/usr/bin/env bash
# Builds Tollbooth's image on this machine and serves a paid call from it (issue 57, item 8).
#
# These machines have no Docker daemon and no registry of images, so:
#   1. the base image is made here: a minimal Debian (debootstrap) with this machine's Node and npm,
#      imported into podman as localhost/tollbooth-base:node<version>;
#   2. the repository's Dockerfile is built on it with `podman build --isolation chroot`
#      (--build-arg BASE_IMAGE=...), which needs no daemon and no cgroups;
#   3. the image's file system is mounted (`podman image mount`, read-only) and its server runs
#      under chroot as the image's user, with DATA_DIR bound to a fresh folder, driven by
#      server/src/deploy/serve-image.ts: a paid call answered and charged, the image's size printed.
# Running the image as a container (`podman run`) fails on these machines (no cgroups in the
# sandbox), which is why step 3 uses chroot; with Docker, `docker compose up` runs it (README).
#
# Usage (as root): scripts/image/build-and-serve.sh    Takes minutes; downloads Debian packages and
# the npm packages of package-lock.json. IMAGE_WORK_DIR (default /var/tmp/tollbooth-image) keeps the
# debootstrapped base between runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${IMAGE_WORK_DIR:-/var/tmp/tollbooth-image}
node_version=$(node -p 'process.versions.node')
base_tag=localhost/tollbooth-base:node${node_version}
image_tag=localhost/tollbooth:local

if [ "$(id -u)" != 0 ]; then
  echo "build-and-serve.sh: run it as root (debootstrap, podman build and chroot need root)" >&2
  exit 1
fi
missing=()
for tool in podman:podman debootstrap:debootstrap; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool##*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== apt-get install ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

if podman image exists "$base_tag"; then
  echo "== base image $base_tag (kept from an earlier run)"
else
  echo "== base image $base_tag: debootstrap a minimal Debian bookworm, add this machine's node and npm"
  rm -rf "$work/rootfs" && mkdir -p "$work"
  debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    { tail -n 20 "$work/debootstrap.log"; exit 1; }
  install -m 0755 "$(readlink -f "$(command -v node)")" "$work/rootfs/usr/bin/node"
  mkdir -p "$work/rootfs/usr/lib/node_modules"
  cp -a "$(dirname "$(readlink -f "$(command -v npm)")")/../../npm" "$work/rootfs/usr/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$work/rootfs/usr/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$work/rootfs/usr/bin/npx"
  # This machine reaches the npm registry through its own certificate authorities: the base trusts
  # them as the machine does (its CA bundle, and npm's global settings), so `npm ci` in the build works.
  import_changes=(--change 'CMD ["node"]')
  if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
    mkdir -p "$work/rootfs/etc/ssl/certs"
    cp "$NODE_EXTRA_CA_CERTS" "$work/rootfs/etc/ssl/certs/machine-ca.crt"
    import_changes+=(--change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/machine-ca.crt')
  fi
  npm_global=$(npm config get globalconfig)
  if [ -f "$npm_global" ]; then
    mkdir -p "$work/rootfs$(dirname "$npm_global")"
    sed 's#^cafile *=.*#cafile=/etc/ssl/certs/machine-ca.crt#' "$npm_global" >"$work/rootfs$npm_global"
  fi
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  tar -C "$work/rootfs" -c . | podman import "${import_changes[@]}" - "$base_tag" >/dev/null
  rm -rf "$work/rootfs"
fi

echo "== podman build --isolation chroot --build-arg BASE_IMAGE=$base_tag -t $image_tag ."
started=$(date +%s)
podman build --isolation chroot --build-arg BASE_IMAGE="$base_tag" -t "$image_tag" "$root"
echo "   built in $(($(date +%s) - started)) s"

mnt=$(podman image mount "$image_tag")
cleanup() { podman image unmount "$image_tag" >/dev/null 2>&1 || true; }
trap cleanup EXIT
cd "$root/server"
node --import tsx src/deploy/serve-image.ts "$mnt" "$image_tag" "$base_tag"
