#pragma once
// What the elementwise ops share (internal to tensor/): the result dtype of each kind of op (PyTorch's
// promotion), broadcasting, the checks of in-place destinations, the unary, binary or ternary kernel a
// call becomes, and the small helpers their backward formulas use. Inputs keep their strides;
// broadcast dims read with stride 0.
#include <initializer_list>
#include <optional>
#include <type_traits>

#include "autograd/record.h"
#include "runtime/kernels/elementwise.h"
#include "tensor/autocast.h"
#include "tensor/ops_support.h"

namespace ember::detail {

// A scalar converted to an integral compute dtype's range first, as PyTorch casts scalars to the
// common dtype (uint8 compared with -1 compares with 255).
Scalar scalar_in(Scalar value, DType compute);

// How a binary op's result dtype follows from the inputs' common dtype.
enum class BinaryKind {
  Arithmetic,    // the common dtype
  TrueDivision,  // floating: integral and bool inputs give the default float dtype
  Comparison,    // bool
  Logical,       // bool
  Bitwise,       // the common dtype, which must be integral or bool
};

// A binary or ternary operand: a tensor, or a host scalar.
struct TensorOrScalar {
  TensorOrScalar(const Tensor& t) : tensor(&t) {}
  TensorOrScalar(Scalar s) : scalar(s) {}
  template <class T>
    requires std::is_arithmetic_v<T>
  TensorOrScalar(T value) : scalar(Scalar(value)) {}
  const Tensor* tensor = nullptr;
  std::optional<Scalar> scalar;
};

// Runs a binary op: `op` gives the op and the parameter it reads (alpha, threshold); `out` is the
// destination of an in-place form, else null.
Tensor run_binary(const BinaryArgs& op, BinaryKind kind, const TensorOrScalar& a, const TensorOrScalar& b,
                  Tensor* out);
Tensor binary(BinaryOp op, BinaryKind kind, const TensorOrScalar& a, const TensorOrScalar& b, Scalar alpha = 1);
Tensor& binary_(BinaryOp op, BinaryKind kind, Tensor& self, const TensorOrScalar& b, Scalar alpha = 1);

// How a unary op's result dtype follows from its input's.
enum class UnaryKind {
  SameType,       // abs, neg, sign: integral stays integral
  Floating,       // exp, sin: integral and bool become the default float dtype
  ToBool,         // isnan, logical_not
  FloatOnlySame,  // frac, gelu: floating inputs only
};

// Runs a unary op: `op` gives the op and the parameters it reads (UnaryArgs' named fields); `out` is the
// destination of an in-place form, else null.
Tensor run_unary(const UnaryArgs& op, UnaryKind kind, const Tensor& x, Tensor* out);
Tensor unary(UnaryOp op, UnaryKind kind, const Tensor& x);
Tensor& unary_(UnaryOp op, UnaryKind kind, Tensor& x);
// A unary op recorded with its entry of the formula table (unary_formulas.cpp) when autograd needs it.
Tensor recorded_unary(const UnaryArgs& op, UnaryKind kind, const Tensor& x);
Tensor recorded_unary(UnaryOp op, UnaryKind kind, const Tensor& x);
// Records `out` as the result of unary `op` applied to `x`, computed elsewhere (a fused kernel), when
// autograd needs it. Only for ops whose backward reads the output or nothing: x may hold no values.
Tensor record_unary_result(const UnaryArgs& op, const Tensor& x, Tensor out);

// Runs a ternary op whose result and compute dtypes the caller decided; `value` is Addcmul's and
// Addcdiv's factor. `out` is the destination of an in-place form, else null.
Tensor run_ternary(TernaryOp op, const Tensor& a, const TensorOrScalar& b, const TensorOrScalar& c, DType result,
                   DType compute, Scalar value, Tensor* out);

DType promote_all(std::initializer_list<DType> dtypes);
// What an in-place destination of a broadcasting op must satisfy, with PyTorch's messages: it can hold
// the result dtype, its shape is the broadcast of itself with `shape`, and no two elements share memory.
void check_inplace_target(const Tensor& out, DType result, IntArrayRef shape);

// An in-place op on `self` that also reads `others`: when autograd must see the write it is recorded as
// self = out_of_place(old self), so the op gets the out-of-place formula; otherwise `in_place()` runs the
// kernel on self's memory.
template <class OutOfPlace, class InPlace>
Tensor& inplace(Tensor& self, std::initializer_list<const Tensor*> others, const OutOfPlace& out_of_place,
                const InPlace& in_place) {
  autocast::SuspendGuard not_autocast;  // as PyTorch's, autocast leaves in-place ops in their tensor's dtype
  if (autograd::inplace_needs_record(self, others)) return autograd::record_inplace(self, out_of_place);
  in_place();
  return self;
}

// ---- what backward formulas share ----
// Formulas are written with the public ops, so under create_graph they record a graph of their own.
// Closures capture only scalars; tensors are saved on the node.

bool wants_grad(const Tensor& t);
// What a node saves is only what the gradients it will compute read (as in PyTorch), so later in-place
// writes to the other inputs stay legal. An undefined tensor keeps the saved indices fixed.
Tensor if_needed(bool needed, const Tensor& t);
// g * s, without a kernel for s == 1.
Tensor scaled(const Tensor& g, Scalar s);
Scalar negated(Scalar s);
// The backward of an op whose one input gets the output's gradient unchanged.
autograd::tensor_list pass_through(autograd::FunctionNode& node, const autograd::tensor_list& grads);
// PyTorch's leaky_relu_backward of the result y, which the in-place forms keep (leaky_relu_, rrelu_ in
// eval): g where y > 0, negative_slope g elsewhere. A negative slope cannot be told from y: refused with
// PyTorch's message. Defined in activation.cpp.
Tensor leaky_relu_grad_of_result(const Tensor& g, const Tensor& y, double negative_slope);

}  // namespace ember::detail
