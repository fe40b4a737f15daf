#!/usr/bin/env bash
# One call on a machine with an NVIDIA GPU: builds, runs the test suite on the NVIDIA Vulkan driver and
# on CUDA, then runs ember-bench on both and PyTorch's timings of the same ops for comparison.
# Results go to $OUT (the device tool's output folder) or ./gpu-results.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-results}"
mkdir -p "$out"

if command -v apt-get >/dev/null && [ "$(id -u)" -eq 0 ]; then bash scripts/setup-debian.sh >"$out/setup.log" 2>&1; fi
bash scripts/build.sh >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
./build/tools/ember-info | tee "$out/ember-info.txt"

status=0
# The NVIDIA Vulkan device comes first among Vulkan devices; the CUDA cases pick cuda:0.
EMBER_VALIDATION=1 ./build/tests/ember-tests --gtest_filter='-*/cuda' >"$out/tests-vulkan.log" 2>&1 || status=1
EMBER_VALIDATION=1 ./build/tests/ember-tests --gtest_filter='*/cuda' >"$out/tests-cuda.log" 2>&1 || status=1
tail -3 "$out/tests-vulkan.log" "$out/tests-cuda.log"

for device in vulkan:0 cuda:0; do
  EMBER_DEVICE=$device ./build/bench/ember-bench --benchmark_format=json \
    --benchmark_out="$out/ember-bench-${device/:/}.json" >"$out/ember-bench-${device/:/}.txt" 2>&1 || status=1
done
python3 bench/torch_reference.py >"$out/torch-reference.txt" 2>&1 || status=1
cat "$out/torch-reference.txt"
exit $status
