#!/bin/sh
# Creates (or refreshes) sdks/python/.venv with the SDK installed editable and its test tools, from PyPI.
# Reinstalls only when pyproject.toml changed since the last run. Prints the venv's python.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
sdk="$root/sdks/python"
venv="$sdk/.venv"
stamp="$venv/.pyproject.sha256"
python=${PYTHON:-python3}
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
want=$(sha256sum "$sdk/pyproject.toml" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$sdk[test]" >&2
  echo "$want" > "$stamp"
fi
echo "$venv/bin/python"
