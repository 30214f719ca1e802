#!/usr/bin/env bash
# Installs the project's Python tools from PyPI into a virtual environment under .wds-tools/venv
# (gitignored), each pinned and each once; prints the venv's bin directory.
#   Schemathesis            the hostile-input run of `npm test`
#   openapi-python-client   the generated-clients suite of scripts/test-sdks.sh (a Python client made
#                           from /openapi.json as users make theirs; its own httpx and attrs run it)
# Usage: scripts/tools-venv.sh   (idempotent; SCHEMATHESIS_VERSION, OPENAPI_PYTHON_CLIENT_VERSION override the pins)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.wds-tools/venv"
tools=("schemathesis==${SCHEMATHESIS_VERSION:-4.32.5}" "openapi-python-client==${OPENAPI_PYTHON_CLIENT_VERSION:-0.29.1}")
if [[ ! -x "$venv/bin/python" ]]; then
  command -v python3 >/dev/null || { echo "python3 is needed for the project's Python tools (apt-get install python3 python3-venv)" >&2; exit 1; }
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
fi
for tool in "${tools[@]}"; do
  marker="$venv/.installed-${tool/==/-}"
  if [[ ! -f "$marker" ]]; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$tool" >&2
    touch "$marker"
  fi
done
echo "$venv/bin"
