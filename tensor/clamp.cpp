// clamp with scalar or tensor bounds, clamp_min, clamp_max and clamp_. Scalar bounds take part in the
// result dtype (PyTorch's promotion) and must fit it. The gradient flows to x where clamp passes it
// through, the bounds included (PyTorch's rule).
//
// A NaN scalar bound is settled here, as LibTorch 1.13 does, and never reaches a kernel (GLSL's min and
// max may return either operand for NaN): clamp with both bounds, clamp_min and clamp_max give NaN
// everywhere; clamp or clamp_ with only that bound leave x as it is.
#include <cmath>

#include "tensor/elementwise_support.h"

namespace ember {

namespace {

using autograd::FunctionNode;
using autograd::Record;
using autograd::tensor_list;

void require_a_bound(bool min, bool max) {
  if (!min && !max) throw Error("torch.clamp: At least one of 'min' or 'max' must not be None");
}

// The kernel op of a clamp with scalar bounds, at least one of which is given, each checked to fit
// the result dtype.
UnaryArgs clamp_args(const std::optional<Scalar>& min, const std::optional<Scalar>& max, DType result) {
  if (result == DType::Bool) {  // PyTorch has no bool kernel for scalar bounds, by these names
    const char* kernel = min && max ? "clamp_scalar_cpu" : min ? "clamp_min_cpu" : "clamp_max_scalar_cpu";
    throw Error("\"" + std::string(kernel) + "\" not implemented for 'Bool'");
  }
  if (min) detail::check_scalar_fits(*min, result);
  if (max) detail::check_scalar_fits(*max, result);
  if (min && max) return {.op = UnaryOp::Clamp, .min = *min, .max = *max};
  if (min) return {.op = UnaryOp::ClampMin, .min = *min};
  return {.op = UnaryOp::ClampMax, .max = *max};
}

bool is_nan(const std::optional<Scalar>& bound) { return bound && std::isnan(bound->to_double()); }

// What a NaN bound makes of the result: NaN everywhere, or as if it were absent.
enum class NanBound { Fills, IsIgnored };

// x clamped by the scalar bounds: in PyTorch's result dtype, or in place into *out.
Tensor clamp_by_scalars(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max, NanBound nan_bound,
                        Tensor* out) {
  DType result = x.dtype();
  if (min) result = result_type(x, *min);
  if (max) result = promote_types(result, result_type(x, *max));
  if (out) {
    check_can_cast(result, out->dtype());
    result = out->dtype();
  }
  const UnaryArgs op = clamp_args(min, max, result);  // checks the bounds first, NaN ones included
  if (is_nan(min) || is_nan(max)) {
    if (nan_bound == NanBound::Fills) {
      const double nan = std::nan("");
      return out ? out->fill_(nan) : full_like(x, nan, TensorOptions().dtype(result));
    }
    if (out) return *out;
    return result == x.dtype() ? x.clone() : x.to(result);  // the one bound given is NaN: x is the result
  }
  return detail::run_unary(op, detail::UnaryKind::SameType, result == x.dtype() ? x : x.to(result), out);
}

// min(max(x, lo), hi) with the bounds given, in PyTorch's result dtype, or in place into *out.
Tensor clamp_by_tensors(const Tensor& x, const Tensor* lo, const Tensor* hi, Tensor* out) {
  if (!hi) return detail::run_binary({.op = BinaryOp::Maximum}, detail::BinaryKind::Arithmetic, x, *lo, out);
  if (!lo) return detail::run_binary({.op = BinaryOp::Minimum}, detail::BinaryKind::Arithmetic, x, *hi, out);
  const DType result = detail::promote_all({result_type(x, *lo), result_type(x, *hi)});
  return detail::run_ternary(TernaryOp::Clamp, x, *lo, *hi, result, result, 1, out);
}

Tensor passes_through(const Tensor& x, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  if (min && max) return (x >= *min).logical_and(x <= *max);
  return min ? x >= *min : x <= *max;
}

}  // namespace

Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  require_a_bound(min.has_value(), max.has_value());
  Record rec("ClampBackward1", {this});
  Tensor out = clamp_by_scalars(*this, min, max, min && max ? NanBound::Fills : NanBound::IsIgnored, nullptr);
  if (!rec) return out;
  rec.save(*this);
  return rec.finish(out, [min, max](FunctionNode& node, const tensor_list& g) {
    return tensor_list{ember::where(passes_through(node.saved(0), min, max), g[0], 0)};
  });
}

Tensor Tensor::clamp_min(Scalar min) const {
  Record rec("ClampMinBackward0", {this});
  Tensor out = clamp_by_scalars(*this, min, std::nullopt, NanBound::Fills, nullptr);
  if (!rec) return out;
  rec.save(*this);
  return rec.finish(out, [min](FunctionNode& node, const tensor_list& g) {
    return tensor_list{ember::where(node.saved(0) >= min, g[0], 0)};
  });
}

Tensor Tensor::clamp_max(Scalar max) const {
  Record rec("ClampMaxBackward0", {this});
  Tensor out = clamp_by_scalars(*this, std::nullopt, max, NanBound::Fills, nullptr);
  if (!rec) return out;
  rec.save(*this);
  return rec.finish(out, [max](FunctionNode& node, const tensor_list& g) {
    return tensor_list{ember::where(node.saved(0) <= max, g[0], 0)};
  });
}

Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
  require_a_bound(min.has_value(), max.has_value());
  return detail::inplace(*this, {}, [&](const Tensor& old) { return old.clamp(min, max); }, [&] {
    clamp_by_scalars(*this, min, max, min && max ? NanBound::Fills : NanBound::IsIgnored, this);
  });
}

Tensor& Tensor::clamp_min_(Scalar min) {
  return detail::inplace(*this, {}, [&](const Tensor& old) { return old.clamp_min(min); },
                         [&] { clamp_by_scalars(*this, min, std::nullopt, NanBound::Fills, this); });
}

Tensor& Tensor::clamp_max_(Scalar max) {
  return detail::inplace(*this, {}, [&](const Tensor& old) { return old.clamp_max(max); },
                         [&] { clamp_by_scalars(*this, std::nullopt, max, NanBound::Fills, this); });
}

// With tensor bounds the result is min(max(x, lo), hi). x gets the gradient where lo <= x <= hi; lo
// where x < lo and lo < hi; hi where x > hi, or everywhere hi < lo (there the result is hi). With lo ==
// hi and x outside, nobody gets it, as in PyTorch.
Tensor Tensor::clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max) const {
  require_a_bound(min.has_value(), max.has_value());
  const Tensor* lo = min ? &*min : nullptr;
  const Tensor* hi = max ? &*max : nullptr;
  Record rec("ClampBackward0", {this, lo, hi});
  Tensor out = clamp_by_tensors(*this, lo, hi, nullptr);
  if (!rec) return out;
  rec.save(*this);
  rec.save(lo ? *lo : Tensor());
  rec.save(hi ? *hi : Tensor());
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor x = node.saved(0), lo = node.saved(1), hi = node.saved(2);
    tensor_list grads(3);
    if (node.needs_input_grad(0)) {
      const Tensor inside = !hi.defined()   ? x >= lo
                            : !lo.defined() ? x <= hi
                                            : (x >= lo).logical_and(x <= hi);
      grads[0] = ember::where(inside, g[0], 0);
    }
    if (node.needs_input_grad(1)) {
      grads[1] = ember::where(hi.defined() ? (x < lo).logical_and(lo < hi) : x < lo, g[0], 0);
    }
    if (node.needs_input_grad(2)) {
      grads[2] = ember::where(lo.defined() ? (x > hi).logical_or(hi < lo) : x > hi, g[0], 0);
    }
    return grads;
  });
}

Tensor& Tensor::clamp_(const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  require_a_bound(min.has_value(), max.has_value());
  const Tensor* lo = min ? &*min : nullptr;
  const Tensor* hi = max ? &*max : nullptr;
  return detail::inplace(*this, {lo, hi}, [&](const Tensor& old) { return old.clamp(min, max); },
                         [&] { clamp_by_tensors(*this, lo, hi, this); });
}

// With one tensor bound x gets the gradient where it passes (ties included) and the bound where it
// wins, PyTorch's ClampMinBackward1 and ClampMaxBackward1.
Tensor Tensor::clamp_min(const Tensor& min) const {
  Record rec("ClampMinBackward1", {this, &min});
  Tensor out = clamp_by_tensors(*this, &min, nullptr, nullptr);
  if (!rec) return out;
  rec.save(*this);
  rec.save(min);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor x = node.saved(0), lo = node.saved(1);
    return tensor_list{node.needs_input_grad(0) ? ember::where(x >= lo, g[0], 0) : Tensor(),
                       node.needs_input_grad(1) ? ember::where(x < lo, g[0], 0) : Tensor()};
  });
}

Tensor Tensor::clamp_max(const Tensor& max) const {
  Record rec("ClampMaxBackward1", {this, &max});
  Tensor out = clamp_by_tensors(*this, nullptr, &max, nullptr);
  if (!rec) return out;
  rec.save(*this);
  rec.save(max);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor x = node.saved(0), hi = node.saved(1);
    return tensor_list{node.needs_input_grad(0) ? ember::where(x <= hi, g[0], 0) : Tensor(),
                       node.needs_input_grad(1) ? ember::where(x > hi, g[0], 0) : Tensor()};
  });
}

Tensor& Tensor::clamp_min_(const Tensor& min) {
  return detail::inplace(*this, {&min}, [&](const Tensor& old) { return old.clamp_min(min); },
                         [&] { clamp_by_tensors(*this, &min, nullptr, this); });
}

Tensor& Tensor::clamp_max_(const Tensor& max) {
  return detail::inplace(*this, {&max}, [&](const Tensor& old) { return old.clamp_max(max); },
                         [&] { clamp_by_tensors(*this, nullptr, &max, this); });
}

Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) { return x.clamp(min, max); }
Tensor clamp(const Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return x.clamp(min, max);
}
Tensor clamp_min(const Tensor& x, Scalar min) { return x.clamp_min(min); }
Tensor clamp_min(const Tensor& x, const Tensor& min) { return x.clamp_min(min); }
Tensor clamp_max(const Tensor& x, Scalar max) { return x.clamp_max(max); }
Tensor clamp_max(const Tensor& x, const Tensor& max) { return x.clamp_max(max); }
Tensor clip(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) { return x.clamp(min, max); }
Tensor clip(const Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return x.clamp(min, max);
}
Tensor& clamp_(Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) { return x.clamp_(min, max); }
Tensor& clamp_(Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return x.clamp_(min, max);
}
Tensor& clamp_min_(Tensor& x, Scalar min) { return x.clamp_min_(min); }
Tensor& clamp_min_(Tensor& x, const Tensor& min) { return x.clamp_min_(min); }
Tensor& clamp_max_(Tensor& x, Scalar max) { return x.clamp_max_(max); }
Tensor& clamp_max_(Tensor& x, const Tensor& max) { return x.clamp_max_(max); }
Tensor& clip_(Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) { return x.clamp_(min, max); }
Tensor& clip_(Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return x.clamp_(min, max);
}

}  // namespace ember
