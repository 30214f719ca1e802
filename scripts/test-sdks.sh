#!/bin/sh
# Runs the three SDK suites (TypeScript, Python, Java), each with its own ecosystem's tools, and the
# generated-clients suite (sdks/generated-clients: openapi-typescript and openapi-python-client on
# /openapi.json) against one real WDS started by scripts/sdk-harness.ts (anvil + wds start + the fault
# proxy), then stops it all.
#
#   scripts/test-sdks.sh                 all four
#   scripts/test-sdks.sh python java     some of them (typescript | python | java | generated)
#
# Python packages come from PyPI into sdks/python/.venv (scripts/python-venv.sh) and, for the generator,
# .wds-tools/venv (scripts/tools-venv.sh), Java artifacts from Maven Central (mvn), the TypeScript tools
# from the root node_modules.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
suites=${*:-typescript python java generated}
case " $suites " in *" python "*) scripts/python-venv.sh >/dev/null ;; esac
case " $suites " in *" generated "*) scripts/tools-venv.sh >/dev/null ;; esac
case " $suites " in *" java "*) (cd sdks/java && mvn -B -q test-compile) ;; esac
exec node --import tsx scripts/sdk-harness.ts --records "${WDS_SDK_TEST_RECORDS:-5000}" -- sh scripts/sdk-harness/run-suites.sh $suites
