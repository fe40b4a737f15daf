// Binary functions PyTorch has kernels for and ember composes of its elementwise ops: heaviside,
// logaddexp, logaddexp2 and xlogy. Each records PyTorch's node with PyTorch's formula, so the ops inside
// record nothing; the formulas use public ops, so second order works.
#include <cmath>
#include <numbers>

#include "autograd/record.h"
#include "tensor/functions.h"
#include "tensor/elementwise_support.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

using autograd::FunctionNode;
using autograd::Record;
using autograd::tensor_list;

// log(exp(a) + exp(b)) in base e (or 2): the larger plus log1p of the smaller's share, and the
// infinity itself where both are the same infinity (whose difference would be NaN).
Tensor log_add_exp(const char* op, const Tensor& a, const Tensor& b, bool base2) {
  detail::check_same_device({&a, &b});
  const DType dtype = result_type(a, b);
  if (!is_floating_point(dtype)) {
    throw Error(std::string("\"") + op + "_cpu\" not implemented for '" + scalar_type_name(dtype) + "'");
  }
  Record rec(base2 ? "Logaddexp2Backward0" : "LogaddexpBackward0", {&a, &b});
  const Tensor x = a.to(dtype), y = b.to(dtype);
  const Tensor gap = (x - y).abs().neg();
  const Tensor share = base2 ? gap.exp2().log1p().div(std::numbers::ln2) : gap.exp().log1p();
  Tensor out = where(x.isinf().logical_and(x == y), x, maximum(x, y) + share);
  if (!rec) return out;
  rec.save(a);
  rec.save(b);
  return rec.finish(out, [base2](FunctionNode& node, const tensor_list& g) {
    // d/da = 1 / (1 + base^(b - a)), d/db the same with a and b swapped.
    const Tensor x = node.saved(0), y = node.saved(1);
    const auto weight = [base2](const Tensor& d) { return base2 ? d.exp2() + 1 : d.exp() + 1; };
    return tensor_list{node.needs_input_grad(0) ? g[0] / weight(y - x) : Tensor(),
                       node.needs_input_grad(1) ? g[0] / weight(x - y) : Tensor()};
  });
}

// xlogy's dtype: the promoted one, integers and bools as the default float.
DType xlogy_dtype(DType promoted) { return is_floating_point(promoted) ? promoted : get_default_dtype(); }

// x log(y), 0 where x is 0, NaN where y is; `name` is the node (XlogyBackward0, 1 or 2 by which side
// is a number), and the number's side gets no gradient.
Tensor xlogy_of(const char* name, const Tensor& x, const Tensor& y, DType dtype, bool x_is_number,
                bool y_is_number) {
  detail::check_same_device({&x, &y});
  Record rec(name, {x_is_number ? nullptr : &x, y_is_number ? nullptr : &y});
  const Tensor a = x.to(dtype), b = y.to(dtype);
  Tensor out = where(b.isnan(), b, where(a == 0, 0, a * b.log()));
  if (!rec) return out;
  rec.save(x);
  rec.save(y);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor a = node.saved(0), b = node.saved(1);
    // d/dx = xlogy(x != 0, y); d/dy = x / y.
    return tensor_list{node.needs_input_grad(0) ? g[0] * (a != 0).to(g[0].dtype()).xlogy(b) : Tensor(),
                       node.needs_input_grad(1) ? g[0] * a / b : Tensor()};
  });
}

Tensor number_tensor(Scalar value, DType dtype, const Tensor& like) {
  return full({}, value, TensorOptions().dtype(dtype).device(like.device()));
}

}  // namespace

Tensor Tensor::heaviside(const Tensor& values) const {
  if (dtype() != values.dtype()) throw Error("heaviside is not yet implemented for tensors with different dtypes.");
  detail::check_same_device({this, &values});
  Record rec("torch::autograd::NotImplemented", {this, &values});
  Tensor out = ember::where(*this == 0, values, gt(0).to(dtype()));
  return rec ? rec.finish(out, autograd::not_implemented_backward("heaviside")) : out;
}

Tensor& Tensor::heaviside_(const Tensor& values) {
  if (dtype() != values.dtype()) throw Error("heaviside is not yet implemented for tensors with different dtypes.");
  detail::check_inplace_target(*this, dtype(), values.sizes());
  return detail::inplace(*this, {&values}, [&](const Tensor& old) { return old.heaviside(values); },
                         [&] { copy_(heaviside(values)); });
}

Tensor Tensor::logaddexp(const Tensor& other) const { return log_add_exp("logaddexp", *this, other, false); }
Tensor Tensor::logaddexp2(const Tensor& other) const { return log_add_exp("logaddexp2", *this, other, true); }

Tensor Tensor::xlogy(const Tensor& other) const {
  return xlogy_of("XlogyBackward0", *this, other, xlogy_dtype(result_type(*this, other)), false, false);
}

Tensor Tensor::xlogy(Scalar other) const {
  const DType dtype = xlogy_dtype(result_type(*this, other));
  return xlogy_of("XlogyBackward2", *this, number_tensor(other, dtype, *this), dtype, false, true);
}

Tensor& Tensor::xlogy_(const Tensor& other) {
  detail::check_inplace_target(*this, xlogy_dtype(result_type(*this, other)), other.sizes());
  return detail::inplace(*this, {&other}, [&](const Tensor& old) { return old.xlogy(other); },
                         [&] { copy_(xlogy(other)); });
}

Tensor& Tensor::xlogy_(Scalar other) {
  detail::check_inplace_target(*this, xlogy_dtype(result_type(*this, other)), {});
  return detail::inplace(*this, {}, [&](const Tensor& old) { return old.xlogy(other); },
                         [&] { copy_(xlogy(other)); });
}

Tensor heaviside(const Tensor& x, const Tensor& values) { return x.heaviside(values); }
Tensor logaddexp(const Tensor& a, const Tensor& b) { return a.logaddexp(b); }
Tensor logaddexp2(const Tensor& a, const Tensor& b) { return a.logaddexp2(b); }
Tensor xlogy(const Tensor& x, const Tensor& y) { return x.xlogy(y); }
Tensor xlogy(const Tensor& x, Scalar y) { return x.xlogy(y); }

Tensor xlogy(Scalar x, const Tensor& y) {
  const DType dtype = xlogy_dtype(result_type(x, y));
  return xlogy_of("XlogyBackward1", number_tensor(x, dtype, y), y, dtype, true, false);
}

}  // namespace ember
