// The differentiable convolutions (see convolution.h): each makes its operands contiguous, allocates its
// result, runs one ConvKernels entry point and records its node with the formula beside it.
#include "nn/functional/detail/convolution.h"

#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "autograd/record.h"
#include "tensor/elementwise_support.h"
#include "tensor/ops_support.h"

namespace ember::nn::functional::detail {

namespace {

std::vector<int64_t> spatial_sizes(const Tensor& t) {
  const IntArrayRef sizes = t.sizes();
  return std::vector<int64_t>(sizes.begin() + 2, sizes.end());
}

std::vector<int64_t> with_spatial(int64_t first, int64_t second, IntArrayRef spatial) {
  std::vector<int64_t> sizes = {first, second};
  sizes.insert(sizes.end(), spatial.begin(), spatial.end());
  return sizes;
}

// The bias gradient: g summed over every dim but the channels.
Tensor bias_grad(const Tensor& grad) {
  std::vector<int64_t> dims = {0};
  for (int64_t d = 2; d < grad.dim(); ++d) dims.push_back(d);
  return grad.sum(dims);
}

std::optional<TensorRef> bias_ref(const Tensor& bias) {
  if (!bias.defined()) return std::nullopt;
  return bias.ref();
}

ConvKernels& kernels(const Tensor& t) { return ember::detail::kernels_for<ConvKernels>(*t.device()); }
Stream& stream(const Tensor& t) { return *ember::detail::stream_for(*t.device()); }

// convolution's weight and bias gradients from one weight-gradient call, which sums the bias gradient as it
// reads grad_output. It records nothing: convolution_backward's node stands for both.
std::pair<Tensor, Tensor> weight_and_bias_grads(const Tensor& grad_output, const Tensor& input,
                                                const ConvGeometry& geometry, IntArrayRef kernel_size) {
  const Tensor g = grad_output.contiguous();
  const Tensor x = input.contiguous();
  Tensor weight = ember::detail::empty_on(with_spatial(g.size(1), x.size(1) / geometry.groups, kernel_size),
                                          x.dtype(), x.device());
  Tensor bias = ember::detail::empty_on({g.size(1)}, x.dtype(), x.device());
  kernels(x).weight_grad(stream(x), {weight.ref(), g.ref(), x.ref(), geometry, bias.ref()});
  return {weight, bias};
}

}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvGeometry& geometry,
                   IntArrayRef out_size, bool relu) {
  autograd::Record rec(kConvolutionNode, {&input, &weight, &bias});
  const Tensor x = input.contiguous();
  const Tensor w = weight.contiguous();
  const Tensor b = bias.defined() ? bias.contiguous() : Tensor();
  Tensor out = ember::detail::empty_on(with_spatial(x.size(0), w.size(0), out_size), x.dtype(), x.device());
  kernels(x).forward(stream(x), {out.ref(), x.ref(), w.ref(), bias_ref(b), geometry, relu});
  if (!rec) return out;
  rec.save(input);
  rec.save(weight);
  out = rec.finish(out, [geometry](autograd::FunctionNode& node, const autograd::tensor_list& grads) {
    return convolution_backward(grads[0], node.saved(0), node.saved(1), geometry, false,
                                {node.needs_input_grad(0), node.needs_input_grad(1), node.needs_input_grad(2)});
  });
  // relu's node reads only its output, which the kernel wrote; the convolution's reads no output.
  return relu ? ember::detail::record_unary_result({.op = UnaryOp::Relu}, out, out.detach()) : out;
}

Tensor convolution_transpose(const Tensor& input, const Tensor& weight, const Tensor& bias,
                             const ConvGeometry& geometry, IntArrayRef out_size) {
  autograd::Record rec(kConvolutionNode, {&input, &weight, &bias});
  const Tensor x = input.contiguous();
  const Tensor w = weight.contiguous();
  const Tensor b = bias.defined() ? bias.contiguous() : Tensor();
  Tensor out = ember::detail::empty_on(with_spatial(x.size(0), w.size(1) * geometry.groups, out_size), x.dtype(),
                                       x.device());
  kernels(x).input_grad(stream(x), {out.ref(), x.ref(), w.ref(), bias_ref(b), geometry});
  if (!rec) return out;
  rec.save(input);
  rec.save(weight);
  return rec.finish(out, [geometry](autograd::FunctionNode& node, const autograd::tensor_list& grads) {
    return convolution_backward(grads[0], node.saved(0), node.saved(1), geometry, true,
                                {node.needs_input_grad(0), node.needs_input_grad(1), node.needs_input_grad(2)});
  });
}

Tensor convolution_weight(const Tensor& grad_output, const Tensor& input, const ConvGeometry& geometry,
                          IntArrayRef kernel_size) {
  autograd::Record rec(kConvolutionNode, {&grad_output, &input});
  const Tensor g = grad_output.contiguous();
  const Tensor x = input.contiguous();
  Tensor out = ember::detail::empty_on(with_spatial(g.size(1), x.size(1) / geometry.groups, kernel_size), x.dtype(),
                                       x.device());
  kernels(x).weight_grad(stream(x), {out.ref(), g.ref(), x.ref(), geometry});
  if (!rec) return out;
  rec.save(grad_output);
  rec.save(input);
  return rec.finish(out, [geometry, out_size = spatial_sizes(grad_output), in_size = spatial_sizes(input)](
                             autograd::FunctionNode& node, const autograd::tensor_list& grads) {
    const Tensor& v = grads[0];
    autograd::tensor_list result(2);
    if (node.needs_input_grad(0)) result[0] = convolution(node.saved(1), v, Tensor(), geometry, out_size);
    if (node.needs_input_grad(1)) result[1] = convolution_transpose(node.saved(0), v, Tensor(), geometry, in_size);
    return result;
  });
}

std::vector<Tensor> convolution_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                         const ConvGeometry& geometry, bool transposed, std::array<bool, 3> mask) {
  autograd::Record rec(kConvolutionBackwardNode, {&grad, &input, &weight});
  std::vector<Tensor> out(3);
  const std::vector<int64_t> in_size = spatial_sizes(input), kernel_size = spatial_sizes(weight);
  // convolution: gi = T(g, w), gw = W(g, x); convolution_transpose: gi = C(g, w), gw = W(x, g).
  if (mask[0]) {
    out[0] = transposed ? convolution(grad, weight, Tensor(), geometry, in_size)
                        : convolution_transpose(grad, weight, Tensor(), geometry, in_size);
  }
  if (mask[1] && mask[2] && !transposed) {
    std::tie(out[1], out[2]) = weight_and_bias_grads(grad, input, geometry, kernel_size);
  } else {
    if (mask[1]) {
      out[1] = transposed ? convolution_weight(input, grad, geometry, kernel_size)
                          : convolution_weight(grad, input, geometry, kernel_size);
    }
    if (mask[2]) out[2] = bias_grad(grad);
  }
  if (!rec) return out;
  rec.save(grad);
  rec.save(input);
  rec.save(weight);
  std::vector<Tensor> produced;
  std::vector<size_t> which;  // the gradient each produced output is
  for (size_t i = 0; i < 3; ++i) {
    if (!out[i].defined()) continue;
    produced.push_back(out[i]);
    which.push_back(i);
  }
  produced = rec.finish(produced, [geometry, transposed, which, grad_size = spatial_sizes(grad), in_size,
                                   kernel_size](autograd::FunctionNode& node, const autograd::tensor_list& grads) {
    // a, b, c: the gradients arriving for gi, gw and gb.
    std::array<Tensor, 3> arriving;
    for (size_t j = 0; j < which.size(); ++j) arriving[which[j]] = grads[j];
    const Tensor& a = arriving[0];
    const Tensor& b = arriving[1];
    const Tensor& c = arriving[2];
    const Tensor g = node.saved(0), x = node.saved(1), w = node.saved(2);
    autograd::tensor_list result(3);
    if (node.needs_input_grad(0)) {
      // d/dg: the adjoints of gi (in g), gw (in g) and gb = sum(g).
      Tensor dg;
      auto add = [&dg](const Tensor& term) { dg = dg.defined() ? dg + term : term; };
      if (a.defined()) {
        add(transposed ? convolution_transpose(a, w, Tensor(), geometry, grad_size)
                       : convolution(a, w, Tensor(), geometry, grad_size));
      }
      if (b.defined()) {
        add(transposed ? convolution_transpose(x, b, Tensor(), geometry, grad_size)
                       : convolution(x, b, Tensor(), geometry, grad_size));
      }
      if (c.defined()) {
        std::vector<int64_t> shape(g.dim(), 1);
        shape[1] = c.size(0);
        add(c.view(shape).expand(g.sizes()));
      }
      result[0] = dg;
    }
    if (node.needs_input_grad(1) && b.defined()) {
      result[1] = transposed ? convolution(g, b, Tensor(), geometry, in_size)
                             : convolution_transpose(g, b, Tensor(), geometry, in_size);
    }
    if (node.needs_input_grad(2) && a.defined()) {
      result[2] = transposed ? convolution_weight(a, g, geometry, kernel_size)
                             : convolution_weight(g, a, geometry, kernel_size);
    }
    return result;
  });
  for (size_t j = 0; j < which.size(); ++j) out[which[j]] = produced[j];
  return out;
}

}  // namespace ember::nn::functional::detail
