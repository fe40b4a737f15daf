#!/usr/bin/env bash
# Installs what ember needs, builds it, and runs the whole test suite with Vulkan validation on.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/build.sh
status=0
ctest --test-dir build --output-on-failure --parallel "$(nproc)" || status=$?
# ctest sees batches of GoogleTest cases; GoogleTest wrote its counts and each skip's reason into ctest's log.
log=build/Testing/Temporary/LastTest.log
if [ -f "$log" ]; then
  # ctest counts batches; these are the GoogleTest cases in them.
  awk '/^\[  PASSED  \] [0-9]+ tests?\./ { passed += $4 }
       /^\[  SKIPPED \] [0-9]+ tests?, listed below/ { skipped += $4 }
       /^\[  FAILED  \] [0-9]+ tests?, listed below/ { failed += $4 }
       END { printf "GoogleTest cases: %d passed, %d skipped, %d failed\n", passed, skipped, failed }' "$log"
  echo "Skipped tests, by reason:"
  awk '/: Skipped$/ { getline reason; print "  " reason }' "$log" | sort | uniq -c | sort -rn
fi
exit "$status"
