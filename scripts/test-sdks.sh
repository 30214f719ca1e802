#!/bin/sh
# Runs the three SDK suites (TypeScript, Python, Java), each with its own ecosystem's tools, against one
# real WDS started by scripts/sdk-harness.ts (anvil + wds start + the fault proxy), then stops it all.
#
#   scripts/test-sdks.sh                 all three
#   scripts/test-sdks.sh python java     some of them (typescript | python | java)
#
# Python packages come from PyPI into sdks/python/.venv (scripts/python-venv.sh), Java artifacts from
# Maven Central (mvn), the TypeScript tools from the root node_modules.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
suites=${*:-typescript python java}
case " $suites " in *" python "*) scripts/python-venv.sh >/dev/null ;; esac
case " $suites " in *" java "*) (cd sdks/java && mvn -B -q test-compile) ;; esac
exec node --import tsx scripts/sdk-harness.ts --records "${WDS_SDK_TEST_RECORDS:-5000}" -- sh scripts/sdk-harness/run-suites.sh $suites
