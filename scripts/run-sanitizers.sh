#!/usr/bin/env bash
# Builds ember-tests with AddressSanitizer and UndefinedBehaviorSanitizer in ./build-sanitize (Vulkan only,
# RelWithDebInfo so reports have lines) and runs it. Arguments go to the test binary, e.g.
#   scripts/run-sanitizers.sh --gtest_filter='*vulkan*:-*Binding*'
# A first argument --build-only stops after the build; --no-build runs what was built last. The two
# halves are apart so that a shared machine can hold a build lock for the build alone.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build-sanitize
mode=all
case "${1:-}" in
  --build-only) mode=build; shift ;;
  --no-build) mode=run; shift ;;
esac

sanitize="-fsanitize=address,undefined -fno-omit-frame-pointer"
if [ "$mode" != run ]; then
  cmake -S . -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DEMBER_CUDA=OFF \
    -DEMBER_BUILD_BENCH=OFF \
    -DCMAKE_C_FLAGS="$sanitize" \
    -DCMAKE_CXX_FLAGS="$sanitize" \
    -DCMAKE_EXE_LINKER_FLAGS="$sanitize" \
    -DCMAKE_SHARED_LINKER_FLAGS="$sanitize"
  cmake --build "$build" --target ember-tests --parallel "$(nproc)"
fi
[ "$mode" = build ] && exit 0

# halt_on_error: the first report ends the run with a non-zero status, so nothing scrolls past.
# detect_leaks=0: LeakSanitizer fails even a single passing test (exit 1) with blocks that lavapipe or
# the validation layers allocated and never free, reported from "<unknown module>" because the Vulkan
# loader has unloaded them by exit; ember's own leaks of device memory are what its allocator tests
# check instead.
# allocator_may_return_null=1: the tests ask LibTorch (and lavapipe) for impossible sizes on purpose
# (2^42 elements) and expect an exception; ASan's default is to abort on such a request.
# UBSan's checks are recoverable by default; halt_on_error makes each report fatal, with its stack.
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=0:allocator_may_return_null=1:print_summary=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export EMBER_PIPELINE_CACHE="${EMBER_PIPELINE_CACHE:-$PWD/$build/pipeline-cache.bin}"
exec "$build/tests/ember-tests" "$@"
