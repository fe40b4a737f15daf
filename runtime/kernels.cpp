#include "runtime/kernels.h"

#include "runtime/error.h"

namespace ember {

TensorRef TensorRef::contiguous(Allocation& allocation, DType dtype,
                                std::initializer_list<int64_t> sizes, uint64_t byte_offset) {
  if (sizes.size() > kMaxDims) throw Error("tensors have at most 16 dimensions");
  TensorRef ref;
  ref.allocation = &allocation;
  ref.byte_offset = byte_offset;
  ref.dtype = dtype;
  ref.ndim = static_cast<int>(sizes.size());
  int d = 0;
  for (int64_t size : sizes) ref.sizes[d++] = size;
  int64_t stride = 1;
  for (int i = ref.ndim - 1; i >= 0; --i) {
    ref.strides[i] = stride;
    stride *= ref.sizes[i];
  }
  return ref;
}

int64_t TensorRef::numel() const {
  int64_t n = 1;
  for (int d = 0; d < ndim; ++d) n *= sizes[d];
  return n;
}

bool TensorRef::is_contiguous() const {
  int64_t expected = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    if (sizes[d] != 1 && strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

uint64_t TensorRef::extent_bytes() const {
  if (numel() == 0) return 0;
  int64_t last = 0;
  for (int d = 0; d < ndim; ++d) last += (sizes[d] - 1) * strides[d];
  return static_cast<uint64_t>(last + 1) * element_size(dtype);
}

}  // namespace ember

namespace ember {

void Kernels::missing(std::string_view kernel) const {
  throw UnsupportedError("the " + std::string(backend_name()) + " backend has no " + std::string(kernel) +
                         " kernel");
}

void Kernels::unary(Stream&, UnaryOp, const TensorRef&, const TensorRef&, DType, Scalar, Scalar, Scalar) {
  missing("unary");
}
void Kernels::binary(Stream&, BinaryOp, const TensorRef&, const Operand&, const Operand&, DType, Scalar) {
  missing("binary");
}
void Kernels::ternary(Stream&, TernaryOp, const TensorRef&, const TensorRef&, const Operand&,
                      const Operand&, DType, Scalar) {
  missing("ternary");
}
void Kernels::sequence(Stream&, const TensorRef&, Scalar, Scalar, std::optional<Scalar>) {
  missing("sequence");
}
void Kernels::reduce(Stream&, ReduceOp, const TensorRef*, const TensorRef*, const TensorRef&, uint32_t,
                     DType, double) {
  missing("reduce");
}
void Kernels::scan(Stream&, ScanOp, const TensorRef&, const TensorRef*, const TensorRef&, int, DType) {
  missing("scan");
}
void Kernels::gather(Stream&, const TensorRef&, const TensorRef&, int, const TensorRef&) {
  missing("gather");
}
void Kernels::scatter(Stream&, ScatterMode, const TensorRef&, int, const TensorRef&, const Operand&,
                      Scalar) {
  missing("scatter");
}
void Kernels::triangle(Stream&, const TensorRef&, const TensorRef&, int64_t, bool) { missing("triangle"); }
void Kernels::nonzero(Stream&, const TensorRef&, const TensorRef&, const TensorRef&) {
  missing("nonzero");
}
void Kernels::matmul(Stream&, const MatmulArgs&) { missing("matmul"); }
void Kernels::random(Stream&, RandomOp, const TensorRef&, PhiloxState, Scalar, Scalar, const TensorRef*) {
  missing("random");
}
void Kernels::multinomial(Stream&, const TensorRef&, const TensorRef&, PhiloxState) {
  missing("multinomial");
}

namespace {
template <class Enum, size_t N>
std::string_view name_of(Enum op, const std::string_view (&names)[N]) {
  const auto i = static_cast<size_t>(op);
  return i < N ? names[i] : "unknown";
}
}  // namespace

std::string_view unary_op_name(UnaryOp op) {
  static const std::string_view names[] = {
      "cast", "neg", "abs", "sign", "reciprocal", "square", "exp", "exp2", "log", "log2", "log10",
      "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
      "tanh", "sigmoid", "relu", "gelu", "gelu_tanh", "silu", "erf", "erfc", "floor", "ceil", "round",
      "trunc", "frac", "isnan", "isinf", "isposinf", "isneginf", "isfinite", "logical_not",
      "bitwise_not", "nan_to_num", "clamp", "clamp_min", "clamp_max", "leaky_relu", "threshold"};
  return name_of(op, names);
}

std::string_view binary_op_name(BinaryOp op) {
  static const std::string_view names[] = {
      "add", "sub", "mul", "div", "div_trunc", "floor_divide", "remainder", "fmod", "pow", "atan2",
      "maximum", "minimum", "hypot", "copysign", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
      "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
      "right_shift", "tanh_backward", "sigmoid_backward", "threshold_backward"};
  return name_of(op, names);
}

std::string_view ternary_op_name(TernaryOp op) {
  static const std::string_view names[] = {"where", "lerp", "addcmul", "addcdiv", "clamp"};
  return name_of(op, names);
}

std::string_view reduce_op_name(ReduceOp op) {
  static const std::string_view names[] = {
      "sum", "prod", "mean", "nansum", "nanmean", "max", "min", "amax", "amin", "argmax", "argmin",
      "var", "std", "norm", "logsumexp", "all", "any", "count_nonzero"};
  return name_of(op, names);
}

std::string_view scan_op_name(ScanOp op) {
  static const std::string_view names[] = {"cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"};
  return name_of(op, names);
}

}  // namespace ember
