#!/usr/bin/env bash
# One call on a machine with an NVIDIA GPU, CUDA, PyTorch and a C++ compiler but no package mirror (the
# device tool's machines): runs the test suite on the NVIDIA Vulkan driver and on CUDA, ember-bench on
# both, and PyTorch's timings of the same work for the ratios in docs/PERFORMANCE.md.
#
# Here, first: scripts/gpu-payload.sh BUILD_DIR (a CUDA-enabled build) packs .gpu/prebuilt.tar.xz. There,
# the tests are compiled against that machine's LibTorch (the oracle), with a precompiled header, and
# linked with the libember.so from the payload. Results go to $OUT (the device tool's output folder) or
# ./gpu-results: info.txt, compile-errors.log, tests-{cuda,vulkan}.log, bench-{cuda,vulkan}.json,
# pipeline-cache.bin.xz (for the next call),
# torch-reference.txt, train.txt (ember-train and PyTorch's epoch on Fashion-MNIST on each device, and the
# checkpoint checked with Python's safetensors package both ways).
# The Fashion-MNIST IDX files travel in .gpu/fashion-mnist (scripts/gpu-payload.sh copies them there).
# Everything is planned to end within GPU_SECONDS (default 560): what runs out of time is skipped and named.
# To rerun a part: CUDA_FILTER='*Attention*/cuda' VULKAN_FILTER='*Attention*:-*/cuda' SKIP_BENCH=1 scripts/run-gpu.sh
# (CUDA_FILTER_NEXT and VULKAN_FILTER_NEXT: a second round in the time the first leaves; SKIP_TORCH_OPS=1
# keeps PyTorch's training steps and leaves out its op timings;
# also BENCH_FILTER, a regex of ember-bench names; TRAIN_RUNS, e.g. "cnn:cuda:0"; SKIP_TRAIN=1;
# REUSE_TESTS=1 runs the ember-tests a call before built on a machine still warm, without compiling).
# The CUDA and Vulkan tests run at the same time, each in TEST_SHARDS processes (default 5): most of a
# test's time is the host's (LibTorch's oracle, pipeline creation), so one process leaves the GPU idle.
# (EMBER_GPU_PYTHON names a python3 with torch where the first on PATH lacks it).
set -uo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
deadline=$((SECONDS + ${GPU_SECONDS:-560}))
left() { echo $((deadline - SECONDS)); }
out="${OUT:-gpu-results}"
mkdir -p "$out"
# Outside the checkout, which each call copies anew: in .gpu/work, a second call on a still-warm machine
# found no tests for REUSE_TESTS (2026-12-04) and compiled them again. /tmp lasts as long as the machine.
work="${EMBER_GPU_WORK:-/tmp/ember-gpu-work}"
mkdir -p "$work"
[ -f "$work/lib/libember.so" ] && [ "$work/lib/libember.so" -nt .gpu/prebuilt.tar.xz ] ||
  tar -xJf .gpu/prebuilt.tar.xz -C "$work" || exit 1

python="${EMBER_GPU_PYTHON:-python3}"
torch_dir="$($python -c 'import os, torch; print(os.path.dirname(torch.__file__))')" || exit 1
abi="$($python -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')"
site="$(dirname "$torch_dir")"
export LD_LIBRARY_PATH="$work/lib:$torch_dir/lib:$(ls -d "$site"/nvidia/*/lib 2>/dev/null | tr '\n' ':')/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export VK_LAYER_PATH="$work/layers"
export EMBER_PIPELINE_CACHE="$work/pipeline-cache.bin"
# The driver's compiled pipelines from the last call (copy $OUT's pipeline-cache.bin.xz to .gpu/ and carry
# it): compiling them is most of what the Vulkan tests spend on a fresh machine.
[ -f .gpu/pipeline-cache.bin.xz ] && [ ! -f "$EMBER_PIPELINE_CACHE" ] && xz -dc .gpu/pipeline-cache.bin.xz >"$EMBER_PIPELINE_CACHE"
export EMBER_PYTHON=true  # ember-bench's CPU references; PyTorch's GPU timings come from torch_reference.py
# The Python-oracle tests' interpreter: the machine's /usr/bin/python3 has no torch.
EMBER_TEST_PYTHON="$(command -v "$python")" && export EMBER_TEST_PYTHON
# The NVIDIA Vulkan driver there needs the GL dispatch libraries (scripts/gpu-payload.sh fetches them);
# without them vkCreateInstance finds no driver.
if [ -d .gl ] && [ "$(id -u)" = 0 ]; then
  for deb in .gl/*.deb; do dpkg -x "$deb" /; done
  ldconfig
fi
if [ -z "${VK_DRIVER_FILES:-}" ] && ! ls /usr/share/vulkan/icd.d/nvidia* /etc/vulkan/icd.d/nvidia* >/dev/null 2>&1; then
  for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/local/nvidia/icd.d/nvidia_icd.json; do
    [ -f "$icd" ] && export VK_DRIVER_FILES="$icd" && break
  done
fi
egl_vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$egl_vendor" ] && export __EGL_VENDOR_LIBRARY_FILENAMES="$egl_vendor"

{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  g++ --version | head -1
  echo "torch $($python -c 'import torch; print(torch.__version__)') at $torch_dir, cxx11 abi $abi"
  echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-}"
  ldd "$work/lib/libember.so" "$work/bin/ember-bench" | grep 'not found' | sort -u
  for device in vulkan:0 cuda:0; do EMBER_DEVICE=$device timeout 60 "$work/bin/ember-info" 2>&1; done
  # Why the loader found no driver, when it found none.
  EMBER_DEVICE=vulkan:0 timeout 60 "$work/bin/ember-info" >/dev/null 2>&1 ||
    VK_LOADER_DEBUG=error,warn,driver EMBER_DEVICE=vulkan:0 timeout 60 "$work/bin/ember-info" 2>&1 | head -40
} >"$out/info.txt" 2>&1
cat "$out/info.txt"

# The tests, compiled with one precompiled header for LibTorch and GoogleTest. A file that does not
# compile is left out and named; the rest still link and run.
flags=(-std=c++20 -O0 -w -D_GLIBCXX_USE_CXX11_ABI="$abi" -DGTEST_HAS_PTHREAD=1 -I"$root" -I"$work/gen/ported"
       -isystem "$work/include" -isystem "$torch_dir/include" -isystem "$torch_dir/include/torch/csrc/api/include"
       -isystem /usr/local/cuda/include)
compile_tests() {
  mkdir -p "$work/pch" "$work/obj" "$work/err"
  printf '#include <torch/torch.h>\n#include <gtest/gtest.h>\n' >"$work/pch/all.h"
  [ -f "$work/pch/all.h.gch" ] || g++ "${flags[@]}" -x c++-header "$work/pch/all.h" -o "$work/pch/all.h.gch" || return 1
  export work root
  export flags_line="${flags[*]}"
  find tests -name '*.cpp' -not -path '*/package_consumer/*' | sort |
    xargs -P "$(nproc)" -I{} bash -c 'o="$work/obj/$(echo {} | tr / _).o"
      [ "$o" -nt {} ] || nice g++ $flags_line -include "$work/pch/all.h" -c {} -o "$o" 2>"$work/err/$(basename {}).log" ||
      { rm -f "$o"; echo "does not compile: {}"; }'
  for shader in "$work"/gen/test_shaders/*.cpp; do g++ -std=c++20 -I"$root" -c "$shader" -o "${shader%.cpp}.o"; done
  link() {
    g++ -o "$work/ember-tests" "$work"/obj/*.o "$work"/gen/test_shaders/*.o -L"$work/lib" -lember -l:libvulkan.so.1 \
      -l:libgmock.a -l:libgtest.a -L"$torch_dir/lib" -Wl,--no-as-needed -ltorch_cpu -lc10 -Wl,--as-needed -lpthread "$@"
  }
  # A helper file that this LibTorch cannot compile leaves symbols undefined; the tests that reach them
  # then crash, and run_tests leaves those out, rather than none running at all.
  link || { echo "linking again with unresolved symbols allowed"; link -Wl,--unresolved-symbols=ignore-all; }
}
start=$SECONDS
compile_log="$work/compile-errors.log"
if [ -n "${REUSE_TESTS:-}" ] && [ -x "$work/ember-tests" ]; then
  : >"$compile_log"; compiling=""
else
  rm -f "$work/ember-tests"
  compile_tests >"$compile_log" 2>&1 &
  compiling=$!
fi

# Benchmarks and training run while the tests compile (the compiler is niced).
step() {  # seconds, command...: runs it if the time left allows, keeping 250 s for the tests
  local seconds=$1; shift
  local budget=$(( $(left) - 250 ))
  [ "$budget" -gt 10 ] || { echo "skipped for time: $*"; return 1; }
  [ "$seconds" -le "$budget" ] || seconds=$budget
  timeout "$seconds" "$@"
}
if [ -z "${SKIP_BENCH:-}" ]; then
  for device in cuda:0 vulkan:0; do
    EMBER_DEVICE=$device step 60 "$work/bin/ember-bench" --benchmark_min_time=0.05 \
      --benchmark_filter="${BENCH_FILTER:-BM_Matmul[A-Za-z]*/(register|tiled)/|BM_CopyKernel|BM_AddKernel/|BM_TensorExp|BM_TensorSum|BM_Attention/kernels/fwd/E64|BM_TrainStep|BM_AdamStep|BM_LayerNorm|BM_CrossEntropy|BM_Conv/auto|BM_ConvFashionMnistLayers/auto}" \
      --benchmark_format=json --benchmark_out="$out/bench-${device%:0}.json" >"$work/bench-${device%:0}.log" 2>&1 ||
      # An unfinished run's JSON stops at the last benchmark that ended; its output says why (info.txt).
      { echo "== ember-bench on $device: exit $?"; tail -20 "$work/bench-${device%:0}.log"; } | tee -a "$out/info.txt"
  done
  { [ -n "${SKIP_TORCH_OPS:-}" ] || step 60 $python bench/torch_reference.py
    step 30 $python bench/train_torch_reference.py --step-bench --device cuda; } >"$out/torch-reference.txt" 2>&1
fi
if [ -z "${SKIP_TRAIN:-}" ]; then
  export FASHION_MNIST="$root/.gpu/fashion-mnist"
  runs="$work/runs"
  rm -rf "$runs"
  train() { LD_LIBRARY_PATH="$work/lib-train:$LD_LIBRARY_PATH" step "$1" "$work/bin/ember-train" --data "$FASHION_MNIST" --workers 4 "${@:2}" | tr '\r' '\n' | grep -v '^epoch [0-9]*/'; }
  {
    for model in mlp cnn; do
      for device in cuda:0 vulkan:0; do
        [[ " ${TRAIN_RUNS:-mlp:cuda:0 mlp:vulkan:0 cnn:cuda:0 cnn:vulkan:0} " == *" $model:$device "* ]] || continue
        echo "== ember-train --model $model --device $device, one epoch"
        train 40 --model $model --epochs 1 --device $device --out "$runs/$model-${device%:0}"
        cat "$runs/$model-${device%:0}/metrics.csv" 2>/dev/null
      done
      [ -n "${TRAIN_RUNS:-}" ] && continue  # a chosen few: no PyTorch reference or checkpoint checks
      echo "== PyTorch, $model on cuda, one epoch"
      step 30 $python bench/train_torch_reference.py --model $model --device cuda
      if [ $model = mlp ]; then
        echo "== Python's safetensors package reads ember's checkpoint"
        step 30 $python scripts/check_safetensors.py read "$runs/mlp-cuda"
      fi
    done
    if [ -z "${TRAIN_RUNS:-}" ]; then
      echo "== Python's safetensors package writes a checkpoint that ember resumes from"
      short=(--model mlp --max-batches 40 --device cuda:0)
      train 30 "${short[@]}" --epochs 1 --out "$runs/short-ember" &&
        step 20 $python scripts/check_safetensors.py rewrite "$runs/short-ember" "$runs/short-python" &&
        train 30 "${short[@]}" --epochs 2 --resume --out "$runs/short-ember" &&
        train 30 "${short[@]}" --epochs 2 --resume --out "$runs/short-python" &&
        step 20 $python scripts/check_safetensors.py same-epoch "$runs/short-ember" "$runs/short-python" 2
    fi
  } >"$out/train.txt" 2>&1
  cat "$out/train.txt"
fi
[ -n "$compiling" ] && wait $compiling
echo "tests compiled in $((SECONDS - start)) s"
for log in "$work"/err/*.log; do [ -s "$log" ] && { echo "== $log"; head -30 "$log"; }; done >>"$compile_log"
{ echo "== compiling the tests"; cat "$compile_log"; } >>"$out/info.txt"
grep -h "does not compile" "$compile_log"
[ -x "$work/ember-tests" ] || { tail -40 "$compile_log"; exit 1; }

# A test that crashes the process is named and left out, and the run goes on without the suites that
# had finished (gtest runs a suite's tests together), up to thirty times.
run_shard() {  # log, gtest filter, deadline
  local log="$1" positive="${2%%-*}" negative="" test_deadline=$3 rc crashed attempt_log="$1.attempt"
  [[ "$2" == *-* ]] && negative="${2#*-}"
  : >"$log"
  for attempt in $(seq 30); do
    [ $((test_deadline - SECONDS)) -gt 5 ] || { echo "out of time for $(basename "$log")" | tee -a "$log"; return 1; }
    # optional_static_tls: the NVIDIA Vulkan driver, loaded after LibTorch and CUDA, needs more static TLS
    # than glibc keeps spare ("cannot allocate memory in static TLS block" otherwise).
    GLIBC_TUNABLES=glibc.rtld.optional_static_tls=65536 EMBER_VALIDATION=1 timeout $((test_deadline - SECONDS)) "$work/ember-tests" \
      --gtest_filter="${positive:-*}${negative:+-$negative}" >"$attempt_log" 2>&1
    rc=$?
    cat "$attempt_log" >>"$log"
    [ $rc -le 1 ] && return $rc
    crashed="$(grep '^\[ RUN      \]' "$attempt_log" | tail -1 | awk '{print $4}')"
    echo "ember-tests ended with status $rc in $crashed" | tee -a "$log"
    [ $rc -eq 124 ] && return 1
    negative="${negative:+$negative:}$crashed"
    for suite in $(grep -E '^\[ +(OK|FAILED) +\]' "$attempt_log" | awk '{print $4}' | grep '\.' | sed 's/\.[^.]*$//' | sort -u); do
      [ "$suite" = "${crashed%.*}" ] || negative="$negative:$suite.*"
    done
  done
  return 1
}
# Splits a filter's tests by whole suites into TEST_SHARDS groups of about equal counts and runs them at
# once, then runs what failed again in one process, alone, to tell a test that fails from one that only
# failed beside others.
run_tests() {  # name, gtest filter, seconds
  local shards=${TEST_SHARDS:-5} k status=0 pids=() failed deadline=$((SECONDS + $3))
  rm -f "$work/tests-$1-"*
  # One line per suite (its test count, then its tests' full names joined by ':'), largest first, dealt
  # to the shard with the fewest tests so far. A suite of more than 25 tests (the op rows: one suite of
  # over a thousand) goes in lines of 25, so that it spreads over the shards too.
  "$work/ember-tests" --gtest_list_tests --gtest_filter="$2" 2>/dev/null |
    awk '/^[^ ]/ { suite = $1 }
         /^  / { count[suite]++; names[suite] = names[suite] (count[suite] > 1 ? ":" : "") suite $1
                 if (count[suite] == 25) { print count[suite], names[suite]; count[suite] = 0; names[suite] = "" } }
         END { for (s in count) if (count[s]) print count[s], names[s] }' | sort -rn |
    awk -v n="$shards" '{ best = 0; for (k = 1; k < n; k++) if (load[k] < load[best]) best = k
                          load[best] += $1; group[best] = group[best] (group[best] ? ":" : "") $2 }
                        END { for (k = 0; k < n; k++) if (group[k]) print group[k] }' >"$work/shards-$1"
  k=0
  while read -r tests; do
    run_shard "$work/tests-$1-$k.log" "$tests" $((SECONDS + $3 * 4 / 5)) &
    pids+=($!); k=$((k + 1))
  done <"$work/shards-$1"
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  failed="$(cat "$work/tests-$1-"*.log | grep -E '^\[  FAILED  \] [^ ]+\.' | awk '{ sub(/,$/, "", $4); print $4 }' | sort -u | paste -sd:)"
  [ -n "$failed" ] && run_shard "$work/tests-$1-rerun" "$failed" $deadline
  for log in "$work/tests-$1-"*; do
    [[ "$log" == *.attempt ]] || { echo "=== $(basename "$log")"; cat "$log"; }
  done >>"$out/tests-$1.log"
  return $status
}
# One backend's tests: the first filter names what must run; a second (CUDA_FILTER_NEXT,
# VULKAN_FILTER_NEXT) what may, in the time the first leaves.
run_rounds() {  # name, filter, next filter, seconds
  local status=0
  run_tests "$1" "$2" "$4" || status=1
  if [ -n "$3" ] && [ "$(left)" -gt 40 ]; then run_tests "$1" "$3" $(( $(left) - 10 )) || status=1; fi
  return $status
}
status=0
rm -f "$out"/tests-*.log
test_seconds=$(( $(left) - 10 ))
run_rounds cuda "${CUDA_FILTER:-*/cuda:*/cuda_*}" "${CUDA_FILTER_NEXT:-}" "${CUDA_TEST_SECONDS:-$test_seconds}" & cuda_tests=$!
run_rounds vulkan "${VULKAN_FILTER:--*/cuda:*/cuda_*}" "${VULKAN_FILTER_NEXT:-}" "${VULKAN_TEST_SECONDS:-$test_seconds}" || status=1
wait $cuda_tests || status=1
[ -f "$EMBER_PIPELINE_CACHE" ] && xz -T0 -c "$EMBER_PIPELINE_CACHE" >"$out/pipeline-cache.bin.xz"
for log in "$out"/tests-*.log; do
  echo "== $log"
  awk '/^===/ { print; delete seen } /^\[  PASSED  \]|ended with status|out of time/ { print "  " $0 }
       /^\[  FAILED  \] [^ ]+\./ { name = $4; sub(/,$/, "", name); if (!seen[name]++) print "  failed: " name }' "$log"
done
exit $status
