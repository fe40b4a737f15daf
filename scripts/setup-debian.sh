#!/usr/bin/env bash
# Installs every Debian package ember needs to build, test and run. Idempotent: when everything is
# already installed it changes nothing and does not touch the network.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libvulkan-dev vulkan-tools vulkan-validationlayers mesa-vulkan-drivers
  glslc spirv-cross libspirv-cross-c-shared-dev
  libgtest-dev libbenchmark-dev
  libtorch-dev libdlpack-dev python3-torch libopenblas0-pthread
  zlib1g-dev libzip-dev nlohmann-json3-dev libcli11-dev libcairo2-dev dataset-fashion-mnist fortunes
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}"
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
