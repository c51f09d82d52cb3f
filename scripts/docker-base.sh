#!/usr/bin/env bash
# Build the Debian base image MAW's images start from where no image registry answers
# (docker pull python:3.11-slim fails): Debian bookworm's own packages, Python 3.11
# included, made into an image by mmdebstrap (Debian's package; about 40 s).
#
#   bash scripts/docker-base.sh [--host-ca] [--tag maw-base:bookworm]
#   docker compose -f docker/compose.yaml build      (with MAW_BASE=maw-base:bookworm)
#
# --host-ca   also copy this host's CA bundle to docker/ca/host.crt, for builds behind
#             a TLS-intercepting proxy whose CA the host trusts (docker/ca/README.md)
# The base has what the python:3.11-slim image has that MAW's Dockerfiles use: python3
# with venv and pip's needs, ca-certificates, useradd. An image of that tag that exists
# already is kept (--rebuild to make it again).
set -euo pipefail
cd "$(dirname "$0")/.."
TAG=maw-base:bookworm
HOST_CA=0
REBUILD=0
while [ $# -gt 0 ]; do
  case "$1" in
    --host-ca) HOST_CA=1 ;;
    --rebuild) REBUILD=1 ;;
    --tag) shift; TAG="${1:?--tag needs a name}" ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "docker-base: unknown option $1 (--host-ca, --rebuild, --tag NAME)" >&2; exit 2 ;;
  esac
  shift
done
if [ "$HOST_CA" = 1 ]; then
  bundle=""
  for f in /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt; do
    [ -s "$f" ] && bundle=$f && break
  done
  [ -n "$bundle" ] || { echo "docker-base: no CA bundle found on this host" >&2; exit 1; }
  cp "$bundle" docker/ca/host.crt
  echo "docker-base: $bundle copied to docker/ca/host.crt" >&2
fi
command -v docker >/dev/null || { echo "docker-base: no docker command (apt-get install docker.io)" >&2; exit 1; }
docker info >/dev/null 2>&1 || { echo "docker-base: no Docker engine answers (start dockerd)" >&2; exit 1; }
if [ "$REBUILD" = 0 ] && docker image inspect "$TAG" >/dev/null 2>&1; then
  echo "docker-base: $TAG exists (--rebuild to make it again)" >&2
  exit 0
fi
command -v mmdebstrap >/dev/null || { echo "docker-base: no mmdebstrap (apt-get install mmdebstrap)" >&2; exit 1; }
# minbase: dpkg, apt and the essential set; python3 is Debian bookworm's 3.11; the docs,
# man pages and locales are left out, as the slim images leave them out
mmdebstrap --variant=minbase --include=python3,python3-venv,ca-certificates,passwd \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
  --aptopt='APT::Install-Recommends "false"' \
  bookworm - | docker import --change 'ENV LANG=C.UTF-8' --change 'CMD ["python3"]' - "$TAG" >/dev/null
echo "docker-base: built $TAG ($(docker image inspect -f '{{.Size}}' "$TAG" | awk '{printf "%.0f MB", $1/1e6}'))" >&2
