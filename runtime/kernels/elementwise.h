#pragma once
// The elementwise kernel family: out = f(in), f(a, b) or f(a, b, c) element by element, and arithmetic
// sequences. Operands have out's sizes (broadcast dims have zero strides); a binary or ternary operand
// may be a host scalar. The ops come from unary_ops.def, binary_ops.def and ternary_ops.def.
#include <array>
#include <optional>

#include "runtime/kernels/kernels.h"
#include "runtime/kernels/op_list.h"

namespace ember {

enum class UnaryOp : uint8_t {
#define EMBER_UNARY_OP(Enum, name, domain, parameters) Enum,
#include "runtime/kernels/unary_ops.def"
#undef EMBER_UNARY_OP
};
inline constexpr std::string_view kUnaryOpNames[] = {
#define EMBER_UNARY_OP(Enum, name, domain, parameters) #name,
#include "runtime/kernels/unary_ops.def"
#undef EMBER_UNARY_OP
};
inline constexpr OpDomain kUnaryOpDomains[] = {
#define EMBER_UNARY_OP(Enum, name, domain, parameters) OpDomain::domain,
#include "runtime/kernels/unary_ops.def"
#undef EMBER_UNARY_OP
};
inline constexpr size_t kUnaryOpCount = std::size(kUnaryOpNames);
static_assert(std::size(kUnaryOpDomains) == kUnaryOpCount);

enum class BinaryOp : uint8_t {
#define EMBER_BINARY_OP(Enum, name, domain, parameter) Enum,
#include "runtime/kernels/binary_ops.def"
#undef EMBER_BINARY_OP
};
inline constexpr std::string_view kBinaryOpNames[] = {
#define EMBER_BINARY_OP(Enum, name, domain, parameter) #name,
#include "runtime/kernels/binary_ops.def"
#undef EMBER_BINARY_OP
};
inline constexpr OpDomain kBinaryOpDomains[] = {
#define EMBER_BINARY_OP(Enum, name, domain, parameter) OpDomain::domain,
#include "runtime/kernels/binary_ops.def"
#undef EMBER_BINARY_OP
};
inline constexpr size_t kBinaryOpCount = std::size(kBinaryOpNames);
static_assert(std::size(kBinaryOpDomains) == kBinaryOpCount);

enum class TernaryOp : uint8_t {
#define EMBER_TERNARY_OP(Enum, name, domain) Enum,
#include "runtime/kernels/ternary_ops.def"
#undef EMBER_TERNARY_OP
};
inline constexpr std::string_view kTernaryOpNames[] = {
#define EMBER_TERNARY_OP(Enum, name, domain) #name,
#include "runtime/kernels/ternary_ops.def"
#undef EMBER_TERNARY_OP
};
inline constexpr OpDomain kTernaryOpDomains[] = {
#define EMBER_TERNARY_OP(Enum, name, domain) OpDomain::domain,
#include "runtime/kernels/ternary_ops.def"
#undef EMBER_TERNARY_OP
};
inline constexpr size_t kTernaryOpCount = std::size(kTernaryOpNames);
static_assert(std::size(kTernaryOpDomains) == kTernaryOpCount);

constexpr std::string_view unary_op_name(UnaryOp op) { return op_name(op, kUnaryOpNames); }
constexpr std::string_view binary_op_name(BinaryOp op) { return op_name(op, kBinaryOpNames); }
constexpr std::string_view ternary_op_name(TernaryOp op) { return op_name(op, kTernaryOpNames); }
constexpr OpDomain op_domain(UnaryOp op) { return kUnaryOpDomains[static_cast<size_t>(op)]; }
constexpr OpDomain op_domain(BinaryOp op) { return kBinaryOpDomains[static_cast<size_t>(op)]; }
constexpr OpDomain op_domain(TernaryOp op) { return kTernaryOpDomains[static_cast<size_t>(op)]; }

// out = op(in), evaluated in `compute`.
struct UnaryArgs {
  UnaryOp op = UnaryOp::Cast;
  TensorRef out;
  TensorRef in;
  DType compute = DType::Float32;
  // What the parameterised ops read; the others ignore them.
  Scalar min = 0;              // Clamp, ClampMin
  Scalar max = 0;              // Clamp, ClampMax
  Scalar negative_slope = 0;   // LeakyRelu
  Scalar threshold = 0;        // Threshold: in <= threshold becomes value; Softplus: linear above it
  Scalar value = 0;            // Threshold
  Scalar nan = 0;              // NanToNum: what replaces NaN,
  Scalar posinf = 0;           // +inf
  Scalar neginf = 0;           // and -inf
  Scalar alpha = 1;            // Elu: the negative branch's factor (times scale),
  Scalar scale = 1;            // the positive branch's,
  Scalar input_scale = 1;      // and the factor of in inside exp
  Scalar lambd = 0.5;          // Hardshrink, Softshrink: the half-width of the zero band
  Scalar beta = 1;             // Softplus
  // The three parameters the kernels receive, in the order this op reads them (parameters.cpp).
  std::array<Scalar, 3> parameters() const;
};

// out = op(a, b); at least one of a and b is a tensor.
struct BinaryArgs {
  BinaryOp op = BinaryOp::Add;
  TensorRef out;
  Operand a;
  Operand b;
  DType compute = DType::Float32;
  Scalar alpha = 1;           // Add, Sub: a ± alpha b
  Scalar threshold = 0;       // ThresholdBackward
  Scalar negative_slope = 0;  // LeakyReluBackward
  Scalar lambd = 0.5;         // ShrinkBackward
  // The one parameter the kernels receive (parameters.cpp).
  Scalar parameter() const;
};

// out = op(a, b, c); a is a tensor, b and c may be scalars.
struct TernaryArgs {
  TernaryOp op = TernaryOp::Where;
  TensorRef out;
  TensorRef a;
  Operand b;
  Operand c;
  DType compute = DType::Float32;
  Scalar value = 1;  // Addcmul, Addcdiv: a + value b c, a + value b / c
};

// out[i] = start + i * step over a contiguous out. For linspace pass `end` too: the second half counts
// back from end, as PyTorch does, so that the last element is exactly end.
struct SequenceArgs {
  TensorRef out;
  Scalar start = 0;
  Scalar step = 1;
  std::optional<Scalar> end;
};

class ElementwiseKernels : public KernelFamily {
 public:
  static constexpr std::string_view kName = "elementwise";
  virtual void unary(Stream& stream, const UnaryArgs& args) = 0;
  virtual void binary(Stream& stream, const BinaryArgs& args) = 0;
  virtual void ternary(Stream& stream, const TernaryArgs& args) = 0;
  virtual void sequence(Stream& stream, const SequenceArgs& args) = 0;
};

}  // namespace ember
