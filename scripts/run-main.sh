#!/usr/bin/env bash
# The main job. Until training lands it lists the devices and measures the best one: ember-info, then
# ember-bench's headline figures. EMBER_DEVICE picks another device (vulkan:1, cuda:0, part of a name).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/build.sh
./build/tools/ember-info
./build/bench/ember-bench --benchmark_filter="${EMBER_BENCH_FILTER:-BM_DeviceCopy/bytes:16777216|BM_AddKernel/bytes:16777216|BM_RecordAdd|BM_DependentAddChain}"
