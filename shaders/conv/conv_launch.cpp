// The pieces the Vulkan convolution launchers share (conv_launch.h).
#include "shaders/conv/conv_launch.h"

#include <algorithm>
#include <string>
#include <thread>

#include "runtime/error.h"
#include "shaders/common/vulkan_family.h"
#include "shaders/reduce/reduce_plan.h"

namespace ember::vulkan::conv {

namespace {

const KernelAbiRegistration kAbis{
    {"conv_register_forward_f32", 4, sizeof(ConvParams)},    {"conv_register_forward_f64", 4, sizeof(ConvParams)},
    {"conv_register_input_grad_f32", 4, sizeof(ConvParams)}, {"conv_register_input_grad_f64", 4, sizeof(ConvParams)},
    {"conv_register_weight_grad_f32", 4, sizeof(ConvParams)}, {"conv_register_weight_grad_f64", 4, sizeof(ConvParams)},
    {"conv_uniform_forward_f32", 4, sizeof(ConvParams)},     {"conv_uniform_forward_f64", 4, sizeof(ConvParams)},
    {"conv_uniform_input_grad_f32", 4, sizeof(ConvParams)},  {"conv_uniform_input_grad_f64", 4, sizeof(ConvParams)},
    {"conv_uniform_weight_grad_f32", 4, sizeof(ConvParams)}, {"conv_uniform_weight_grad_f64", 4, sizeof(ConvParams)},
    {"conv_register_forward_f32_texel", 6, sizeof(ConvParams)},
    {"conv_register_input_grad_f32_texel", 6, sizeof(ConvParams)},
    {"conv_register_weight_grad_f32_texel", 6, sizeof(ConvParams)},
    {"conv_uniform_forward_f32_texel", 5, sizeof(ConvParams)},
    {"conv_uniform_input_grad_f32_texel", 5, sizeof(ConvParams)},
    {"conv_uniform_weight_grad_f32_texel", 5, sizeof(ConvParams)},
    {"conv_tiled_forward_f32", 4, sizeof(ConvParams)},       {"conv_tiled_forward_f64", 4, sizeof(ConvParams)},
    {"conv_tiled_input_grad_f32", 4, sizeof(ConvParams)},    {"conv_tiled_input_grad_f64", 4, sizeof(ConvParams)},
    {"conv_tiled_weight_grad_f32", 4, sizeof(ConvParams)},   {"conv_tiled_weight_grad_f64", 4, sizeof(ConvParams)},
};

}  // namespace

bool takes_word_stores(Direction direction, DType compute, DType out, uint32_t block_n, int64_t plane,
                       uint32_t out_first_element) {
  return direction != Direction::WeightGrad && compute == DType::Float32 && out == DType::Float32 &&
         block_n % 4 == 0 && plane % 4 == 0 && out_first_element % 4 == 0;
}

const char* direction_name(Direction direction) {
  switch (direction) {
    case Direction::Forward: return "forward";
    case Direction::InputGrad: return "input_grad";
    case Direction::WeightGrad: return "weight_grad";
  }
  return "";
}

int64_t volume(const std::array<int64_t, 3>& sizes) { return sizes[0] * sizes[1] * sizes[2]; }

Geometry3 as_3d(const ConvShape& s, const ConvGeometry& g) {
  Geometry3 r;
  const int shift = 3 - s.spatial;
  for (int d = 0; d < s.spatial; ++d) {
    r.in_size[shift + d] = s.in_size[d];
    r.out_size[shift + d] = s.out_size[d];
    r.kernel_size[shift + d] = s.kernel_size[d];
    r.stride[shift + d] = g.stride[d];
    r.padding[shift + d] = g.padding[d];
    r.dilation[shift + d] = g.dilation[d];
  }
  return r;
}

Gemm gemm_of(Direction direction, const ConvShape& s, const Geometry3& g) {
  const int64_t kernel = volume(g.kernel_size);
  switch (direction) {
    case Direction::Forward: return {s.out_channels / s.groups, volume(g.out_size), s.in_channels / s.groups * kernel};
    case Direction::InputGrad: return {s.in_channels / s.groups, volume(g.in_size), s.out_channels / s.groups * kernel};
    case Direction::WeightGrad: return {s.out_channels / s.groups, s.in_channels / s.groups * kernel, volume(g.out_size)};
  }
  return {};
}

ConvParams base_params(const ConvShape& s, const Geometry3& g) {
  ConvParams params{};
  params.in_channels = static_cast<uint32_t>(s.in_channels);
  params.out_channels = static_cast<uint32_t>(s.out_channels);
  params.groups = static_cast<uint32_t>(s.groups);
  for (int d = 0; d < 3; ++d) {
    params.in_size[d] = static_cast<uint32_t>(g.in_size[d]);
    params.out_size[d] = static_cast<uint32_t>(g.out_size[d]);
    params.kernel_size[d] = static_cast<uint32_t>(g.kernel_size[d]);
    params.stride[d] = static_cast<uint32_t>(g.stride[d]);
    params.padding[d] = static_cast<uint32_t>(g.padding[d]);
    params.dilation[d] = static_cast<uint32_t>(g.dilation[d]);
  }
  return params;
}

TensorRef samples_of(const TensorRef& ref, int64_t first, int64_t count) {
  TensorRef piece = ref;
  piece.byte_offset += static_cast<uint64_t>(first * ref.strides[0]) * element_size(ref.dtype);
  piece.sizes[0] = count;
  return piece;
}

Window window_of(const Context& context, const TensorRef& ref, bool write) {
  return element_window(context, ref.allocation, ref.byte_offset, static_cast<uint32_t>(element_size(ref.dtype)),
                        std::max<int64_t>(ref.numel(), 1), write);
}

std::pair<uint32_t, uint32_t> grid_of(const Context& context, int64_t groups) {
  const auto& limits = context.properties.limits;
  const int64_t x = std::clamp<int64_t>(groups, 1, limits.maxComputeWorkGroupCount[0]);
  const int64_t y = (groups + x - 1) / x;
  if (y > limits.maxComputeWorkGroupCount[1]) {
    throw UnsupportedError("conv: " + std::to_string(groups) + " workgroups are more than one dispatch holds");
  }
  return {static_cast<uint32_t>(x), static_cast<uint32_t>(y)};
}

int64_t cpu_workers() { return std::max<int64_t>(1, std::thread::hardware_concurrency()); }

}  // namespace ember::vulkan::conv
