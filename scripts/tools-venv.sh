#!/usr/bin/env bash
# Installs the project's Python tools (Schemathesis, for the hostile-input run of `npm test`) from PyPI
# into a virtual environment under .wds-tools/venv (gitignored), once; prints the venv's bin directory.
# Usage: scripts/tools-venv.sh   (idempotent; SCHEMATHESIS_VERSION overrides the pinned version)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.wds-tools/venv"
version="${SCHEMATHESIS_VERSION:-4.32.5}"
marker="$venv/.schemathesis-$version"
if [[ ! -f "$marker" ]]; then
  command -v python3 >/dev/null || { echo "python3 is needed for the Schemathesis run (apt-get install python3 python3-venv)" >&2; exit 1; }
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version" >&2
  touch "$marker"
fi
echo "$venv/bin"
