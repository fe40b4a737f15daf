#!/usr/bin/env bash
# Packs what scripts/run-gpu.sh needs on a GPU machine that has CUDA, PyTorch and a compiler but no
# package mirror: ember built here with its CUDA backend, the Vulkan loader and validation layer, and
# the headers and static libraries the tests compile against there. The tests themselves are compiled
# there, against that machine's LibTorch, because Debian's LibTorch drags in hundreds of MB of libraries.
#   scripts/gpu-payload.sh [BUILD_DIR]     (a build with EMBER_HAVE_CUDA; default ./build)
# Writes .gpu/prebuilt.tar.xz, .gpu/fashion-mnist/ and .gl/ (carry all three); both folders are git-ignored
# through .git/info/exclude.
set -euo pipefail
cd "$(dirname "$0")/.."
build="$(realpath "${1:-build}")"
grep -q 'cudnn' "$build/build.ninja" ||
  { echo "$build has no CUDA backend" >&2; exit 1; }

grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >>.git/info/exclude
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,lib,layers,include,gen}

cp "$build/libember.so" "$stage/lib/"
cp "$build/bench/ember-bench" "$build/tools/ember-info" "$build/tools/ember-train/ember-train" "$stage/bin/"
# The loader and the libraries libember.so and ember-bench link that a CUDA image may lack.
system=/usr/lib/x86_64-linux-gnu
for library in libvulkan.so.1 libspirv-cross-c-shared.so.0 libzip.so.4 libbenchmark.so.1debian \
               libgtest.a libgmock.a; do
  cp -L "$system/$library" "$stage/lib/"
done
# ember-train's own libraries (cairo for its plot, and what cairo needs), apart, so that nothing else
# there loads Debian's copies of libraries the machine has too.
mkdir -p "$stage/lib-train"
ldd "$build/tools/ember-train/ember-train" | awk '/=> \// { print $3 }' |
  grep -v -E '/(libember|libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|libvulkan|libcublas|libcublasLt|libcudnn)\.so' |
  xargs -I{} cp -L {} "$stage/lib-train/"
cp "$system/libVkLayer_khronos_validation.so" "$stage/layers/"
sed 's#"library_path": "libVkLayer#"library_path": "./libVkLayer#' \
  /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json >"$stage/layers/VkLayer_khronos_validation.json"
for header in gtest gmock vulkan vk_video nlohmann dlpack; do
  cp -r "/usr/include/$header" "$stage/include/"
done
cp -r "$build/generated/test_shaders" "$build/tests/ported" "$stage/gen/"
rm -f "$stage"/gen/test_shaders/*.d

mkdir -p .gpu/fashion-mnist
tar -C "$stage" -cf - . | xz -T0 -6 >.gpu/prebuilt.tar.xz
# ember-train's data there, carried as they are (already gzip-compressed).
cp /usr/share/datasets/fashion-mnist/*.gz .gpu/fashion-mnist/
# The GL vendor-neutral dispatch libraries and the Vulkan loader as Debian packages, which the NVIDIA
# Vulkan driver needs and the CUDA image lacks; run-gpu.sh unpacks them into / there.
grep -qx '/.gl/' .git/info/exclude || echo '/.gl/' >>.git/info/exclude
mkdir -p .gl /tmp/ember-apt-lists/partial
apt_options=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/ember-apt-lists)
apt-get "${apt_options[@]}" update >/dev/null
(cd .gl && apt-get "${apt_options[@]}" download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 2>/dev/null)
ls -la .gpu/prebuilt.tar.xz .gpu/fashion-mnist .gl
