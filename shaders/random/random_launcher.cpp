// Launchers of the random kernels: elementwise draws (random_ops.def), randperm and
// multinomial, all from Philox4x32-10 (shaders/philox.glsl). Element i of a launch, in row-major order
// over out, uses the 128-bit block at counter state.offset + i; randperm reads blocks of that range too.
#include <algorithm>
#include <bit>
#include <limits>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/kernels/memory.h"
#include "runtime/kernels/random.h"
#include "runtime/kernels/random_domain.h"
#include "shaders/common/index_launch.h"
#include "shaders/common/launch.h"
#include "shaders/common/vulkan_family.h"

namespace ember::vulkan {

namespace {

struct RandomExtra {
  uint32_t seed_lo, seed_hi;
  uint32_t start_lo, start_hi;  // the counter of the piece's first element
  uint32_t low_lo, low_hi;
  uint32_t high_lo, high_hi;
};
using RandomParams = StridedParams<1, RandomExtra>;
using BernoulliTensorParams = StridedParams<2, RandomExtra>;

struct RandpermExtra {
  uint32_t n;
  uint32_t half_bits;
  uint32_t base;
  uint32_t seed_lo, seed_hi;
  uint32_t start_lo, start_hi;
};
using RandpermParams = StridedParams<1, RandpermExtra>;

struct MultinomialExtra {
  uint32_t category_stride;
  uint32_t categories;
  uint32_t seed_lo, seed_hi;
  uint32_t start_lo, start_hi;
};
using MultinomialParams = StridedParams<2, MultinomialExtra>;

const KernelAbiRegistration kAbis{
    {"random_f32", 1, sizeof(RandomParams)},
    {"random_f64", 1, sizeof(RandomParams)},
    {"random_i32", 1, sizeof(RandomParams)},
    {"random_i64", 1, sizeof(RandomParams)},
    {"bernoulli_tensor_f32", 2, sizeof(BernoulliTensorParams)},
    {"bernoulli_tensor_f64", 2, sizeof(BernoulliTensorParams)},
    {"randperm", 1, sizeof(RandpermParams)},
    {"multinomial_f32", 2, sizeof(MultinomialParams)},
    {"multinomial_f64", 2, sizeof(MultinomialParams)},
};

std::string name_of(DType dtype) { return std::string(dtype_name(dtype)); }

uint32_t lo(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

class VulkanRandom final : public RandomKernels {
 public:
  explicit VulkanRandom(VulkanDevice& device) : device_(device) {}
  void random(Stream& stream, const RandomArgs& args) override;
  void multinomial(Stream& stream, const MultinomialArgs& args) override;

 private:
  VulkanDevice& device_;
};

void VulkanRandom::random(Stream& stream, const RandomArgs& args) {
  const RandomOp op = args.op;
  const TensorRef& out = args.out;
  const PhiloxState state = args.state;
  const auto [p0, p1] = args.parameters();
  const TensorRef* probabilities = args.probabilities ? &*args.probabilities : nullptr;
  require_dtype(device_, out.dtype, "random");
  VulkanStream& vs = vulkan_stream(stream);
  const Context& context = device_.context();

  if (op == RandomOp::Randperm) {
    if (out.dtype != DType::Int64 || !out.is_contiguous()) {
      throw Error("randperm writes a contiguous int64 tensor, not " + name_of(out.dtype));
    }
    const int64_t n = out.numel();
    if (n == 0) return;
    if (n == 1) {
      device_.kernels().get<MemoryKernels>().fill(stream, {out, 0});
      return;
    }
    if (n > std::numeric_limits<uint32_t>::max()) {
      throw UnsupportedError("randperm of more than 2^32 - 1 elements");
    }
    // The fewest even number of bits that holds n - 1, so that the Feistel halves are equal.
    uint32_t bits = std::max<uint32_t>(2, std::bit_width(static_cast<uint64_t>(n - 1)));
    bits += bits % 2;
    const Pipeline& pipeline = device_.pipelines().get("randperm");
    for_each_window(plan_launch({&out}), kShaderMaxDims, max_window_bytes(context),
                    [&](const LaunchShape& piece) {
                      RandpermParams params{};
                      Binding bindings[1];
                      const bool writes[] = {true};
                      fill_params(context, piece, params, bindings, writes);
                      const uint64_t base =
                          (piece.operands[0].byte_offset - out.byte_offset) / sizeof(int64_t);
                      params.extra = {static_cast<uint32_t>(n), bits / 2, static_cast<uint32_t>(base),
                                      lo(state.seed),           hi(state.seed), lo(state.offset),
                                      hi(state.offset)};
                      vs.dispatch(pipeline, bindings, &params, sizeof params,
                                  workgroups_for(context, piece.numel()));
                    });
    return;
  }

  // The compute class: out's, except that Bernoulli and Geometric compute in float or double
  // (draws_in_double) whatever out's dtype.
  DType compute = out.dtype;
  if (draws_floats_only(op)) {
    if (!is_floating_point(out.dtype)) {
      throw Error(std::string(random_op_name(op)) + " draws need a floating out, not " + name_of(out.dtype));
    }
  } else if (op == RandomOp::Bernoulli || op == RandomOp::Geometric) {
    if (probabilities && !is_floating_point(probabilities->dtype)) {
      throw Error("bernoulli takes floating probabilities, not " + name_of(probabilities->dtype));
    }
    bool wide = draws_in_double(op, out.dtype, probabilities ? probabilities->dtype : out.dtype);
    // Without shaderFloat64, geometric counts into int64 keep float's precision rather than fail.
    const bool int64_counts = op == RandomOp::Geometric && out.dtype == DType::Int64;
    if (int64_counts && !device_.supports(DType::Float64)) wide = false;
    compute = wide ? DType::Float64 : DType::Float32;
  }
  require_dtype(device_, compute, "random");
  if (out.numel() == 0) return;

  uint64_t low_bits, high_bits;
  if (op == RandomOp::RandInt) {
    low_bits = static_cast<uint64_t>(p0.to_int64());
    high_bits = static_cast<uint64_t>(p1.to_int64());
  } else {
    low_bits = p0.bits_as(compute_storage(compute));
    high_bits = p1.bits_as(compute_storage(compute));
  }
  const std::string suffix(compute_suffix(compute));
  const bool with_tensor = op == RandomOp::Bernoulli && probabilities;
  // out's dtype, the op, and the probabilities' dtype when they are a tensor.
  std::vector<uint32_t> specialization = {static_cast<uint32_t>(out.dtype), static_cast<uint32_t>(op)};
  if (with_tensor) specialization.push_back(static_cast<uint32_t>(probabilities->dtype));
  const Pipeline& pipeline =
      device_.pipelines().get((with_tensor ? "bernoulli_tensor_" : "random_") + suffix, specialization);
  const TensorRef tracker = position_tracker(out);

  auto launch = [&](const LaunchShape& piece, auto& params, std::span<Binding> bindings,
                    std::span<const bool> writes) {
    fill_params(context, piece, params, bindings, writes);
    const uint64_t start = state.offset + piece.operands[piece.noperands - 1].byte_offset;
    params.extra = {lo(state.seed), hi(state.seed), lo(start),      hi(start),
                    lo(low_bits),   hi(low_bits),   lo(high_bits), hi(high_bits)};
    vs.dispatch(pipeline, bindings, &params, sizeof params, workgroups_for(context, piece.numel()));
  };
  if (with_tensor) {
    for_each_window(plan_launch({&out, probabilities, &tracker}), kShaderMaxDims,
                    max_window_bytes(context), [&](const LaunchShape& piece) {
                      BernoulliTensorParams params{};
                      Binding bindings[2];
                      const bool writes[] = {true, false};
                      launch(piece, params, bindings, writes);
                    });
  } else {
    for_each_window(plan_launch({&out, &tracker}), kShaderMaxDims, max_window_bytes(context),
                    [&](const LaunchShape& piece) {
                      RandomParams params{};
                      Binding bindings[1];
                      const bool writes[] = {true};
                      launch(piece, params, bindings, writes);
                    });
  }
}

void VulkanRandom::multinomial(Stream& stream, const MultinomialArgs& args) {
  const TensorRef& out = args.out;
  const TensorRef& cdf = args.cdf;
  const PhiloxState state = args.state;
  if (out.dtype != DType::Int64 || out.ndim != 2) {
    throw Error("multinomial writes int64 samples, rows × samples");
  }
  if (!is_floating_point(cdf.dtype) || cdf.ndim != 2 || cdf.sizes[0] != out.sizes[0]) {
    throw Error("multinomial takes a floating cdf of rows × categories, with out's rows");
  }
  const int64_t categories = cdf.sizes[1];
  if (categories == 0) throw Error("multinomial needs at least one category");
  if (categories > std::numeric_limits<uint32_t>::max() ||
      cdf.strides[1] > std::numeric_limits<uint32_t>::max()) {
    throw UnsupportedError("multinomial: a row of cdf does not fit the kernel's 32-bit arguments");
  }
  require_dtype(device_, cdf.dtype, "multinomial");
  if (out.numel() == 0) return;
  VulkanStream& vs = vulkan_stream(stream);
  const Context& context = device_.context();
  const Pipeline& pipeline = device_.pipelines().get(
      "multinomial_" + std::string(compute_suffix(cdf.dtype)), {static_cast<uint32_t>(cdf.dtype)});
  // Each element of out starts at its row of cdf; the shader walks the categories.
  TensorRef rows = cdf;
  rows.sizes = out.sizes;
  rows.strides[1] = 0;
  const TensorRef tracker = position_tracker(out);
  const uint64_t reach = reach_bytes(categories, cdf.strides[1], element_size(cdf.dtype));
  for_each_window(plan_launch({&out, &rows, &tracker}), kShaderMaxDims,
                  window_limit(context, reach, "multinomial"),
                  [&](const LaunchShape& piece) {
                    MultinomialParams params{};
                    Binding bindings[2];
                    const bool writes[] = {true, false};
                    fill_params(context, piece, params, bindings, writes);
                    const Window cdf_window =
                        widened_window(context, piece, 1, false, categories, cdf.strides[1]);
                    bindings[1] = cdf_window.binding;
                    params.offsets[1] = cdf_window.first_element;
                    const uint64_t start = state.offset + piece.operands[2].byte_offset;
                    params.extra = {static_cast<uint32_t>(cdf.strides[1]),
                                    static_cast<uint32_t>(categories),
                                    lo(state.seed),
                                    hi(state.seed),
                                    lo(start),
                                    hi(start)};
                    vs.dispatch(pipeline, bindings, &params, sizeof params,
                                workgroups_for(context, piece.numel()));
                  });
}

}  // namespace

EMBER_VULKAN_KERNELS(RandomKernels, VulkanRandom);

}  // namespace ember::vulkan
