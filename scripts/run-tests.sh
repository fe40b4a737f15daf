#!/usr/bin/env bash
# Installs what ember needs, builds it, and runs the whole test suite with Vulkan validation on.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure
