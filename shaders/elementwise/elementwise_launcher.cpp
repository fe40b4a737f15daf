// Launchers of the elementwise shaders (unary.comp, binary.comp, ternary.comp, sequence.comp). One
// module per compute class; the op, the operand dtypes, which operands are scalars and the layout
// (contiguous.glsl) are specialization constants, so each combination gets its own folded pipeline on
// first use.
#include <functional>
#include <string>
#include <vector>

#include "runtime/allocator.h"
#include "runtime/error.h"
#include "runtime/kernels/elementwise.h"
#include "shaders/common/contiguous_launch.h"
#include "shaders/common/launch.h"
#include "shaders/common/vulkan_family.h"

namespace ember::vulkan {

namespace {

struct UnaryExtra {
  uint32_t scalars[6];
};
struct BinaryExtra {
  uint32_t scalars[4];
};
struct TernaryExtra {
  uint32_t scalars[6];
};
struct SequenceExtra {
  uint32_t base;
  uint32_t count;
  uint32_t scalars[6];
};

using UnaryParams = StridedParams<2, UnaryExtra>;
using BinaryParams = StridedParams<3, BinaryExtra, 5>;     // MAX_DIMS 5 in binary.comp
using TernaryParams = StridedParams<4, TernaryExtra, 4>;   // MAX_DIMS 4 in ternary.comp
using SequenceParams = StridedParams<1, SequenceExtra>;

const KernelAbiRegistration kAbis{
    {"unary_f32", 2, sizeof(UnaryParams)},       {"unary_f64", 2, sizeof(UnaryParams)},
    {"unary_i32", 2, sizeof(UnaryParams)},       {"unary_i64", 2, sizeof(UnaryParams)},
    {"unary_f32_texel", 3, sizeof(UnaryParams)},
    {"binary_f32", 3, sizeof(BinaryParams)},     {"binary_f64", 3, sizeof(BinaryParams)},
    {"binary_f32_texel", 5, sizeof(BinaryParams)},
    {"binary_i32", 3, sizeof(BinaryParams)},     {"binary_i64", 3, sizeof(BinaryParams)},
    {"ternary_f32", 4, sizeof(TernaryParams)},   {"ternary_f64", 4, sizeof(TernaryParams)},
    {"ternary_i32", 4, sizeof(TernaryParams)},   {"ternary_i64", 4, sizeof(TernaryParams)},
    {"ternary_f32_texel", 7, sizeof(TernaryParams)},
    {"sequence_f32", 1, sizeof(SequenceParams)}, {"sequence_f64", 1, sizeof(SequenceParams)},
    {"sequence_i32", 1, sizeof(SequenceParams)}, {"sequence_i64", 1, sizeof(SequenceParams)},
};

uint32_t code(DType dtype) { return static_cast<uint32_t>(dtype); }

// Writes `value` as the compute class's bits into two words.
void put_scalar(uint32_t* words, Scalar value, DType compute) {
  const uint64_t bits = value.bits_as(compute_storage(compute));
  words[0] = static_cast<uint32_t>(bits);
  words[1] = static_cast<uint32_t>(bits >> 32);
}

// Runs `pipeline` over out and its inputs, piece by piece; `extra` fills the op's own push constants.
template <class Params, class Extra>
void launch_strided(VulkanDevice& device, Stream& stream, const Pipeline& pipeline,
                    std::initializer_list<const TensorRef*> operands, const Extra& extra) {
  VulkanStream& vs = vulkan_stream(stream);
  const Context& context = device.context();
  constexpr int N = Params::kOperands;
  for_each_window(plan_launch(operands), Params::kDims, max_window_bytes(context),
                  [&](const LaunchShape& piece) {
                    Params params{};
                    Binding bindings[N];
                    bool writes[N] = {};
                    writes[0] = true;
                    fill_params(context, piece, params, bindings, writes);
                    extra(params, piece);
                    vs.dispatch(pipeline, bindings, &params, sizeof params,
                                workgroups_for(context, piece.numel()));
                  });
}

// Runs an elementwise shader over out and its inputs: launches whose operands are all contiguous take
// the layouts of contiguous.glsl, the others a rows layout where rows_layout allows and the strided one
// elsewhere, piece by piece. `pipeline` gives the shader's pipeline for a layout, and with `texels` its
// *_texel variant, which reads the inputs' blocks of LAYOUT_BLOCKS and the rows layouts through texel
// views bound after the storage bindings: `texel_reads` says whether the shader has one for these
// operands. `extra` fills the op's own push constants.
template <class Params, class Extra>
void launch_elementwise(VulkanDevice& device, Stream& stream,
                        const std::function<const Pipeline&(Layout layout, bool texels)>& pipeline,
                        std::initializer_list<const TensorRef*> operands, const Extra& extra,
                        bool texel_reads = false) {
  VulkanStream& vs = vulkan_stream(stream);
  const Context& context = device.context();
  constexpr int N = Params::kOperands;
  const ContiguousLimits limits = contiguous_limits(context);
  const LaunchShape shape = plan_launch(operands);
  const auto dispatch = [&](Layout layout, const LaunchShape& piece, Groups groups) {
    Params params{};
    Binding bindings[2 * N - 1];
    bool writes[N] = {};
    writes[0] = true;
    if (layout == Layout::Strided) {
      fill_params(context, piece, params, bindings, writes);
    } else if (is_rows(layout)) {
      fill_rows_params(context, piece, params, bindings, writes);
    } else {
      fill_contiguous_params(limits, piece, params, std::span<Binding>(bindings, N), writes);
    }
    extra(params, piece);
    bool texels = texel_reads && layout != Layout::Strided && layout != Layout::Elements;
    for (int i = 1; i < N && texels; ++i) {
      bindings[N + i - 1] = Binding{bindings[i].allocation, bindings[i].offset, bindings[i].range, false};
      texels = can_read_as_texels(context, bindings[N + i - 1]);
    }
    vs.dispatch(pipeline(layout, texels), std::span<const Binding>(bindings, texels ? 2 * N - 1 : N), &params,
                sizeof params, groups.x, groups.y);
  };
  if (is_contiguous(shape)) {
    for_each_contiguous_dispatch(limits, shape, dispatch);
    return;
  }
  for_each_window(shape, Params::kDims, max_window_bytes(context), [&](const LaunchShape& piece) {
    if (const std::optional<Layout> rows = rows_layout(context, piece)) {
      dispatch(*rows, piece, groups_for_items(limits, piece.numel() / kBlockElements));
      return;
    }
    // A run of kRunElements elements per invocation (contiguous.glsl's LAYOUT_STRIDED).
    dispatch(Layout::Strided, piece, groups_for_items(limits, (piece.numel() + kRunElements - 1) / kRunElements));
  });
}

// Whether the *_f32_texel variant can take the inputs' blocks: float32 compute and tensor inputs (a
// scalar's slot holds out's window, which the shader never reads).
bool texel_reads(DType compute, std::initializer_list<Operand> inputs) {
  if (compute != DType::Float32) return false;
  for (const Operand& operand : inputs) {
    if (!operand.is_scalar() && operand.tensor.dtype != DType::Float32) return false;
  }
  return true;
}

void require_operands(const VulkanDevice& device, std::string_view op, DType compute,
                      std::initializer_list<const TensorRef*> operands) {
  require_dtype(device, compute, op);
  for (const TensorRef* ref : operands) require_dtype(device, ref->dtype, op);
}

class VulkanElementwise final : public ElementwiseKernels {
 public:
  explicit VulkanElementwise(VulkanDevice& device) : device_(device) {}
  void unary(Stream& stream, const UnaryArgs& args) override;
  void binary(Stream& stream, const BinaryArgs& args) override;
  void ternary(Stream& stream, const TernaryArgs& args) override;
  void sequence(Stream& stream, const SequenceArgs& args) override;

 private:
  VulkanDevice& device_;
};

void VulkanElementwise::unary(Stream& stream, const UnaryArgs& args) {
  const UnaryOp op = args.op;
  const TensorRef& out = args.out;
  const TensorRef& in = args.in;
  const DType compute = args.compute;
  require_operands(device_, unary_op_name(op), compute, {&out, &in});
  require_domain(op_domain(op), compute, "unary", unary_op_name(op));
  const std::string shader = "unary_" + std::string(compute_suffix(compute));
  const auto pipeline = [&](Layout layout, bool texels) -> const Pipeline& {
    return device_.pipelines().get(texels ? shader + "_texel" : shader, {static_cast<uint32_t>(op), code(out.dtype),
                                                                         code(in.dtype), static_cast<uint32_t>(layout)});
  };
  const std::array<Scalar, 3> parameters = args.parameters();
  launch_elementwise<UnaryParams>(device_, stream, pipeline, {&out, &in},
                              [&](UnaryParams& params, const LaunchShape&) {
                                for (int k = 0; k < 3; ++k) put_scalar(params.extra.scalars + 2 * k, parameters[k], compute);
                              }, texel_reads(compute, {in}));
}

void VulkanElementwise::binary(Stream& stream, const BinaryArgs& args) {
  const BinaryOp op = args.op;
  const TensorRef& out = args.out;
  const Operand& a = args.a;
  const Operand& b = args.b;
  const DType compute = args.compute;
  if (a.is_scalar() && b.is_scalar()) throw Error("binary kernel: at least one operand must be a tensor");
  // A scalar's binding slot holds out's window: bound but never read.
  const TensorRef& a_ref = a.is_scalar() ? out : a.tensor;
  const TensorRef& b_ref = b.is_scalar() ? out : b.tensor;
  require_operands(device_, binary_op_name(op), compute, {&out, &a_ref, &b_ref});
  require_domain(op_domain(op), compute, "binary", binary_op_name(op));
  const std::string shader = "binary_" + std::string(compute_suffix(compute));
  const auto pipeline = [&](Layout layout, bool texels) -> const Pipeline& {
    return device_.pipelines().get(texels ? shader + "_texel" : shader,
                                   {static_cast<uint32_t>(op), code(out.dtype), code(a_ref.dtype), code(b_ref.dtype),
                                    a.is_scalar() ? 1u : 0u, b.is_scalar() ? 1u : 0u, static_cast<uint32_t>(layout)});
  };
  const Scalar scalar = a.is_scalar() ? *a.scalar : (b.is_scalar() ? *b.scalar : Scalar(0));
  launch_elementwise<BinaryParams>(device_, stream, pipeline, {&out, &a_ref, &b_ref},
                               [&](BinaryParams& params, const LaunchShape&) {
                                 put_scalar(params.extra.scalars + 0, args.parameter(), compute);
                                 put_scalar(params.extra.scalars + 2, scalar, compute);
                               }, texel_reads(compute, {a, b}));
}

void VulkanElementwise::ternary(Stream& stream, const TernaryArgs& args) {
  const TernaryOp op = args.op;
  const TensorRef& out = args.out;
  const TensorRef& a = args.a;
  const Operand& b = args.b;
  const Operand& c = args.c;
  const DType compute = args.compute;
  const TensorRef& b_ref = b.is_scalar() ? out : b.tensor;
  const TensorRef& c_ref = c.is_scalar() ? out : c.tensor;
  require_operands(device_, ternary_op_name(op), compute, {&out, &a, &b_ref, &c_ref});
  require_domain(op_domain(op), compute, "ternary", ternary_op_name(op));
  const std::string shader = "ternary_" + std::string(compute_suffix(compute));
  const auto pipeline = [&](Layout layout, bool texels) -> const Pipeline& {
    return device_.pipelines().get(texels ? shader + "_texel" : shader,
                                   {static_cast<uint32_t>(op), code(out.dtype), code(a.dtype), code(b_ref.dtype),
                                    code(c_ref.dtype), b.is_scalar() ? 1u : 0u, c.is_scalar() ? 1u : 0u,
                                    static_cast<uint32_t>(layout)});
  };
  launch_elementwise<TernaryParams>(device_, stream, pipeline, {&out, &a, &b_ref, &c_ref},
                                [&](TernaryParams& params, const LaunchShape&) {
                                  put_scalar(params.extra.scalars + 0, args.value, compute);
                                  put_scalar(params.extra.scalars + 2, b.is_scalar() ? *b.scalar : 0,
                                             compute);
                                  put_scalar(params.extra.scalars + 4, c.is_scalar() ? *c.scalar : 0,
                                             compute);
                                }, texel_reads(compute, {a, b, c}));
}

void VulkanElementwise::sequence(Stream& stream, const SequenceArgs& args) {
  const TensorRef& out = args.out;
  const Scalar start = args.start;
  const Scalar step = args.step;
  const std::optional<Scalar>& end = args.end;
  if (!out.is_contiguous()) throw Error("sequence kernel writes a contiguous tensor");
  // Integer linspace steps are fractional: compute it in floating point, as PyTorch does.
  DType compute = out.dtype;
  if (end && !is_floating_point(compute)) {
    compute = device_.supports(DType::Float64) ? DType::Float64 : DType::Float32;
  }
  require_operands(device_, "sequence", compute, {&out});
  const Pipeline& pipeline = device_.pipelines().get("sequence_" + std::string(compute_suffix(compute)),
                                                     {code(out.dtype), end ? 1u : 0u});
  const uint64_t element = element_size(out.dtype);
  const auto count = static_cast<uint32_t>(out.numel());
  launch_strided<SequenceParams>(
      device_, stream, pipeline, {&out}, [&](SequenceParams& params, const LaunchShape& piece) {
        params.extra.base = static_cast<uint32_t>((piece.operands[0].byte_offset - out.byte_offset) / element);
        params.extra.count = count;
        put_scalar(params.extra.scalars + 0, start, compute);
        put_scalar(params.extra.scalars + 2, step, compute);
        put_scalar(params.extra.scalars + 4, end ? *end : Scalar(0), compute);
      });
}

}  // namespace

EMBER_VULKAN_KERNELS(ElementwiseKernels, VulkanElementwise);

}  // namespace ember::vulkan
