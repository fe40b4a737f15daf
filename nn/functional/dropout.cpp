// dropout (one DropoutKernels launch: Philox mask as bits and scaling; NativeDropoutBackward0 applies
// the saved mask), and PyTorch's compositions for the channel-wise and alpha forms (ATen's
// _dropout_impl: bernoulli noise, divided by 1 - p or made affine for alpha dropout, then multiplied in).
#include "nn/functional/dropout.h"

#include <cmath>
#include <sstream>
#include <string>

#include "autograd/record.h"
#include "runtime/kernels/dropout.h"
#include "tensor/ops_support.h"

namespace ember::nn::functional {

namespace {

void check_probability(double p) {
  if (!(p >= 0 && p <= 1)) {
    std::ostringstream message;  // a double as PyTorch prints it: 1.5, -0.1
    message << "dropout probability has to be between 0 and 1, but got " << p;
    throw Error(message.str());
  }
}

DropoutKernels& kernels_of(const Tensor& t) { return ember::detail::kernels_for<DropoutKernels>(*t.device()); }

// grad scaled by `scale` where the mask keeps, zero elsewhere; its own gradient is the same map.
Tensor apply_mask(const Tensor& grad, const Tensor& mask, double scale) {
  autograd::Record rec("NativeDropoutBackwardBackward0", {&grad});
  const Tensor g = grad.contiguous();
  const Tensor out = ember::detail::empty_on(g.sizes(), g.dtype(), g.device());
  kernels_of(g).apply_mask(*ember::detail::stream_for(*g.device()),
                           {.out = out.ref(), .in = g.ref(), .mask = mask.ref(), .scale = scale});
  if (!rec) return out;
  rec.save(mask);
  return rec.finish(out, [scale](autograd::FunctionNode& node, const autograd::tensor_list& grads) {
    return autograd::tensor_list{apply_mask(grads[0], node.saved(0), scale)};
  });
}

// Writes the dropout of `x` (contiguous) into `out` (contiguous, may be x) and returns the mask.
Tensor draw_into(const Tensor& out, const Tensor& x, double p) {
  const Tensor mask = ember::detail::empty_on({dropout_mask_words(x.numel())}, DType::Int32, x.device());
  const PhiloxState state = default_generator().advance(static_cast<uint64_t>(dropout_blocks(x.numel())));
  kernels_of(x).dropout(*ember::detail::stream_for(*x.device()),
                        {.out = out.ref(), .in = x.ref(), .mask = mask.ref(), .p = p, .state = state});
  return mask;
}

Tensor fused_dropout(const Tensor& input, double p) {
  autograd::Record rec("NativeDropoutBackward0", {&input});
  const Tensor x = input.contiguous();
  const Tensor out = ember::detail::empty_on(x.sizes(), x.dtype(), x.device());
  const Tensor mask = draw_into(out, x, p);
  if (!rec) return out;
  rec.save(mask);
  return rec.finish(out, [scale = 1.0 / (1.0 - p)](autograd::FunctionNode& node, const autograd::tensor_list& grads) {
    return autograd::tensor_list{apply_mask(grads[0], node.saved(0), scale)};
  });
}

Tensor multiply(Tensor& input, const Tensor& factor, bool inplace) {
  return inplace ? input.mul_(factor) : input * factor;
}

// ATen's _dropout_impl for the channel-wise (feature) and alpha forms.
Tensor noise_dropout(Tensor input, double p, bool training, bool inplace, bool feature, bool alpha) {
  check_probability(p);
  if (p == 0 || !training || input.numel() == 0) return input;
  if (p == 1) return multiply(input, zeros({}, TensorOptions(input.dtype()).device(input.device())), inplace);
  std::vector<int64_t> noise_sizes = input.sizes().vec();
  if (feature) {
    if (input.dim() < 2) throw Error("Feature dropout requires at least 2 dimensions in the input");
    for (size_t d = 2; d < noise_sizes.size(); ++d) noise_sizes[d] = 1;
  }
  Tensor noise = empty(noise_sizes, TensorOptions(input.dtype()).device(input.device()));
  noise.bernoulli_(1 - p);
  Tensor shift;
  if (alpha) {
    constexpr double kAlpha = 1.7580993408473766;
    const double a = 1.0 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
    shift = noise.add(-1).mul_(kAlpha * a).add_(kAlpha * a * p);
    noise.mul_(a);
  } else {
    noise.div_(1 - p);
  }
  Tensor result = multiply(input, noise, inplace);
  return alpha ? result.add_(shift) : result;
}

// LibTorch's _dropoutNd_helper: an input without `batched_dim` dims gets a batch dim of one first.
Tensor feature_dropout_nd(Tensor input, double p, bool training, bool inplace, int64_t batched_dim) {
  check_probability(p);
  const bool batched = input.dim() == batched_dim;
  Tensor view = batched ? input : input.unsqueeze(0);
  Tensor result = noise_dropout(view, p, training, inplace, /*feature=*/true, /*alpha=*/false);
  if (inplace) return input;
  return batched ? result : result.squeeze(0);
}

}  // namespace

namespace detail {

Tensor dropout(Tensor input, double p, bool training, bool inplace) {
  check_probability(p);
  if (p == 0 || !training || input.numel() == 0) return input;
  if (p == 1) return multiply(input, zeros({}, TensorOptions(input.dtype()).device(input.device())), inplace);
  if (!input.is_floating_point()) {
    // What ATen's composition says when its float noise is divided into an integer tensor.
    throw Error("result type Float can't be cast to the desired output type " + scalar_type_name(input.dtype()));
  }
  if (!inplace) return fused_dropout(input, p);
  if (autograd::inplace_needs_record(input, {})) {
    return autograd::record_inplace(input, [p](const Tensor& x) { return fused_dropout(x, p); });
  }
  ember::detail::check_no_internal_overlap(input);
  if (input.is_contiguous()) {
    draw_into(input, input, p);
  } else {
    const Tensor x = input.contiguous();
    draw_into(x, x, p);
    input.copy_(x);
  }
  ember::detail::bump_version(input);
  return input;
}

}  // namespace detail

Tensor dropout(Tensor input, const DropoutFuncOptions& options) {
  return detail::dropout(std::move(input), options.p(), options.training(), options.inplace());
}

Tensor dropout1d(Tensor input, const Dropout1dFuncOptions& options) {
  if (input.dim() != 2 && input.dim() != 3) {
    throw Error("dropout1d: Expected 2D or 3D input, but received a " + std::to_string(input.dim()) +
                "D input. Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
                "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).");
  }
  return feature_dropout_nd(std::move(input), options.p(), options.training(), options.inplace(), 3);
}

Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options) {
  return feature_dropout_nd(std::move(input), options.p(), options.training(), options.inplace(), 4);
}

Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options) {
  return feature_dropout_nd(std::move(input), options.p(), options.training(), options.inplace(), 5);
}

Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& options) {
  return noise_dropout(std::move(input), options.p(), options.training(), options.inplace(), false, true);
}

Tensor feature_alpha_dropout(Tensor input, const FeatureAlphaDropoutFuncOptions& options) {
  return noise_dropout(std::move(input), options.p(), options.training(), options.inplace(), true, true);
}

}  // namespace ember::nn::functional
