// Repetition, written with existing ops: repeat and tile (whole copies of the tensor along each dim) and
// repeat_interleave (each element repeated where it stands).
//
// repeat writes its result in one copy: dim i of the output, of size r * p for an input dim of size p
// repeated r times, is seen as [r, p], and a stride-0 view of the input fills it. RepeatBackward0 sums
// the copies back through the same split. repeat_interleave is index_select of the element each output
// position came from (IndexSelectBackward0, as PyTorch's): with a number the positions are an expanded
// arange, with a tensor of counts they are built on the device from the counts' cumulative sum.
#include <algorithm>
#include <array>

#include "autograd/record.h"
#include "runtime/kernels/tensor_ref.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

// How the output of repeat is seen for one strided copy: per dim, [r, p] split into a copies dim
// (r, stride 0 in the source) and a data dim (p); a dim repeated once needs no copies dim and a dim of
// size 1 no data dim.
struct RepeatSplit {
  std::vector<int64_t> sizes;        // the output's sizes, split
  std::vector<int64_t> source;       // the input's sizes laid out the same way: 1 at copies dims
  std::vector<int64_t> copies_dims;  // positions of the copies dims in `sizes`
};

RepeatSplit split_of(IntArrayRef padded, IntArrayRef repeats) {
  RepeatSplit split;
  for (size_t i = 0; i < padded.size(); ++i) {
    if (repeats[i] != 1) {
      split.copies_dims.push_back(static_cast<int64_t>(split.sizes.size()));
      split.sizes.push_back(repeats[i]);
      split.source.push_back(1);
    }
    if (padded[i] != 1 || repeats[i] == 1) {
      split.sizes.push_back(padded[i]);
      split.source.push_back(padded[i]);
    }
  }
  return split;
}

std::vector<int64_t> repeated_sizes(IntArrayRef padded, IntArrayRef repeats) {
  std::vector<int64_t> sizes(padded.size());
  for (size_t i = 0; i < padded.size(); ++i) sizes[i] = padded[i] * repeats[i];
  return sizes;
}

// [outer, size of dim, inner] around `dim` of `sizes`.
std::array<int64_t, 3> around(IntArrayRef sizes, size_t dim) {
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < dim; ++i) outer *= sizes[i];
  for (size_t i = dim + 1; i < sizes.size(); ++i) inner *= sizes[i];
  return {outer, sizes[dim], inner};
}

// `padded` (as many dims as `repeats`) repeated into a new contiguous tensor.
Tensor repeated(const Tensor& padded, IntArrayRef repeats) {
  Tensor out = detail::empty_on(repeated_sizes(padded.sizes(), repeats), padded.dtype(), padded.device());
  if (out.numel() == 0) return out;
  const RepeatSplit split = split_of(padded.sizes(), repeats);
  if (split.sizes.size() <= static_cast<size_t>(kMaxDims)) {
    out.view(split.sizes).copy_(padded.reshape(split.source).expand(split.sizes));
    return out;
  }
  // Too many dims for one strided copy: one dim at a time, each copy over [outer, r, p, inner].
  Tensor current = padded.contiguous();
  for (size_t i = 0; i < repeats.size(); ++i) {
    if (repeats[i] == 1) continue;
    const auto [outer, p, inner] = around(current.sizes(), i);
    std::vector<int64_t> sizes = current.sizes().vec();
    sizes[i] *= repeats[i];
    Tensor next = detail::empty_on(sizes, padded.dtype(), padded.device());
    const std::vector<int64_t> split = {outer, repeats[i], p, inner};
    next.view(split).copy_(current.view({outer, 1, p, inner}).expand(split));
    current = next;
  }
  return current;
}

// RepeatBackward0: each input element's gradient is the sum over its copies.
Tensor sum_copies(const Tensor& grad, IntArrayRef padded, IntArrayRef repeats, IntArrayRef input_sizes) {
  const RepeatSplit split = split_of(padded, repeats);
  if (split.copies_dims.empty()) return grad.reshape(input_sizes);
  if (split.sizes.size() <= static_cast<size_t>(kMaxDims)) {
    return grad.reshape(split.sizes).sum(split.copies_dims).reshape(input_sizes);
  }
  Tensor g = grad;
  std::vector<int64_t> sizes = repeated_sizes(padded, repeats);
  for (size_t i = 0; i < repeats.size(); ++i) {
    if (repeats[i] == 1) continue;
    sizes[i] = padded[i];
    const auto [outer, p, inner] = around(sizes, i);
    g = g.reshape({outer, repeats[i], p, inner}).sum({1});
  }
  return g.reshape(input_sizes);
}

// dim wrapped for repeat_interleave, whose 0-dim input has no dim to take (PyTorch's size(dim) error).
int64_t interleave_dim(const Tensor& input, int64_t dim) {
  if (input.dim() == 0) {
    throw IndexError("Dimension specified as " + std::to_string(dim) + " but tensor has no dimensions");
  }
  return detail::wrap_dim(dim, input.dim());
}

}  // namespace

Tensor Tensor::repeat(IntArrayRef repeats) const {
  if (repeats.size() < static_cast<size_t>(dim())) {
    throw Error("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  }
  std::vector<int64_t> padded(repeats.size() - dim(), 1);
  padded.insert(padded.end(), sizes().begin(), sizes().end());
  autograd::Record rec("RepeatBackward0", {this});
  Tensor out = repeated(reshape(padded), repeats);
  if (!rec) return out;
  return rec.finish(out, [padded, repeats = repeats.vec(), in = sizes().vec()](autograd::FunctionNode&,
                                                                               const autograd::tensor_list& g) {
    return autograd::tensor_list{sum_copies(g[0], padded, repeats, in)};
  });
}

Tensor Tensor::tile(IntArrayRef dims) const {
  if (dims.size() >= static_cast<size_t>(dim())) return repeat(dims);
  std::vector<int64_t> padded(dim() - dims.size(), 1);  // missing leading repeats are 1, as numpy.tile
  padded.insert(padded.end(), dims.begin(), dims.end());
  return repeat(padded);
}

Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  const Tensor input = dim ? *this : flatten();
  const int64_t d = interleave_dim(input, dim.value_or(0));
  // PyTorch checks nothing when there is nothing to repeat.
  if (input.size(d) != 0) {
    if (output_size && *output_size != repeats * input.size(d)) {
      throw Error("allocated size does not match required size");
    }
    if (repeats < 0) throw Error("repeats can not be negative");
  }
  repeats = std::max<int64_t>(repeats, 0);
  // An index_select of each position `repeats` times, as PyTorch's, so the node is IndexSelectBackward0.
  const int64_t n = input.size(d);
  const Tensor positions = arange(n, TensorOptions().dtype(DType::Int64).device(device()))
                               .unsqueeze(1)
                               .expand({n, repeats})
                               .reshape({n * repeats});
  detail::TrustedIndices trusted;  // positions are in [0, n) by construction
  return input.index_select(d, positions);
}

Tensor Tensor::repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  const Tensor input = dim ? *this : flatten();
  if (repeats.dim() > 1) throw Error("repeats must be 0-dim or 1-dim tensor");
  const int64_t d = interleave_dim(input, dim.value_or(0));
  Tensor counts = repeats;
  if (repeats.numel() == 1) {
    counts = repeats.reshape({1}).expand({input.size(d)});
  } else if (repeats.size(0) != input.size(d)) {
    throw Error("repeats must have the same size as input along dim");
  }
  const Tensor positions = ember::repeat_interleave(counts, output_size);
  detail::TrustedIndices trusted;  // positions are in [0, input.size(d)) by construction
  return input.index_select(d, positions);
}

Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  if (repeats.dtype() != DType::Int32 && repeats.dtype() != DType::Int64) {
    throw Error("\"repeat_interleave_cpu\" not implemented for '" + scalar_type_name(repeats.dtype()) + "'");
  }
  if (repeats.dim() != 1) throw Error("repeat_interleave only accept 1D vector as repeat");
  const int64_t n = repeats.size(0);
  if (n == 0) return detail::empty_on({0}, repeats.dtype(), repeats.device());
  const Tensor ends = repeats.cumsum(0, DType::Int64);  // element i fills [ends[i] - repeats[i], ends[i])
  int64_t total = 0;
  if (output_size) {
    // Trusted as PyTorch's CUDA kernel trusts it: checking it against the counts would wait for the
    // device, which output_size exists to avoid.
    total = *output_size;
    if (total < 0) {
      throw Error("Trying to create tensor with negative dimension " + std::to_string(total) + ": [" +
                  std::to_string(total) + "]");
    }
  } else {
    // The output's length is host metadata: one read-back of it and of the smallest count (unavoidable,
    // as PyTorch's item() here).
    const std::vector<int64_t> host =
        cat({ends.narrow(0, n - 1, 1), repeats.min().reshape({1}).to(DType::Int64)}).to_vector<int64_t>();
    if (host[1] < 0) throw Error("repeats can not be negative");
    total = host[0];
  }
  // Position j belongs to the element whose run it is in: the number of runs after the first that start
  // at or before j. Run i + 1 starts at ends[i]; a start past the output (trailing zero counts, or an
  // output_size smaller than the counts' sum) is counted in the slot after the last and dropped.
  const TensorOptions options = TensorOptions().dtype(repeats.dtype()).device(repeats.device());
  Tensor run_starts = zeros({total + 1}, options);
  if (n > 1) {
    Tensor starts = ends.narrow(0, 0, n - 1);
    if (output_size) starts = starts.clamp(0, total);  // wrong counts must not write out of range
    detail::TrustedIndices trusted;
    run_starts.scatter_add_(0, starts, ones({1}, options).expand({n - 1}));
  }
  return run_starts.narrow(0, 0, total).cumsum(0, repeats.dtype());
}

Tensor tile(const Tensor& self, IntArrayRef dims) { return self.tile(dims); }
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  return self.repeat_interleave(repeats, dim, output_size);
}
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  return self.repeat_interleave(repeats, dim, output_size);
}

}  // namespace ember
