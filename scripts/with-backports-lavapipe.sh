#!/usr/bin/env bash
# Runs a command on lavapipe from Debian's bookworm-backports (Mesa 25) instead of bookworm's (Mesa 22.3),
# without installing it: apt, with its own sources list and state under a cache folder, downloads
# mesa-vulkan-drivers and the libdrm it needs (signatures checked against Debian's keyring), unpacks
# them there, and the command runs with the Vulkan loader pointed at that driver alone.
#
#   bash scripts/with-backports-lavapipe.sh ./build/bench/ember-bench --benchmark_filter=BM_AdamStep
#   bash scripts/with-backports-lavapipe.sh ctest --test-dir build --parallel 2
#
# Why: the two drivers compile ember's kernels differently, so the figures in docs/PERFORMANCE.md name the
# driver they ran on ("Lavapipe from bookworm-backports"). The unpacked driver stays in
# ${EMBER_BACKPORTS_CACHE:-~/.cache/ember/backports-lavapipe} for the next call.
set -euo pipefail
if [ $# -eq 0 ]; then
  echo "usage: $0 COMMAND [ARGS...]" >&2
  exit 2
fi

cache="${EMBER_BACKPORTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ember/backports-lavapipe}"
root="$cache/root"
lib="$root/usr/lib/x86_64-linux-gnu"
icd="$cache/lvp_icd.json"

if [ ! -f "$icd" ]; then
  mkdir -p "$cache/apt/lists/partial" "$cache/apt/archives/partial" "$cache/debs"
  echo "deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-backports main" > "$cache/apt/sources.list"
  apt_options=(
    -o "Dir::Etc::SourceList=$cache/apt/sources.list" -o "Dir::Etc::SourceParts=-"
    -o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt" -o "Dir::State::status=/var/lib/dpkg/status"
    -o "Debug::NoLocking=1"
  )
  echo "with-backports-lavapipe: fetching mesa-vulkan-drivers from bookworm-backports into $cache"
  apt-get "${apt_options[@]}" update -qq
  # The driver, and the libdrm it needs newer than bookworm's.
  (cd "$cache/debs" && apt-get "${apt_options[@]}" download \
    mesa-vulkan-drivers/bookworm-backports libdrm2/bookworm-backports libdrm-amdgpu1/bookworm-backports)
  for deb in "$cache"/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done
  [ -f "$lib/libvulkan_lvp.so" ] || { echo "with-backports-lavapipe: no libvulkan_lvp.so in the packages" >&2; exit 1; }
  printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.3.0"}}\n' \
    "$lib/libvulkan_lvp.so" > "$icd"
fi

export VK_ICD_FILENAMES="$icd"  # VK_DRIVER_FILES in newer loaders; bookworm's reads this one
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$@"
