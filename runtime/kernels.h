#pragma once
// The kernel interface. Declared once here, implemented by shaders/ (Vulkan) and kernels_cuda/ (CUDA).
// Arguments are plain tensor descriptions, so runtime/ knows nothing of tensor/. A backend that lacks a
// kernel throws UnsupportedError naming it; nothing is ever computed on the host instead.
//
// tensor/ has already done the semantics when a kernel is called: shapes are checked and broadcast
// (broadcast dims arrive as zero strides), outputs are allocated, and `compute` is the dtype the op is
// evaluated in (PyTorch's common dtype). Kernels load each operand from its own dtype, compute in
// `compute` (float32 for float16 and bfloat16), and convert once when they store.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>

#include "runtime/dtype.h"
#include "runtime/scalar.h"

namespace ember {

class Allocation;
class Stream;

inline constexpr int kMaxDims = 16;

// A strided view of device memory: sizes and strides count elements; byte_offset counts from the start
// of the allocation. The caller keeps the allocation alive while the call records its work.
struct TensorRef {
  Allocation* allocation = nullptr;
  uint64_t byte_offset = 0;
  DType dtype = DType::Float32;
  int ndim = 0;
  std::array<int64_t, kMaxDims> sizes{};
  std::array<int64_t, kMaxDims> strides{};

  static TensorRef contiguous(Allocation& allocation, DType dtype,
                              std::initializer_list<int64_t> sizes, uint64_t byte_offset = 0);
  int64_t numel() const;
  bool is_contiguous() const;
  // Bytes from the first element to one past the furthest element the view can reach.
  uint64_t extent_bytes() const;
};

// An elementwise operand: a tensor, or a host scalar that travels in the launch's arguments.
struct Operand {
  Operand(const TensorRef& tensor) : tensor(tensor) {}
  Operand(Scalar scalar) : scalar(scalar) {}
  TensorRef tensor;
  std::optional<Scalar> scalar;
  bool is_scalar() const { return scalar.has_value(); }
};

// out = f(in). p0..p2 are the op's parameters, noted per op.
enum class UnaryOp {
  Cast,        // out = in converted to out's dtype (compute = out's dtype)
  Neg, Abs, Sign, Reciprocal, Square,
  Exp, Exp2, Log, Log2, Log10, Log1p, Expm1, Sqrt, Rsqrt,
  Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh,
  Sigmoid, Relu, Gelu, GeluTanh, Silu, Erf, Erfc,
  Floor, Ceil, Round, Trunc, Frac,
  IsNan, IsInf, IsPosInf, IsNegInf, IsFinite,  // out is bool
  LogicalNot,                                  // out is bool
  BitwiseNot,                                  // integral and bool
  NanToNum,    // p0 replaces NaN, p1 +inf, p2 -inf
  Clamp,       // p0 min, p1 max; NaN stays NaN
  ClampMin,    // p0
  ClampMax,    // p0
  LeakyRelu,   // p0 negative slope
  Threshold,   // out = in <= p0 ? p1 : in
};

// out = a op b, either of which may be a scalar.
enum class BinaryOp {
  Add,          // a + alpha * b
  Sub,          // a - alpha * b
  Mul, Div,     // Div is true division (compute is floating)
  DivTrunc, DivFloor,  // torch.div's rounding modes; DivFloor is floor_divide
  Remainder,    // Python's modulus: the result takes b's sign
  Fmod,         // C's fmod: the result takes a's sign
  Pow, Atan2, Maximum, Minimum, Hypot, Copysign,
  Eq, Ne, Lt, Le, Gt, Ge,                // out is bool
  LogicalAnd, LogicalOr, LogicalXor,     // out is bool
  BitwiseAnd, BitwiseOr, BitwiseXor, LeftShift, RightShift,
  // Activation gradients in one pass (a = incoming gradient, b = the activation's output):
  TanhBackward,       // a (1 - b^2)
  SigmoidBackward,    // a b (1 - b)
  ThresholdBackward,  // b <= alpha ? 0 : a (relu's with alpha = 0)
};

// out = f(a, b, c); b or c may be a scalar.
enum class TernaryOp {
  Where,    // a (bool) ? b : c
  Lerp,     // a + c * (b - a)
  Addcmul,  // a + alpha * b * c
  Addcdiv,  // a + alpha * b / c
  Clamp,    // min(max(a, b), c), NaN in a propagates
};

// Reductions write one value per output element (and an int64 index for the arg-ops).
enum class ReduceOp {
  Sum, Prod, Mean,
  NanSum, NanMean,
  Max, Min,            // values and indices (first occurrence; NaN wins, as in PyTorch)
  Amax, Amin,          // values only
  Argmax, Argmin,      // indices only, written to `indices`
  Var, Std,            // param = correction
  Norm,                // param = p (0, 1, 2, inf, -inf or any other)
  LogSumExp,
  All, Any,            // out is bool
  CountNonzero,        // out is int64
};

enum class ScanOp { CumSum, CumProd, CumMax, CumMin, LogCumSumExp };

enum class ScatterMode { Assign, Add, Multiply, Amax, Amin };

enum class RandomOp {
  Uniform,    // p0 low, p1 high
  Normal,     // p0 mean, p1 std
  Bernoulli,  // p0 probability (or the `probabilities` tensor when given)
  RandInt,    // integers in [p0, p1)
  Randperm,   // a permutation of 0..numel-1, out is contiguous
};

// Where a counter-based generator stands: draws depend on (seed, offset, element index) only, so they
// do not depend on how a launch is split into workgroups.
struct PhiloxState {
  uint64_t seed = 0;
  uint64_t offset = 0;  // in 128-bit blocks already consumed
};

// C = alpha * A @ B + beta * bias over a batch, for float types; A is batch×M×K, B is batch×K×N, out is
// batch×M×N. Each carries one batch dim (stride 0 broadcasts); bias (optional) has out's sizes with any
// strides. float16 and bfloat16 accumulate in float32.
struct MatmulArgs {
  TensorRef out, a, b;
  std::optional<TensorRef> bias;
  double alpha = 1.0;
  double beta = 0.0;
};

class Kernels {
 public:
  virtual ~Kernels() = default;
  virtual std::string_view backend_name() const = 0;

  // out[...] = value, for every dtype.
  virtual void fill(Stream& stream, const TensorRef& out, Scalar value) = 0;
  // out[...] = in[...] for same-dtype views of equal sizes, any strides (strided to contiguous and back).
  virtual void copy(Stream& stream, const TensorRef& out, const TensorRef& in) = 0;
  // out (one element) = sum of every element of in. float32, tree-ordered.
  virtual void sum(Stream& stream, const TensorRef& out, const TensorRef& in) = 0;

  // Elementwise. Operands have out's sizes (broadcast dims have zero strides).
  virtual void unary(Stream& stream, UnaryOp op, const TensorRef& out, const TensorRef& in, DType compute,
                     Scalar p0 = 0, Scalar p1 = 0, Scalar p2 = 0);
  virtual void binary(Stream& stream, BinaryOp op, const TensorRef& out, const Operand& a,
                      const Operand& b, DType compute, Scalar alpha = 1);
  virtual void ternary(Stream& stream, TernaryOp op, const TensorRef& out, const TensorRef& a,
                       const Operand& b, const Operand& c, DType compute, Scalar alpha = 1);
  // out[i] = start + i * step over a contiguous out; for linspace pass `end` and steps: the second half
  // counts back from end, as PyTorch does, so the last element is exactly end.
  virtual void sequence(Stream& stream, const TensorRef& out, Scalar start, Scalar step,
                        std::optional<Scalar> end = std::nullopt);

  // Reduces `in` over the dims where reduce_mask has bit d set. out (and indices, int64) are
  // contiguous with the kept dims of `in`, in order. `param` is the op's parameter (see ReduceOp).
  virtual void reduce(Stream& stream, ReduceOp op, const TensorRef* out, const TensorRef* indices,
                      const TensorRef& in, uint32_t reduce_mask, DType compute, double param = 0);
  // Inclusive scan along `dim`; out has in's sizes (any strides). CumMax/CumMin also write indices.
  virtual void scan(Stream& stream, ScanOp op, const TensorRef& out, const TensorRef* indices,
                    const TensorRef& in, int dim, DType compute);

  // out[p] = in[p with coordinate `dim` replaced by index[p]] for every position p of out. index is int64
  // with out's sizes (any strides, broadcast allowed); in has out's sizes except along dim. Negative
  // indices count from the end. tensor/ checks bounds before it calls; an index still outside
  // [-size, size) reads zero rather than memory it does not own.
  virtual void gather(Stream& stream, const TensorRef& out, const TensorRef& in, int dim,
                      const TensorRef& index);
  // out[p with coordinate dim replaced by index[p]] (op)= src[p] for every position p of index; src
  // (tensor or scalar) has index's sizes. Add, Multiply, Amax, Amin combine atomically; Add scales src
  // by alpha. An index out of range writes nothing.
  virtual void scatter(Stream& stream, ScatterMode mode, const TensorRef& out, int dim,
                       const TensorRef& index, const Operand& src, Scalar alpha = 1);
  // Keeps in's elements on or below (upper: on or above) `diagonal` of the last two dims; zeroes the rest.
  virtual void triangle(Stream& stream, const TensorRef& out, const TensorRef& in, int64_t diagonal,
                        bool upper);
  // For each nonzero element of `in` (row-major order) writes its coordinates as a row of out
  // (n × in.ndim, int64). `positions` is the inclusive cumulative count of nonzeros, int64, contiguous.
  virtual void nonzero(Stream& stream, const TensorRef& out, const TensorRef& in,
                       const TensorRef& positions);

  // Batched matrix multiply, see MatmulArgs.
  virtual void matmul(Stream& stream, const MatmulArgs& args);

  // Fills out with draws; `probabilities` is the per-element p of Bernoulli when given.
  virtual void random(Stream& stream, RandomOp op, const TensorRef& out, PhiloxState state,
                      Scalar p0 = 0, Scalar p1 = 1, const TensorRef* probabilities = nullptr);
  // Each row of out (rows × samples, int64) receives draws from the matching row of `cdf`
  // (rows × categories, float, inclusive cumulative weights, unnormalised). With replacement only;
  // tensor/ builds sampling without replacement from this and masking.
  virtual void multinomial(Stream& stream, const TensorRef& out, const TensorRef& cdf, PhiloxState state);

 protected:
  // Throws the UnsupportedError of a kernel this backend does not have.
  [[noreturn]] void missing(std::string_view kernel) const;
};

std::string_view unary_op_name(UnaryOp op);
std::string_view binary_op_name(BinaryOp op);
std::string_view ternary_op_name(TernaryOp op);
std::string_view reduce_op_name(ReduceOp op);
std::string_view scan_op_name(ScanOp op);

}  // namespace ember
