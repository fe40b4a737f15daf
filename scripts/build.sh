#!/usr/bin/env bash
# Configures and builds ember in ./build (Release). The CUDA backend is built when nvcc is found
# (on PATH or in /usr/local/cuda); it needs no GPU to compile.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --parallel "$(nproc)"
