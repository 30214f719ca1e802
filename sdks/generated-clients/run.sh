#!/bin/sh
# The generated-clients suite (scripts/test-sdks.sh generated): clients made from the running service's
# /openapi.json with the standard generators, as users make theirs, compiled and called against it.
#   openapi-typescript (root devDependency, pinned) -> .out/wds-api.ts; `tsc --noEmit` type-checks
#     typescript.test.ts (openapi-fetch typed by the generated paths), node's test runner runs it
#   openapi-python-client (pinned, in .wds-tools/venv by scripts/tools-venv.sh) -> .out/python/wds_api_client;
#     unittest runs test_python_client.py with it
# Needs the harness's environment (WDS_BASE_URL, WDS_API_KEY, WDS_TEST_WALLET): started inside it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="$here/.out"
rm -rf "$out"
mkdir -p "$out"
node -e 'fetch(process.argv[1]).then(async (r) => { if (!r.ok) throw new Error(`GET /openapi.json: ${r.status}`); process.stdout.write(await r.text()) })' \
  "$WDS_BASE_URL/openapi.json" > "$out/openapi.json"

echo "generated clients: openapi-typescript"
"$root/node_modules/.bin/openapi-typescript" "$out/openapi.json" --output "$out/wds-api.ts" --silent
"$root/node_modules/.bin/tsc" -p "$here/tsconfig.json"
(cd "$here" && node --import tsx --test typescript.test.ts)

echo "generated clients: openapi-python-client"
bin=$("$root/scripts/tools-venv.sh")
# the generator formats its output with ruff, from the same venv
PATH="$bin:$PATH" "$bin/openapi-python-client" generate --path "$out/openapi.json" --config "$here/openapi-python-client.yaml" \
  --meta none --output-path "$out/python/wds_api_client" > "$out/openapi-python-client.log" 2>&1 \
  || { cat "$out/openapi-python-client.log" >&2; exit 1; }
# a warning means a part of the document the generator could not make a client of
if grep -q -i "warning" "$out/openapi-python-client.log"; then cat "$out/openapi-python-client.log" >&2; exit 1; fi
(cd "$here" && PYTHONPATH="$out/python" "$bin/python" -m unittest test_python_client)
