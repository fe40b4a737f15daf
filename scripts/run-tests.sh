#!/usr/bin/env bash
# Installs what ember needs, builds it, and runs the whole test suite with Vulkan validation on.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/build.sh
status=0
ctest --test-dir build --output-on-failure --parallel "$(nproc)" || status=$?
# ctest counts skipped tests but does not say why; GoogleTest wrote each reason into ctest's log.
log=build/Testing/Temporary/LastTest.log
if [ -f "$log" ]; then
  echo "Skipped tests, by reason:"
  awk '/: Skipped$/ { getline reason; print "  " reason }' "$log" | sort | uniq -c | sort -rn
fi
exit "$status"
