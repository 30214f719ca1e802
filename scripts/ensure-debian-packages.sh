#!/usr/bin/env bash
# Installs the Debian packages the tests use when their commands are missing:
#   ensure-debian-packages.sh <command>:<package> ...
# e.g. chromium:chromium redis-server:redis-server. Needs root (CI and these machines run as root).
set -euo pipefail
missing=()
for pair in "$@"; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing Debian packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
