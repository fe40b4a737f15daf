// Activations with more than one operand, each one recorded node (PyTorch 1.13's names and formulas):
// prelu (a learned slope per channel, one binary kernel), rrelu (random slopes in training, their mean
// in eval) and glu (one half of a dim gates the other).
#include <string>

#include "tensor/autocast.h"
#include "tensor/elementwise_support.h"

namespace ember {

namespace {

using autograd::FunctionNode;
using autograd::Record;
using autograd::tensor_list;
using detail::BinaryKind;
using detail::UnaryKind;

void require_floating(const Tensor& x, const char* kernel) {
  if (!x.is_floating_point()) {
    throw Error(std::string("\"") + kernel + "\" not implemented for '" + scalar_type_name(x.dtype()) + "'");
  }
}

// ---- prelu ----

// PyTorch's checks, in its order: the weight's rank, the channel count, then the dtypes.
void check_prelu(const Tensor& x, const Tensor& weight) {
  if (weight.dim() > 1) {
    throw Error("prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = " +
                std::to_string(weight.dim()));
  }
  if (weight.numel() != 1) {
    if (x.dim() == 0) throw Error("Not allow zero-dim input tensor.");
    const int64_t channels = x.dim() > 1 ? x.size(1) : 1;
    if (channels != weight.numel()) {
      throw Error("Mismatch of parameter numbers and input channel size. Found parameter numbers = " +
                  std::to_string(weight.numel()) + " and channel size = " + std::to_string(channels) + ".");
    }
  }
  detail::check_same_device({&x, &weight});
  if (weight.dtype() != x.dtype()) {
    throw Error("Found dtype " + scalar_type_name(weight.dtype()) + " but expected " + scalar_type_name(x.dtype()));
  }
  require_floating(x, "prelu_cpu");
}

// The weight shaped to broadcast over x's channels (dim 1): 0-dim when it is one slope, (C, 1, ..., 1)
// otherwise.
Tensor slope_of(const Tensor& weight, int64_t input_dim) {
  if (weight.numel() == 1) return weight.reshape({});
  std::vector<int64_t> shape(static_cast<size_t>(std::max<int64_t>(input_dim - 1, 1)), 1);
  shape[0] = weight.numel();
  return weight.reshape(shape);
}

}  // namespace

// PyTorch's prelu_backward: the input's gradient is g where x > 0 and w g elsewhere; the weight's is
// x g where x <= 0, summed over every dim but the channels.
Tensor Tensor::prelu(const Tensor& weight) const {
  if (autocast::is_active()) {
    return autocast::in_lower_precision([](const Tensor& x, const Tensor& w) { return x.prelu(w); }, *this, weight);
  }
  check_prelu(*this, weight);
  Record rec("PreluBackward0", {this, &weight});
  Tensor out = detail::run_binary({.op = BinaryOp::Prelu}, BinaryKind::Arithmetic, *this, slope_of(weight, dim()),
                                  nullptr);
  if (!rec) return out;
  rec.save(*this);
  rec.save(weight);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor x = node.saved(0), weight = node.saved(1);
    const Tensor slope = slope_of(weight, x.dim());
    const Tensor positive = x > 0;
    Tensor grad_input, grad_weight;
    if (node.needs_input_grad(0)) grad_input = ember::where(positive, g[0], g[0] * slope);
    if (node.needs_input_grad(1)) {
      grad_weight = autograd::sum_to(ember::where(positive, 0, x * g[0]), slope.sizes()).reshape(weight.sizes());
    }
    return tensor_list{grad_input, grad_weight};
  });
}

Tensor prelu(const Tensor& x, const Tensor& weight) { return x.prelu(weight); }

// ---- rrelu ----

namespace {

void check_rrelu_bounds(Scalar lower, Scalar upper) {
  if (lower.to_double() > upper.to_double()) {
    throw Error("Lower bound should be less than or equal to the upper bound");
  }
}

// Training: x times a slope drawn from U[lower, upper) where x <= 0, 1 elsewhere (PyTorch's noise).
Tensor rrelu_noise(const Tensor& x, Scalar lower, Scalar upper, Generator* generator) {
  autograd::NoGradGuard no_grad;
  Tensor noise = empty_like(x);
  noise.uniform_(lower.to_double(), upper.to_double(), generator);
  return noise.masked_fill_(x > 0, 1);
}

double eval_slope(Scalar lower, Scalar upper) { return (lower.to_double() + upper.to_double()) / 2; }

// RreluWithNoiseBackward0, or RreluWithNoiseBackward1 for rrelu_ (`in_place`): the gradient is g times
// the noise in training, leaky_relu's with the mean slope in eval, of the input (of the result in place).
Tensor recorded_rrelu(const Tensor& x, Scalar lower, Scalar upper, bool training, Generator* generator,
                      bool in_place) {
  const char* name = in_place ? "RreluWithNoiseBackward1" : "RreluWithNoiseBackward0";
  check_rrelu_bounds(lower, upper);
  if (training) {
    require_floating(x, "rrelu_with_noise_out_cpu");
    const Tensor noise = rrelu_noise(x, lower, upper, generator);
    Record rec(name, {&x});
    Tensor out = x * noise;
    if (!rec) return out;
    rec.save(noise);
    return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
      return tensor_list{g[0] * node.saved(0)};
    });
  }
  require_floating(x, "leaky_relu_cpu");
  const double slope = eval_slope(lower, upper);
  Record rec(name, {&x});
  Tensor out = detail::run_unary({.op = UnaryOp::LeakyRelu, .negative_slope = slope}, UnaryKind::SameType, x, nullptr);
  if (!rec) return out;
  if (in_place) {
    rec.save_output(out);
    return rec.finish(out, [slope](FunctionNode& node, const tensor_list& g) {
      return tensor_list{detail::leaky_relu_grad_of_result(g[0], node.saved(0), slope)};
    });
  }
  rec.save(x);
  return rec.finish(out, [slope](FunctionNode& node, const tensor_list& g) {
    if (!autograd::GradMode::is_enabled()) {
      return tensor_list{detail::run_binary({.op = BinaryOp::LeakyReluBackward, .negative_slope = slope},
                                            BinaryKind::Arithmetic, g[0], node.saved(0), nullptr)};
    }
    return tensor_list{ember::where(node.saved(0) > 0, g[0], g[0] * slope)};
  });
}

}  // namespace

Tensor rrelu(const Tensor& x, Scalar lower, Scalar upper, bool training, Generator* generator) {
  return recorded_rrelu(x, lower, upper, training, generator, false);
}

Tensor& rrelu_(Tensor& x, Scalar lower, Scalar upper, bool training, Generator* generator) {
  check_rrelu_bounds(lower, upper);
  return detail::inplace(
      x, {},
      [&](const Tensor& old) {
        return recorded_rrelu(old, lower, upper, training, generator, true);
      },
      [&] {
        if (training) {
          require_floating(x, "rrelu_with_noise_out_cpu");
          detail::binary_(BinaryOp::Mul, BinaryKind::Arithmetic, x, rrelu_noise(x, lower, upper, generator));
        } else {
          require_floating(x, "leaky_relu_cpu");
          detail::run_unary({.op = UnaryOp::LeakyRelu, .negative_slope = eval_slope(lower, upper)},
                            UnaryKind::SameType, x, &x);
        }
      });
}

// ---- glu ----

// a sigmoid(b), a and b the two halves of `dim`. PyTorch's glu_backward: g sigmoid(b) for a,
// g a sigmoid(b) (1 - sigmoid(b)) for b.
Tensor glu(const Tensor& x, int64_t dim) {
  if (x.dim() == 0) throw Error("glu does not support 0-dimensional tensors");
  const int64_t d = detail::wrap_dim(dim, x.dim());
  if (x.size(d) % 2 != 0) {
    throw Error("Halving dimension must be even, but dimension " + std::to_string(d) + " is size " +
                std::to_string(x.size(d)));
  }
  require_floating(x, "glu_cpu");
  const int64_t half = x.size(d) / 2;
  Record rec("GluBackward0", {&x});
  Tensor out = x.narrow(d, 0, half) * x.narrow(d, half, half).sigmoid();
  if (!rec) return out;
  rec.save(x);
  return rec.finish(out, [d, half](FunctionNode& node, const tensor_list& g) {
    const Tensor x = node.saved(0);
    const Tensor gate = x.narrow(d, half, half).sigmoid();
    const Tensor grad_first = g[0] * gate;
    const Tensor grad_second = grad_first * x.narrow(d, 0, half) * (1 - gate);
    return tensor_list{ember::cat({grad_first, grad_second}, d)};
  });
}

}  // namespace ember
