#!/bin/sh
# Runs the named SDK suites (and the generated-clients one) one after another (they share the service
# and the fault proxy), each timed; fails when any failed. Started by scripts/test-sdks.sh inside the harness.
root=$(cd "$(dirname "$0")/../.." && pwd)
failed=""
summary=""
for suite in "$@"; do
  started=$(date +%s)
  case $suite in
    typescript) (cd "$root/sdks/typescript" && npx --no-install vitest run) ;;
    python) (cd "$root/sdks/python" && .venv/bin/python -m pytest -q) ;;
    java) (cd "$root/sdks/java" && mvn -B -q test) ;;
    generated) sh "$root/sdks/generated-clients/run.sh" ;;
    *) echo "unknown suite $suite" >&2; false ;;
  esac
  code=$?
  summary="$summary\n  $suite: $([ $code -eq 0 ] && echo passed || echo FAILED) in $(($(date +%s) - started)) s"
  [ $code -eq 0 ] || failed="$failed $suite"
done
printf "SDK suites:$summary\n"
[ -z "$failed" ]
