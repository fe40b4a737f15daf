// Launchers of the memory kernels: fill.comp and copy.comp, one module per element width. A copy between
// contiguous views is a buffer copy instead, a copy of 4-byte elements that the elementwise rows layouts
// take is their cast, and a fill of whole 4-byte words a buffer fill.
#include <optional>
#include <string>

#include "runtime/error.h"
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/memory.h"
#include "shaders/common/contiguous_launch.h"
#include "shaders/common/launch.h"
#include "shaders/common/vulkan_family.h"

namespace ember::vulkan {

namespace {

struct FillValue {
  uint32_t lo;
  uint32_t hi;
};
using FillParams = StridedParams<1, FillValue>;
using CopyParams = StridedParams<2>;

const KernelAbiRegistration kAbis{
    {"fill_8", 1, sizeof(FillParams)},  {"fill_16", 1, sizeof(FillParams)},
    {"fill_32", 1, sizeof(FillParams)}, {"fill_64", 1, sizeof(FillParams)},
    {"copy_8", 2, sizeof(CopyParams)},  {"copy_16", 2, sizeof(CopyParams)},
    {"copy_32", 2, sizeof(CopyParams)}, {"copy_64", 2, sizeof(CopyParams)},
};

std::string width_suffix(DType dtype) { return std::to_string(element_size(dtype) * 8); }

// Whether a copy (out, in) is one run of bytes in each operand that do not overlap: then it is the
// device's buffer copy, which on lavapipe is a memcpy (30 GB/s against the copy shader's 0.5 to 1.3).
// Overlapping ranges, which vkCmdCopyBuffer forbids, keep the shader.
bool copies_as_bytes(const LaunchShape& shape) {
  if (!is_contiguous(shape) || shape.numel() == 0) return false;
  const LaunchOperand& out = shape.operands[0];
  const LaunchOperand& in = shape.operands[1];
  if (out.allocation != in.allocation) return true;
  const uint64_t bytes = static_cast<uint64_t>(shape.numel()) * out.element_size;
  return out.byte_offset + bytes <= in.byte_offset || in.byte_offset + bytes <= out.byte_offset;
}

// The 32-bit word that an element of `size` bytes with these `bits` repeats into, if one does: every
// value of 8, 16 and 32 bits, and 64-bit ones whose halves are equal (zero among them).
std::optional<uint32_t> repeating_word(uint64_t bits, uint64_t size) {
  const auto low = static_cast<uint32_t>(bits);
  if (size == 1) return (low & 0xffu) * 0x01010101u;
  if (size == 2) return (low & 0xffffu) * 0x00010001u;
  if (size == 4 || (size == 8 && (bits >> 32) == low)) return low;
  return std::nullopt;
}

class VulkanMemory final : public MemoryKernels {
 public:
  explicit VulkanMemory(VulkanDevice& device) : device_(device) {}
  void fill(Stream& stream, const FillArgs& args) override;
  void copy(Stream& stream, const CopyArgs& args) override;

 private:
  void require_storable(DType dtype) const {
    if (!device_.supports(dtype)) {
      throw UnsupportedError(device_.info().name + " cannot store " + std::string(dtype_name(dtype)) + " tensors");
    }
  }

  VulkanDevice& device_;
};

void VulkanMemory::fill(Stream& stream, const FillArgs& args) {
  const TensorRef& out = args.out;
  require_storable(out.dtype);
  VulkanStream& vs = vulkan_stream(stream);
  const uint64_t bits = args.value.bits_as(out.dtype);
  // One run of whole words whose value repeats every word is the device's buffer fill.
  const LaunchShape shape = plan_launch({&out});
  const uint64_t bytes = static_cast<uint64_t>(shape.numel()) * element_size(out.dtype);
  const std::optional<uint32_t> word = repeating_word(bits, element_size(out.dtype));
  if (word && is_contiguous(shape) && bytes > 0 && bytes % 4 == 0 &&
      (out.allocation->offset() + shape.operands[0].byte_offset) % 4 == 0) {
    vs.fill_words(*out.allocation, shape.operands[0].byte_offset, bytes, *word);
    return;
  }
  const Pipeline& pipeline = device_.pipelines().get("fill_" + width_suffix(out.dtype));
  const Context& context = device_.context();
  for_each_window(shape, kShaderMaxDims, max_window_bytes(context),
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

void VulkanMemory::copy(Stream& stream, const CopyArgs& args) {
  const TensorRef& out = args.out;
  const TensorRef& in = args.in;
  if (out.dtype != in.dtype) {
    throw Error("copy kernel needs equal dtypes, got " + std::string(dtype_name(out.dtype)) + " and " +
                std::string(dtype_name(in.dtype)));
  }
  require_storable(out.dtype);
  const LaunchShape shape = plan_launch({&out, &in});
  if (copies_as_bytes(shape)) {
    const uint64_t bytes = static_cast<uint64_t>(shape.numel()) * element_size(out.dtype);
    stream.copy(*out.allocation, out.byte_offset, *in.allocation, in.byte_offset, bytes);
    return;
  }
  const Context& context = device_.context();
  if (element_size(out.dtype) == 4 && rows_layout(context, shape)) {
    // A transposed or row-padded view of 4-byte elements: the elementwise cast's rows layouts move a block
    // of four per invocation with one 16-byte store, where copy.comp goes element by element (on lavapipe,
    // x.t().contiguous() of 2048² float32 took half the time). As int32, so that every bit pattern stays.
    UnaryArgs cast{.op = UnaryOp::Cast, .out = out, .in = in, .compute = DType::Int32};
    cast.out.dtype = cast.in.dtype = DType::Int32;
    device_.kernels().get<ElementwiseKernels>().unary(stream, cast);
    return;
  }
  VulkanStream& vs = vulkan_stream(stream);
  const Pipeline& pipeline = device_.pipelines().get("copy_" + width_suffix(out.dtype));
  for_each_window(shape, kShaderMaxDims, max_window_bytes(context),
                  [&](const LaunchShape& piece) {
                    CopyParams params{};
                    Binding bindings[2];
                    const bool writes[] = {true, false};
                    fill_params(context, piece, params, bindings, writes);
                    // An invocation per run of kRunElements elements (copy.comp).
                    vs.dispatch(pipeline, bindings, &params, sizeof params,
                                workgroups_for(context, (piece.numel() + kRunElements - 1) / kRunElements));
                  });
}

}  // namespace

EMBER_VULKAN_KERNELS(MemoryKernels, VulkanMemory);

}  // namespace ember::vulkan
