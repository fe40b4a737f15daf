// F::pad: aten's _pad_enum, constant_pad_nd, reflection_pad*d, replication_pad*d and _pad_circular, in
// their checks and messages. Built from existing ops under one recorded node each: constant padding is a
// fill and a copy into the middle; reflect and replicate gather each padded dim with index_select
// (indices made on the host), and their backward adds the gradient back with index_add.
#include "nn/functional/padding.h"

#include <algorithm>
#include <string>
#include <vector>

#include "autograd/record.h"
#include "nn/functional/detail/host_positions.h"
#include "tensor/functions.h"

namespace ember::nn::functional {

namespace {

// The dim of `x` that pad entries (2·i, 2·i + 1) pad: the last dim first.
int64_t padded_dim(const Tensor& x, size_t i) { return x.dim() - 1 - static_cast<int64_t>(i); }

// aten::constant_pad_nd, recorded as ConstantPadNdBackward0; its gradient crops by the same sizes.
Tensor constant_pad_nd(const Tensor& input, const std::vector<int64_t>& pad, double value) {
  if (pad.size() % 2 != 0) {
    throw Error("Length of pad must be even but instead it equals " + std::to_string(pad.size()));
  }
  const int64_t l_inp = input.dim();
  const auto l_pad = static_cast<int64_t>(pad.size() / 2);
  if (l_inp < l_pad) {
    throw Error("Length of pad should be no more than twice the number of dimensions of the input. Pad length is " +
                std::to_string(pad.size()) + "while the input has " + std::to_string(l_inp) + "dimensions.");
  }
  autograd::Record rec("ConstantPadNdBackward0", {&input});
  Tensor c_input = input;
  bool all_pads_non_positive = true;
  for (int64_t i = l_inp - l_pad; i < l_inp; ++i) {
    const size_t pad_idx = static_cast<size_t>(2 * (l_inp - i - 1));
    if (pad[pad_idx] < 0) c_input = c_input.narrow(i, -pad[pad_idx], c_input.size(i) + pad[pad_idx]);
    else if (pad[pad_idx] != 0) all_pads_non_positive = false;
    if (pad[pad_idx + 1] < 0) c_input = c_input.narrow(i, 0, c_input.size(i) + pad[pad_idx + 1]);
    else if (pad[pad_idx + 1] != 0) all_pads_non_positive = false;
  }
  Tensor output;
  if (all_pads_non_positive) {
    output = c_input.clone();
  } else {
    std::vector<int64_t> new_shape(input.sizes().begin(), input.sizes().end());
    for (int64_t i = 0; i < l_pad; ++i) {
      const size_t pad_idx = pad.size() - static_cast<size_t>((i + 1) * 2);
      const int64_t d = l_inp - l_pad + i;
      const int64_t new_dim = input.size(d) + pad[pad_idx] + pad[pad_idx + 1];
      if (new_dim <= 0) {
        throw Error("The input size " + std::to_string(input.size(d)) + ", plus negative padding " +
                    std::to_string(pad[pad_idx]) + " and " + std::to_string(pad[pad_idx + 1]) +
                    " resulted in a negative output size, which is invalid. Check dimension " + std::to_string(d) +
                    " of your input.");
      }
      new_shape[d] = new_dim;
    }
    output = full(new_shape, value, TensorOptions().dtype(input.dtype()).device(input.device()));
    Tensor c_output = output;
    for (int64_t i = l_inp - l_pad; i < l_inp; ++i) {
      const size_t pad_idx = static_cast<size_t>(2 * (l_inp - i - 1));
      if (pad[pad_idx] > 0) c_output = c_output.narrow(i, pad[pad_idx], c_output.size(i) - pad[pad_idx]);
      if (pad[pad_idx + 1] > 0) c_output = c_output.narrow(i, 0, c_output.size(i) - pad[pad_idx + 1]);
    }
    c_output.copy_(c_input);
  }
  if (!rec) return output;
  return rec.finish(output, [pad](autograd::FunctionNode&, const autograd::tensor_list& grads) {
    std::vector<int64_t> negated(pad.size());
    std::transform(pad.begin(), pad.end(), negated.begin(), [](int64_t p) { return -p; });
    return autograd::tensor_list{constant_pad_nd(grads[0], negated, 0)};
  });
}

enum class Mode { Reflect, Replicate };

// LibTorch's printing of a tensor's type and sizes, "[ CPUFloatType{1,2,0} ]".
std::string type_string(const Tensor& x) {
  std::string text = "[ CPU" + scalar_type_name(x.dtype()) + "Type{";
  for (int64_t d = 0; d < x.dim(); ++d) text += (d ? "," : "") + std::to_string(x.size(d));
  return text + "} ]";
}

// reflection_padNd's and replication_padNd's checks of `dims` padded dims.
void check_gather_pad(const Tensor& x, const std::vector<int64_t>& pad, Mode mode) {
  const size_t dims = pad.size() / 2;
  const bool batched = x.dim() == static_cast<int64_t>(dims) + 2;
  bool empty = false;
  for (int64_t d = batched ? 1 : 0; d < x.dim(); ++d) empty = empty || x.size(d) == 0;
  if (empty) {
    const std::string ranks = std::to_string(dims + 1) + "D or " + std::to_string(dims + 2) + "D";
    if (mode == Mode::Reflect && dims < 3) {
      throw Error(ranks + " (batch mode) tensor expected for input, but got: " + type_string(x));
    }
    throw Error("Expected " + ranks + " (batch mode) tensor with possibly 0 batch size and other non-zero "
                "dimensions for input, but got: " + to_string(x.sizes()));
  }
  const char* names[] = {"W", "H", "D"};
  for (size_t i = 0; i < dims; ++i) {
    const int64_t d = padded_dim(x, i);
    const int64_t left = pad[2 * i], right = pad[2 * i + 1];
    if (mode == Mode::Reflect && (left >= x.size(d) || right >= x.size(d))) {
      throw Error("Argument #" + std::to_string(4 + 2 * i) +
                  ": Padding size should be less than the corresponding input dimension, but got: padding (" +
                  std::to_string(left) + ", " + std::to_string(right) + ") at dimension " + std::to_string(d) +
                  " of input " + (dims == 2 ? std::to_string(x.dim()) : to_string(x.sizes())));
    }
    if (x.size(d) + left + right < 1) {
      throw Error(std::string("input (") + names[i] + ": " + std::to_string(x.size(d)) + ") is too small. " +
                  "Calculated output " + names[i] + ": " + std::to_string(x.size(d) + left + right));
    }
  }
}

// The input position that output position o of a padded dim of `size` reads.
int64_t source_of(int64_t o, int64_t left, int64_t size, Mode mode) {
  const int64_t i = o - left;
  switch (mode) {
    case Mode::Reflect: return i < 0 ? -i : (i >= size ? 2 * (size - 1) - i : i);
    case Mode::Replicate: return std::clamp<int64_t>(i, 0, size - 1);
  }
  return i;
}

struct GatheredDim {
  int64_t dim;
  std::vector<int64_t> sources;  // per output position
};

Tensor gather_pad_backward(const Tensor& grad, const Tensor& input, const std::vector<GatheredDim>& gathered,
                           const char* node_name, const char* backward_name);

// Reflect and replicate: each padded dim gathered from its sources, as one node.
Tensor gather_pad_with(const Tensor& input, const std::vector<GatheredDim>& gathered, const char* node_name,
                       const char* backward_name) {
  autograd::Record rec(node_name, {&input});
  Tensor output = input;
  for (const GatheredDim& g : gathered) {
    output = output.index_select(g.dim, detail::host_positions(g.sources, input));
  }
  if (output.is_same(input)) output = input.clone();
  if (!rec) return output;
  rec.save(input);
  return rec.finish(output, [gathered, node_name, backward_name](autograd::FunctionNode& node,
                                                                 const autograd::tensor_list& grads) {
    return autograd::tensor_list{gather_pad_backward(grads[0], node.saved(0), gathered, node_name, backward_name)};
  });
}

// The gradient of a gathered pad: each gathered position adds its gradient back to its source, the last
// gathered dim first. Like PyTorch's reflection_pad*d_backward it takes the input too (for its sizes),
// so under create_graph its result is connected to the input, with a zero gradient there.
Tensor gather_pad_backward(const Tensor& grad, const Tensor& input, const std::vector<GatheredDim>& gathered,
                           const char* node_name, const char* backward_name) {
  autograd::Record rec(backward_name, {&grad, &input});
  Tensor result = grad;
  for (auto g = gathered.rbegin(); g != gathered.rend(); ++g) {
    std::vector<int64_t> sizes = result.sizes().vec();
    sizes[static_cast<size_t>(g->dim)] = input.size(g->dim);
    result = zeros(sizes, TensorOptions().dtype(result.dtype()).device(result.device()))
                 .index_add(g->dim, detail::host_positions(g->sources, result), result);
  }
  if (!rec) return result;
  return rec.finish(result, [gathered, node_name, backward_name](autograd::FunctionNode&,
                                                                 const autograd::tensor_list& grads) {
    return autograd::tensor_list{gather_pad_with(grads[0], gathered, node_name, backward_name), Tensor()};
  });
}

Tensor gather_pad(const Tensor& input, const std::vector<int64_t>& pad, Mode mode) {
  check_gather_pad(input, pad, mode);
  static const char* const kNames[2][3][2] = {
      {{"ReflectionPad1DBackward0", "ReflectionPad1DBackwardBackward0"},
       {"ReflectionPad2DBackward0", "ReflectionPad2DBackwardBackward0"},
       {"ReflectionPad3DBackward0", "ReflectionPad3DBackwardBackward0"}},
      {{"ReplicationPad1DBackward0", "ReplicationPad1DBackwardBackward0"},
       {"ReplicationPad2DBackward0", "ReplicationPad2DBackwardBackward0"},
       {"ReplicationPad3DBackward0", "ReplicationPad3DBackwardBackward0"}}};
  const size_t dims = pad.size() / 2;
  std::vector<GatheredDim> gathered;
  for (size_t i = 0; i < dims; ++i) {
    const int64_t d = padded_dim(input, i);
    const int64_t out_size = input.size(d) + pad[2 * i] + pad[2 * i + 1];
    GatheredDim g{d, std::vector<int64_t>(static_cast<size_t>(out_size))};
    for (int64_t o = 0; o < out_size; ++o) g.sources[static_cast<size_t>(o)] = source_of(o, pad[2 * i], input.size(d), mode);
    gathered.push_back(std::move(g));
  }
  const auto& names = kNames[mode == Mode::Reflect ? 0 : 1][dims - 1];
  return gather_pad_with(input, gathered, names[0], names[1]);
}

// aten::_pad_circular: the input copied into the middle, then each padded dim's ends copied from the
// opposite side, through slices of the output (which autograd records as CopySlices).
Tensor circular_pad(const Tensor& self, const std::vector<int64_t>& padding) {
  const IntArrayRef in_shape = self.sizes();
  const int64_t ndim = static_cast<int64_t>(in_shape.size()) - 2;
  if (static_cast<int64_t>(padding.size()) + 4 != static_cast<int64_t>(in_shape.size()) * 2) {
    throw Error("Invalid padding size, expected " + std::to_string(ndim * 2) + " but got " +
                std::to_string(padding.size()));
  }
  std::vector<int64_t> out_shape(in_shape.begin(), in_shape.end());
  for (int64_t i = 0; i < ndim; ++i) {
    const int64_t pad_l = padding[static_cast<size_t>(2 * (ndim - i - 1))];
    const int64_t pad_r = padding[static_cast<size_t>(2 * (ndim - i - 1) + 1)];
    const int64_t size = in_shape[static_cast<size_t>(2 + i)];
    out_shape[static_cast<size_t>(2 + i)] = size + pad_l + pad_r;
    if (pad_l > size || pad_r > size) throw Error("Padding value causes wrapping around more than once.");
    if (out_shape[static_cast<size_t>(2 + i)] < 0) {
      throw Error("Negative padding value is resulting in an empty dimension");
    }
  }
  Tensor out = self.new_empty(out_shape);
  Tensor out_slice = out;
  Tensor in_slice = self;
  for (int64_t i = 0; i < ndim; ++i) {
    const int64_t dim = ndim - i + 1;
    const int64_t pad_l = padding[static_cast<size_t>(2 * i)];
    const int64_t pad_r = padding[static_cast<size_t>(2 * i + 1)];
    out_slice = out_slice.slice(dim, std::max<int64_t>(pad_l, 0), out_shape[static_cast<size_t>(dim)] - std::max<int64_t>(pad_r, 0));
    in_slice = in_slice.slice(dim, std::max<int64_t>(-pad_l, 0), in_shape[static_cast<size_t>(dim)] - std::max<int64_t>(-pad_r, 0));
  }
  out_slice.copy_(in_slice);
  for (int64_t i = 0; i < ndim; ++i) {
    const int64_t dim = ndim - i + 1;
    const int64_t size = out_shape[static_cast<size_t>(dim)];
    const int64_t pad_l = padding[static_cast<size_t>(2 * i)];
    const int64_t pad_r = padding[static_cast<size_t>(2 * i + 1)];
    if (pad_l > 0) {
      out.slice(dim, 0, pad_l).copy_(out.slice(dim, size - pad_l - std::max<int64_t>(pad_r, 0), size - std::max<int64_t>(pad_r, 0)));
    }
    if (pad_r > 0) {
      out.slice(dim, size - pad_r, size).copy_(out.slice(dim, std::max<int64_t>(pad_l, 0), std::max<int64_t>(pad_l, 0) + pad_r));
    }
  }
  return out;
}

}  // namespace

Tensor pad(const Tensor& input, const PadFuncOptions& options) {
  const std::vector<int64_t>& pad = options.pad();
  if (pad.size() % 2 != 0) throw Error("Padding length must be divisible by 2");
  if (static_cast<int64_t>(pad.size()) > input.dim() * 2) throw Error("Padding length too large");
  if (std::holds_alternative<enumtype::kConstant>(options.mode())) {
    return constant_pad_nd(input, pad, options.value());
  }
  if (options.value() != 0) {
    throw Error("Padding mode \"" + std::string(enum_name(options.mode())) + "\" doesn't take in value argument");
  }
  const auto dims = static_cast<int64_t>(pad.size() / 2);
  if (dims >= 1 && dims <= 3 && (input.dim() == dims + 1 || input.dim() == dims + 2)) {
    if (std::holds_alternative<enumtype::kReflect>(options.mode())) return gather_pad(input, pad, Mode::Reflect);
    if (std::holds_alternative<enumtype::kReplicate>(options.mode())) return gather_pad(input, pad, Mode::Replicate);
    return circular_pad(input, pad);
  }
  throw Error("Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
}

}  // namespace ember::nn::functional
