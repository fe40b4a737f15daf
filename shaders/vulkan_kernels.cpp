#include "shaders/vulkan_kernels.h"

#include <string>
#include <vector>

#include "runtime/error.h"
#include "shaders/launch.h"

namespace ember::vulkan {

namespace {

struct FillValue {
  uint32_t lo;
  uint32_t hi;
};
struct PartialBase {
  uint32_t base;
};
struct SumPartialsParams {
  uint32_t count;
  uint32_t out_offset;
};

using FillParams = StridedParams<1, FillValue>;
using CopyParams = StridedParams<2>;
using SumParams = StridedParams<1, PartialBase>;

// Workgroups of the first sum pass per launch piece; the second pass reads them all.
constexpr uint32_t kSumGroups = 1024;

const KernelAbi kAbis[] = {
    {"fill_8", 1, sizeof(FillParams)},       {"fill_16", 1, sizeof(FillParams)},
    {"fill_32", 1, sizeof(FillParams)},      {"fill_64", 1, sizeof(FillParams)},
    {"copy_8", 2, sizeof(CopyParams)},       {"copy_16", 2, sizeof(CopyParams)},
    {"copy_32", 2, sizeof(CopyParams)},      {"copy_64", 2, sizeof(CopyParams)},
    {"sum_f32", 2, sizeof(SumParams)},       {"sum_partials_f32", 2, sizeof(SumPartialsParams)},
};

std::string width_suffix(DType dtype) { return std::to_string(element_size(dtype) * 8); }

void require_float32(const TensorRef& ref, const char* op) {
  if (ref.dtype != DType::Float32) {
    throw UnsupportedError(std::string(op) + " on Vulkan takes float32 for now, not " +
                           std::string(dtype_name(ref.dtype)));
  }
}

}  // namespace

std::span<const KernelAbi> vulkan_kernel_abis() {
  static const std::vector<KernelAbi> all = [] {
    std::vector<KernelAbi> joined(std::begin(kAbis), std::end(kAbis));
    for (auto family : {elementwise_kernel_abis(), reduce_kernel_abis(), index_kernel_abis(),
                        matmul_kernel_abis(), random_kernel_abis(), math_kernel_abis()}) {
      joined.insert(joined.end(), family.begin(), family.end());
    }
    return joined;
  }();
  return all;
}

std::string_view compute_suffix(DType compute) {
  switch (compute_storage(compute)) {
    case DType::Float64: return "f64";
    case DType::Int32: return "i32";
    case DType::Int64: return "i64";
    default: return "f32";
  }
}

DType compute_storage(DType compute) {
  switch (compute) {
    case DType::Float64: return DType::Float64;
    case DType::Int64: return DType::Int64;
    case DType::Int8:
    case DType::UInt8:
    case DType::Int16:
    case DType::Int32:
    case DType::Bool: return DType::Int32;
    default: return DType::Float32;
  }
}

void require_dtype(const VulkanDevice& device, DType dtype, std::string_view op) {
  if (device.supports(dtype)) return;
  throw UnsupportedError(std::string(op) + ": " + device.info().name + " has no " +
                         std::string(dtype_name(dtype)) +
                         (dtype == DType::Float64 ? " (the device lacks shaderFloat64)" : ""));
}

std::unique_ptr<Kernels> make_vulkan_kernels(VulkanDevice& device) {
  return std::make_unique<VulkanKernels>(device);
}

VulkanStream& VulkanKernels::vulkan_stream(Stream& stream) const {
  auto* vulkan = dynamic_cast<VulkanStream*>(&stream);
  if (!vulkan) throw Error("a Vulkan kernel was given a stream of another backend");
  return *vulkan;
}

void VulkanKernels::fill(Stream& stream, const TensorRef& out, Scalar value) {
  if (!device_.supports(out.dtype)) {
    throw UnsupportedError(device_.info().name + " cannot store " + std::string(dtype_name(out.dtype)) +
                           " tensors");
  }
  VulkanStream& vs = vulkan_stream(stream);
  const Pipeline& pipeline = device_.pipelines().get("fill_" + width_suffix(out.dtype));
  const uint64_t bits = value.bits_as(out.dtype);
  const Context& context = device_.context();
  for_each_window(plan_launch({&out}), kShaderMaxDims, max_window_bytes(context),
                  [&](const LaunchShape& piece) {
                    FillParams params{};
                    Binding bindings[1];
                    const bool writes[] = {true};
                    fill_params(context, piece, params, bindings, writes);
                    params.extra = {static_cast<uint32_t>(bits), static_cast<uint32_t>(bits >> 32)};
                    vs.dispatch(pipeline, bindings, &params, sizeof params,
                                workgroups_for(context, piece.numel()));
                  });
}

void VulkanKernels::copy(Stream& stream, const TensorRef& out, const TensorRef& in) {
  if (out.dtype != in.dtype) {
    throw Error("copy kernel needs equal dtypes, got " + std::string(dtype_name(out.dtype)) + " and " +
                std::string(dtype_name(in.dtype)));
  }
  if (!device_.supports(out.dtype)) {
    throw UnsupportedError(device_.info().name + " cannot store " + std::string(dtype_name(out.dtype)) +
                           " tensors");
  }
  VulkanStream& vs = vulkan_stream(stream);
  const Pipeline& pipeline = device_.pipelines().get("copy_" + width_suffix(out.dtype));
  const Context& context = device_.context();
  for_each_window(plan_launch({&out, &in}), kShaderMaxDims, max_window_bytes(context),
                  [&](const LaunchShape& piece) {
                    CopyParams params{};
                    Binding bindings[2];
                    const bool writes[] = {true, false};
                    fill_params(context, piece, params, bindings, writes);
                    vs.dispatch(pipeline, bindings, &params, sizeof params,
                                workgroups_for(context, piece.numel()));
                  });
}

void VulkanKernels::sum(Stream& stream, const TensorRef& out, const TensorRef& in) {
  require_float32(out, "sum");
  require_float32(in, "sum");
  if (out.numel() != 1) throw Error("sum kernel writes one element");
  if (in.numel() == 0) {
    fill(stream, out, 0.0);
    return;
  }
  VulkanStream& vs = vulkan_stream(stream);
  const Context& context = device_.context();
  std::vector<LaunchShape> pieces;
  for_each_window(plan_launch({&in}), kShaderMaxDims, max_window_bytes(context),
                  [&](const LaunchShape& piece) { pieces.push_back(piece); });
  std::vector<uint32_t> groups;
  uint32_t total_groups = 0;
  for (const LaunchShape& piece : pieces) {
    groups.push_back(std::min(kSumGroups, workgroups_for(context, piece.numel())));
    total_groups += groups.back();
  }
  // Freed as soon as it is recorded: later work on this stream runs after these dispatches.
  std::shared_ptr<Allocation> partials =
      device_.allocator().allocate(total_groups * sizeof(float), stream.shared_from_this());
  TensorRef partials_ref = TensorRef::contiguous(*partials, DType::Float32, {total_groups});

  const Pipeline& first = device_.pipelines().get("sum_f32");
  uint32_t base = 0;
  for (size_t k = 0; k < pieces.size(); ++k) {
    SumParams params{};
    Binding bindings[2];
    const bool writes[] = {false};
    fill_params(context, pieces[k], params, std::span<Binding>(bindings + 1, 1), writes);
    bindings[0] = operand_window(context, plan_launch({&partials_ref}), 0, true).binding;
    params.extra.base = base;
    vs.dispatch(first, bindings, &params, sizeof params, groups[k]);
    base += groups[k];
  }
  const Pipeline& second = device_.pipelines().get("sum_partials_f32");
  const Window out_window = operand_window(context, plan_launch({&out}), 0, true);
  SumPartialsParams params{total_groups, out_window.first_element};
  Binding bindings[2] = {out_window.binding,
                         operand_window(context, plan_launch({&partials_ref}), 0, false).binding};
  vs.dispatch(second, bindings, &params, sizeof params, 1);
}

}  // namespace ember::vulkan
