#pragma once
// Host side of shaders/strided.glsl: binds each operand of a launch piece as a window of its buffer
// and fills the push constants that locate its elements in that window.
#include <array>
#include <cstdint>
#include <span>

#include "runtime/launch_plan.h"
#include "runtime/vulkan/vulkan_stream.h"

namespace ember::vulkan {

inline constexpr int kShaderMaxDims = 6;        // MAX_DIMS in strided.glsl
inline constexpr uint32_t kWorkgroupSize = 256;  // WORKGROUP_SIZE in strided.glsl
inline constexpr int64_t kRunElements = 4;       // RUN_ELEMENTS in strided.glsl: elements per run_offsets
inline constexpr int64_t kBlockElements = 4;     // BLOCK_ELEMENTS in blocks.glsl: elements per word block

// Mirrors the push-constant block of strided.glsl for N operands, followed by Extra.
struct NoExtra {};

template <int N, class Extra = NoExtra, int MaxDims = kShaderMaxDims>
struct StridedParams {
  static constexpr int kOperands = N;
  static constexpr int kDims = MaxDims;
  uint32_t numel;
  uint32_t ndim;
  uint32_t offsets[N];
  uint32_t sizes[MaxDims];
  uint32_t strides[N * MaxDims];
  [[no_unique_address]] Extra extra;
};

struct Window {
  Binding binding;
  uint32_t first_element;  // offset of the operand's first element inside the window
};

// The binding window of operand `i` of `piece`, starting at the last multiple of `alignment` at or before
// the operand's first element.
Window aligned_window(const LaunchShape& piece, int i, bool write, uint64_t alignment);

// The binding window of operand `i` of `piece`, aligned as the device requires.
Window operand_window(const Context& context, const LaunchShape& piece, int i, bool write);

// Fills the common part of StridedParams from a piece; bindings[i] receives operand i's window.
template <int N, class Extra, int MaxDims>
void fill_params(const Context& context, const LaunchShape& piece,
                 StridedParams<N, Extra, MaxDims>& params, std::span<Binding> bindings,
                 std::span<const bool> writes) {
  params.numel = static_cast<uint32_t>(piece.numel());
  params.ndim = static_cast<uint32_t>(piece.ndim);
  for (int d = 0; d < MaxDims; ++d) params.sizes[d] = d < piece.ndim ? piece.sizes[d] : 1;
  for (int i = 0; i < N; ++i) {
    const Window window = operand_window(context, piece, i, writes[i]);
    bindings[i] = window.binding;
    params.offsets[i] = window.first_element;
    for (int d = 0; d < MaxDims; ++d) {
      params.strides[i * MaxDims + d] =
          d < piece.ndim ? static_cast<uint32_t>(piece.operands[i].strides[d]) : 0;
    }
  }
}

// Largest operand extent that one binding window can hold on this device.
uint64_t max_window_bytes(const Context& context);
// Workgroups for `numel` elements, one per WORKGROUP_SIZE elements up to the device's limit.
uint32_t workgroups_for(const Context& context, int64_t numel);

}  // namespace ember::vulkan
