#!/bin/sh
# `npm test`: every step runs even when an earlier one failed, so that one failing suite does not hide
# the others' results (the SDK suites used to be skipped after any service failure); the exit status
# is non-zero when any step failed, and a summary says which. Only a missing prerequisite (the Debian
# packages the suites run) stops it at once: nothing after it could run.
#
#   scripts/test-all.sh
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
failed=''
summary=''

step() {
  name=$1
  shift
  started=$(date +%s)
  if "$@"; then result=passed; else result=FAILED; failed="$failed $name"; fi
  summary="$summary
  $name: $result ($(($(date +%s) - started)) s)"
}

step check npm run check
scripts/ensure-debian-packages.sh chromium:chromium redis-server:redis-server litecoind:litecoind || {
  echo 'npm test: the Debian packages the suites need could not be installed (see above); nothing was tested' >&2
  exit 1
}
step service npm run test --workspace service
step sdks npm run test:sdks

printf '\nnpm test:%s\n' "$summary"
if [ -n "$failed" ]; then
  printf 'failed:%s\n' "$failed" >&2
  exit 1
fi
