// Views: new sizes, strides and storage offset over the same storage.
//
// Autograd: each view records its node (PyTorch's name) and the gradient goes back through the inverse
// view or reshape. Views that pick part of the input (slice, select, diagonal) write the gradient into
// zeros through the same view; those that may see an element twice (unfold, as_strided) add it up with
// scatter_add over flat positions. Outputs keep view_base, which in-place writes on views rely on.
#include <algorithm>
#include <functional>
#include <numeric>

#include "autograd/record.h"
#include "tensor/ops_support.h"

namespace ember {

using autograd::Record;
using autograd::tensor_list;
using detail::make_view;
using detail::wrap_dim;

namespace {

// Maps a gradient (or any tensor) through a view or its inverse; captures sizes and dims only.
using TensorMap = std::function<Tensor(const Tensor&)>;

// Finishes the record of a view whose input gradient is a function of the output gradient alone.
Tensor finish_view(Record& rec, Tensor out, TensorMap to_input) {
  if (!rec) return out;
  return rec.finish(std::move(out), [to_input = std::move(to_input)](autograd::FunctionNode&, const tensor_list& g) {
    return tensor_list{to_input(g[0])};
  });
}

// The gradient of an input that `view_of` picks part of (without overlap): zeros of the input's sizes
// with `grad` written through the same view. Recorded as `name`, with the view as its own gradient,
// so higher orders work.
Tensor scatter_through_view(const char* name, const Tensor& grad, IntArrayRef input_sizes, const TensorMap& view_of) {
  Record rec(name, {&grad});
  Tensor out = detail::zeros_as(grad, input_sizes);
  view_of(out).copy_(grad);
  return finish_view(rec, out, view_of);
}

Tensor int64_range(int64_t count, const Tensor& like) {
  return arange(count, TensorOptions().dtype(DType::Int64).device(like.device()));
}

// The gradient of an input that `view_of` may see elements of more than once (unfold windows that
// overlap): every output element's gradient is added at its element's flat position.
Tensor accumulate_through_view(const Tensor& grad, IntArrayRef input_sizes, const TensorMap& view_of) {
  const int64_t count = detail::product(input_sizes);
  const Tensor positions = view_of(int64_range(count, grad).view(input_sizes)).reshape({-1});
  detail::TrustedIndices trusted;  // positions are in range by construction
  // In place on fresh zeros: recorded (as a copy) only under create_graph.
  return detail::zeros_as(grad, {count}).scatter_add_(0, positions, grad.reshape({-1})).view(input_sizes);
}

struct Geometry {
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
  bool empty() const { return detail::product(sizes) == 0; }
  // The last storage element it reaches (strides are never negative).
  int64_t last() const {
    int64_t end = offset;
    for (size_t d = 0; d < sizes.size(); ++d) end += (sizes[d] - 1) * strides[d];
    return end;
  }
  // False only when no two elements can share a storage element (checked dim by dim, smallest
  // stride first: each stride must step past everything the smaller dims reach).
  bool may_overlap() const {
    std::vector<size_t> order;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] > 1) order.push_back(d);
    }
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return strides[a] < strides[b]; });
    int64_t reach = 1;
    for (size_t d : order) {
      if (strides[d] < reach) return true;
      reach += (sizes[d] - 1) * strides[d];
    }
    return false;
  }
};

// as_strided's gradient for any input geometry: the output gradient is added up per storage element
// (so output elements that share one sum), then each input element reads its storage element's sum.
// Input elements that share a storage element split it evenly, so their total is the storage element's
// gradient, as in PyTorch.
Tensor as_strided_backward(const Tensor& grad, const Geometry& in, const Geometry& out) {
  if (in.empty() || out.empty()) return detail::zeros_as(grad, in.sizes);
  const int64_t first = std::min(in.offset, out.offset);
  const int64_t span = std::max(in.last(), out.last()) - first + 1;
  // Storage positions (from `first`) of the output's and the input's elements.
  const Tensor cells = int64_range(span, grad);
  const Tensor out_cells = cells.as_strided(out.sizes, out.strides, out.offset - first).reshape({-1});
  const Tensor in_cells = cells.as_strided(in.sizes, in.strides, in.offset - first);
  detail::TrustedIndices trusted;  // positions are in range by construction
  Tensor result = detail::zeros_as(grad, {span}).scatter_add_(0, out_cells, grad.reshape({-1})).take(in_cells);
  if (in.may_overlap()) {
    const Tensor flat_in = in_cells.reshape({-1});
    const Tensor sharing = detail::zeros_as(grad, {span}).scatter_add_(0, flat_in, ones_like(flat_in, grad.dtype()));
    result = result / sharing.take(in_cells);
  }
  return result;
}

}  // namespace

Tensor Tensor::view(IntArrayRef shape) const {
  const std::vector<int64_t> sizes = detail::infer_size(shape, numel());
  auto strides = detail::view_strides(this->sizes(), this->strides(), sizes);
  if (!strides) {
    throw Error("view size is not compatible with input tensor's size and stride (at least one dimension "
                "spans across two contiguous subspaces). Use .reshape(...) instead.");
  }
  Record rec("ViewBackward0", {this});
  return finish_view(rec, make_view(*this, sizes, *strides, storage_offset()),
                     [in = this->sizes().vec()](const Tensor& g) { return g.reshape(in); });
}

Tensor Tensor::reshape(IntArrayRef shape) const {
  const std::vector<int64_t> sizes = detail::infer_size(shape, numel());
  const TensorMap back = [in = this->sizes().vec()](const Tensor& g) { return g.reshape(in); };
  if (auto strides = detail::view_strides(this->sizes(), this->strides(), sizes)) {
    Record rec("ReshapeAliasBackward0", {this});
    return finish_view(rec, make_view(*this, sizes, *strides, storage_offset()), back);
  }
  // A copy, as PyTorch's _unsafe_view of a clone: the result owns its memory and is no view.
  Record rec("UnsafeViewBackward0", {this});
  Tensor out = clone().view(sizes);
  out.impl().view_base = nullptr;
  return finish_view(rec, out, back);
}

Tensor Tensor::permute(IntArrayRef dims) const {
  if (static_cast<int64_t>(dims.size()) != dim()) {
    throw Error("permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                "of the desired ordering of dimensions i.e. input.dim() = " + std::to_string(dim()) +
                " is not equal to len(dims) = " + std::to_string(dims.size()));
  }
  std::vector<int64_t> sizes(dim()), strides(dim());
  std::vector<bool> seen(dim(), false);
  for (int64_t i = 0; i < dim(); ++i) {
    const int64_t d = wrap_dim(dims[i], dim());
    if (seen[d]) throw Error("permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = size(d);
    strides[i] = stride(d);
  }
  std::vector<int64_t> inverse(dim());
  for (int64_t i = 0; i < dim(); ++i) inverse[wrap_dim(dims[i], dim())] = i;
  Record rec("PermuteBackward0", {this});
  return finish_view(rec, make_view(*this, sizes, strides, storage_offset()),
                     [inverse](const Tensor& g) { return g.permute(inverse); });
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  dim0 = wrap_dim(dim0, dim());
  dim1 = wrap_dim(dim1, dim());
  Record rec("TransposeBackward0", {this});
  std::vector<int64_t> order(dim());
  std::iota(order.begin(), order.end(), 0);
  if (dim() > 0) std::swap(order[dim0], order[dim1]);
  return finish_view(rec, dim() == 0 ? alias() : permute(order),
                     [dim0, dim1](const Tensor& g) { return g.transpose(dim0, dim1); });
}

Tensor Tensor::t() const {
  if (dim() > 2) {
    throw Error("t() expects a tensor with <= 2 dimensions, but self is " + std::to_string(dim()) + "D");
  }
  Record rec("TBackward0", {this});
  return finish_view(rec, dim() < 2 ? alias() : transpose(0, 1), [](const Tensor& g) { return g.t(); });
}

Tensor Tensor::mT() const {
  if (dim() < 2) {
    throw Error("tensor.mT is only supported on matrices or batches of matrices. Got " + std::to_string(dim()) +
                "-D tensor.");
  }
  return transpose(-2, -1);
}

Tensor Tensor::T() const {
  std::vector<int64_t> order(dim());
  std::iota(order.rbegin(), order.rend(), 0);
  return permute(order);
}

Tensor Tensor::expand(IntArrayRef target) const {
  const int64_t ndim = static_cast<int64_t>(target.size());
  if (ndim < dim()) {
    throw Error("expand(" + std::string("torch.FloatTensor{") + to_string(sizes()) +
                "}, size=" + to_string(target) +
                "): the number of sizes provided (" + std::to_string(ndim) +
                ") must be greater or equal to the number of dimensions in the tensor (" +
                std::to_string(dim()) + ")");
  }
  std::vector<int64_t> sizes(ndim), strides(ndim);
  for (int64_t i = ndim - 1; i >= 0; --i) {
    const int64_t src = i - (ndim - dim());
    int64_t want = target[i];
    if (src >= 0) {
      if (want == -1) want = size(src);
      if (size(src) == want) {
        sizes[i] = want;
        strides[i] = stride(src);
      } else if (size(src) == 1) {
        sizes[i] = want;
        strides[i] = 0;
      } else {
        throw Error("The expanded size of the tensor (" + std::to_string(want) +
                    ") must match the existing size (" + std::to_string(size(src)) +
                    ") at non-singleton dimension " + std::to_string(i) + ".  Target sizes: " +
                    to_string(target) + ".  Tensor sizes: " + to_string(this->sizes()));
      }
    } else {
      if (want < 0) {
        throw Error("The expanded size of the tensor (" + std::to_string(want) +
                    ") isn't allowed in a leading, non-existing dimension " + std::to_string(i));
      }
      sizes[i] = want;
      strides[i] = 0;
    }
  }
  detail::product(sizes);  // PyTorch's error when the expanded element count overflows
  Record rec("ExpandBackward0", {this});
  return finish_view(rec, make_view(*this, sizes, strides, storage_offset()),
                     [in = this->sizes().vec()](const Tensor& g) { return autograd::sum_to(g, in); });
}

namespace {

// The view of `t` without the dims marked in `drop`, each of size 1; records `name`.
Tensor squeeze_marked(const Tensor& t, const std::vector<bool>& drop, const char* name) {
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (!drop[d]) {
      sizes.push_back(t.size(d));
      strides.push_back(t.stride(d));
    }
  }
  Record rec(name, {&t});
  return finish_view(rec, make_view(t, sizes, strides, t.storage_offset()),
                     [in = t.sizes().vec()](const Tensor& g) { return g.reshape(in); });
}

std::vector<bool> size_one_dims(const Tensor& t, IntArrayRef dims) {
  std::vector<bool> drop(t.dim(), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, t.dim());
    if (t.dim() > 0 && t.size(w) == 1) drop[w] = true;
  }
  return drop;
}

}  // namespace

Tensor Tensor::squeeze() const {
  std::vector<bool> drop(dim());
  for (int64_t d = 0; d < dim(); ++d) drop[d] = size(d) == 1;
  return squeeze_marked(*this, drop, "SqueezeBackward0");
}

Tensor Tensor::squeeze(int64_t d) const {
  return squeeze_marked(*this, size_one_dims(*this, IntArrayRef(d)), "SqueezeBackward1");
}

Tensor Tensor::squeeze(IntArrayRef dims) const {
  return squeeze_marked(*this, size_one_dims(*this, dims), "SqueezeBackward2");
}

Tensor Tensor::unsqueeze(int64_t d) const {
  d = wrap_dim(d, dim(), 1);
  std::vector<int64_t> sizes = this->sizes().vec(), strides = this->strides().vec();
  const int64_t stride = d < dim() ? this->stride(d) * size(d) : 1;
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  Record rec("UnsqueezeBackward0", {this});
  return finish_view(rec, make_view(*this, sizes, strides, storage_offset()),
                     [d](const Tensor& g) { return g.squeeze(d); });
}

Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  if (dim() == 0) throw Error("narrow() cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim());
  const int64_t cur = size(d);
  // LibTorch 1.13 wraps start as a dim index (with its message), the end itself allowed.
  if (start != cur) start = wrap_dim(start, cur);
  if (length < 0 || start > cur - length) {
    throw Error("start (" + std::to_string(start) + ") + length (" + std::to_string(length) +
                ") exceeds dimension size (" + std::to_string(cur) + ").");
  }
  return slice(d, start, start + length, 1);
}

Tensor Tensor::narrow(int64_t d, const Tensor& start, int64_t length) const {
  if (start.dim() != 0 || !is_integral(start.dtype())) throw Error("start must be an 0-dim integral Tensor.");
  // A view's offset is host metadata: reading start back waits for the device (PyTorch's item() too).
  return narrow(d, start.item<int64_t>(), length);
}

Tensor Tensor::narrow_copy(int64_t d, int64_t start, int64_t length) const {
  Record rec("torch::autograd::NotImplemented", {this});
  const Tensor view = narrow(d, start, length);
  Tensor out = empty(view.sizes(), TensorOptions().dtype(dtype()).device(device()));
  out.copy_(view);
  return rec ? rec.finish(out, autograd::not_implemented_backward("narrow_copy")) : out;
}

Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return self.narrow_copy(dim, start, length);
}

Tensor Tensor::slice(int64_t d, std::optional<int64_t> start_opt, std::optional<int64_t> end_opt,
                     int64_t step) const {
  if (dim() == 0) throw IndexError("slice() cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim());
  if (step <= 0) throw Error("slice step must be positive");
  const int64_t cur = size(d);
  int64_t start = start_opt.value_or(0), end = end_opt.value_or(cur);
  if (start < 0) start += cur;
  if (end < 0) end += cur;
  start = std::clamp<int64_t>(start, 0, cur);
  end = std::clamp<int64_t>(end, start, cur);
  std::vector<int64_t> sizes = this->sizes().vec(), strides = this->strides().vec();
  sizes[d] = (end - start + step - 1) / step;
  strides[d] = stride(d) * step;
  Record rec("SliceBackward0", {this});
  return finish_view(rec, make_view(*this, sizes, strides, storage_offset() + start * stride(d)),
                     [in = this->sizes().vec(), d, start, end, step](const Tensor& g) {
                       return scatter_through_view("SliceBackwardBackward0", g, in, [=](const Tensor& t) {
                         return t.slice(d, start, end, step);
                       });
                     });
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  if (dim() == 0) throw IndexError("select() cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim());
  const int64_t cur = size(d);
  if (index < -cur || index >= cur) {
    // LibTorch's select text; Python's t[i] and ember's index() check first with applySelect's.
    throw IndexError("select(): index " + std::to_string(index) + " out of range for tensor of size " +
                     to_string(sizes()) + " at dimension " + std::to_string(d));
  }
  if (index < 0) index += cur;
  std::vector<int64_t> sizes = this->sizes().vec(), strides = this->strides().vec();
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  Record rec("SelectBackward0", {this});
  return finish_view(rec, make_view(*this, sizes, strides, storage_offset() + index * stride(d)),
                     [in = this->sizes().vec(), d, index](const Tensor& g) {
                       return scatter_through_view("SelectBackwardBackward0", g, in,
                                                   [=](const Tensor& t) { return t.select(d, index); });
                     });
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  start_dim = wrap_dim(start_dim, dim());
  end_dim = wrap_dim(end_dim, dim());
  if (start_dim > end_dim) throw Error("flatten() has invalid args: start_dim cannot come after end_dim");
  if (dim() == 0) return reshape({1});  // after the dims are checked, as PyTorch
  if (start_dim == end_dim) return *this;  // PyTorch returns self itself: no view, no node
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < start_dim; ++d) shape.push_back(size(d));
  int64_t merged = 1;
  for (int64_t d = start_dim; d <= end_dim; ++d) merged *= size(d);
  shape.push_back(merged);
  for (int64_t d = end_dim + 1; d < dim(); ++d) shape.push_back(size(d));
  return reshape(shape);
}

Tensor Tensor::unflatten(int64_t d, IntArrayRef sizes) const {
  d = wrap_dim(d, dim());
  if (sizes.empty()) throw Error("unflatten: sizes must be non-empty");
  const std::vector<int64_t> resolved = detail::infer_size(sizes, size(d));
  std::vector<int64_t> shape = this->sizes().vec();
  shape.erase(shape.begin() + d);
  shape.insert(shape.begin() + d, resolved.begin(), resolved.end());
  return view(shape);
}

Tensor Tensor::as_strided(IntArrayRef sizes, IntArrayRef strides, std::optional<int64_t> offset) const {
  if (sizes.size() != strides.size()) {
    throw Error("mismatch in length of strides and shape");
  }
  const int64_t start = offset.value_or(storage_offset());
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0) {
      throw Error("Trying to create tensor with negative dimension " + std::to_string(sizes[i]) + ": " +
                  to_string(sizes));
    }
    if (strides[i] < 0) {
      throw Error("as_strided: Negative strides are not supported at the moment, got strides: " + to_string(strides));
    }
  }
  if (start < 0) throw Error("Tensor: invalid storage offset " + std::to_string(start));
  const uint64_t reach = detail::strided_nbytes(sizes, strides, dtype());  // checked for overflow
  uint64_t needed = 0;
  if (reach > 0 && __builtin_add_overflow(static_cast<uint64_t>(start) * element_size(), reach, &needed)) {
    throw Error("Storage size calculation overflowed with sizes=" + to_string(sizes) + " and strides=" +
                to_string(strides));
  }
  if (needed > storage()->nbytes) {
    throw Error("setStorage: sizes " + to_string(sizes) + ", strides " + to_string(strides) +
                ", storage offset " + std::to_string(start) + ", and itemsize " +
                std::to_string(element_size()) + " requiring a storage size of " + std::to_string(needed) +
                " are out of bounds for storage of size " + std::to_string(storage()->nbytes));
  }
  Record rec("AsStridedBackward0", {this});
  Geometry in{this->sizes().vec(), this->strides().vec(), storage_offset()};
  Geometry out{sizes.vec(), strides.vec(), start};
  return finish_view(rec, make_view(*this, sizes.vec(), strides.vec(), start),
                     [in = std::move(in), out = std::move(out)](const Tensor& g) {
                       return as_strided_backward(g, in, out);
                     });
}

Tensor Tensor::movedim(IntArrayRef source, IntArrayRef destination) const {
  if (source.size() != destination.size()) {
    throw Error("movedim: Invalid source or destination dims: source (" + to_string(source) +
                " dims) should contain the same number of dims as destination (" + to_string(destination) +
                " dims)");
  }
  const int64_t n = dim();
  // As PyTorch: every dim wrapped (a 0-dim tensor takes -1 and 0), then checked for repeats; moving the
  // dims of a 0-dim tensor is a no-op.
  std::vector<int64_t> src, dst;
  for (int64_t d : source) src.push_back(wrap_dim(d, n));
  for (int64_t d : destination) dst.push_back(wrap_dim(d, n));
  const auto repeats = [](std::vector<int64_t> dims) {
    std::sort(dims.begin(), dims.end());
    return std::adjacent_find(dims.begin(), dims.end()) != dims.end();
  };
  if (repeats(src)) throw Error("movedim: repeated dim in `source` (" + to_string(source) + ")");
  if (repeats(dst)) throw Error("movedim: repeated dim in `destination` (" + to_string(destination) + ")");
  if (n == 0) return alias();
  std::vector<int64_t> order(n, -1);
  std::vector<bool> used_src(n, false);
  for (size_t i = 0; i < src.size(); ++i) {
    order[dst[i]] = src[i];
    used_src[src[i]] = true;
  }
  int64_t next = 0;
  for (int64_t t = 0; t < n; ++t) {
    if (order[t] != -1) continue;
    while (used_src[next]) ++next;
    order[t] = next++;
  }
  return permute(order);
}

Tensor Tensor::movedim(int64_t source, int64_t destination) const {
  return movedim(IntArrayRef(source), IntArrayRef(destination));
}

Tensor Tensor::unfold(int64_t d, int64_t size, int64_t step) const {
  d = wrap_dim(d, dim());
  const int64_t cur = dim() == 0 ? 1 : this->size(d);
  if (size > cur) {
    throw Error("maximum size for tensor at dimension " + std::to_string(d) + " is " + std::to_string(cur) +
                " but size is " + std::to_string(size));
  }
  if (step <= 0) throw Error("step is " + std::to_string(step) + " but must be > 0");
  std::vector<int64_t> sizes = this->sizes().vec(), strides = this->strides().vec();
  const int64_t stride = dim() == 0 ? 1 : this->stride(d);
  if (dim() > 0) {
    sizes[d] = (cur - size) / step + 1;
    strides[d] = stride * step;
  }
  sizes.push_back(size);
  strides.push_back(stride);
  Record rec("UnfoldBackward0", {this});
  return finish_view(rec, make_view(*this, sizes, strides, storage_offset()),
                     [in = this->sizes().vec(), d, size, step](const Tensor& g) {
                       return accumulate_through_view(g, in, [=](const Tensor& t) { return t.unfold(d, size, step); });
                     });
}

namespace {

// Records the parts of a split along `dim`: their gradients (zeros for unused parts) concatenate.
std::vector<Tensor> finish_split(Record& rec, std::vector<Tensor> parts, int64_t dim) {
  if (!rec) return parts;
  return rec.finish(std::move(parts), [dim](autograd::FunctionNode&, const tensor_list& g) {
    return tensor_list{cat(g, dim)};
  });
}

}  // namespace

std::vector<Tensor> Tensor::split(int64_t split_size, int64_t d) const {
  if (dim() == 0) throw Error("split expects at least a 1-dimensional tensor");
  d = wrap_dim(d, dim());
  if (split_size < 0) throw Error("split expects split_size be non-negative, but got split_size=" + std::to_string(split_size));
  const int64_t cur = size(d);
  if (split_size == 0 && cur != 0) {
    throw Error("split_size can only be 0 if dimension size is 0, but got dimension size of " + std::to_string(cur));
  }
  Record rec("SplitBackward0", {this});
  std::vector<Tensor> parts;
  if (cur == 0) parts.push_back(alias());
  for (int64_t start = 0; start < cur; start += split_size) {
    parts.push_back(narrow(d, start, std::min(split_size, cur - start)));
  }
  return finish_split(rec, std::move(parts), d);
}

std::vector<Tensor> Tensor::split(IntArrayRef split_sizes, int64_t d) const {
  return split_with_sizes(split_sizes, d);
}

std::vector<Tensor> Tensor::split_with_sizes(IntArrayRef split_sizes, int64_t d) const {
  d = wrap_dim(d, dim());
  int64_t total = 0;
  for (int64_t s : split_sizes) total += s;
  if (total != size(d)) {
    throw Error("split_with_sizes expects split_sizes to sum exactly to " + std::to_string(size(d)) +
                " (input tensor's size at dimension " + std::to_string(d) + "), but got split_sizes=" +
                to_string(split_sizes));
  }
  Record rec("SplitWithSizesBackward0", {this});
  std::vector<Tensor> parts;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    parts.push_back(narrow(d, start, s));
    start += s;
  }
  return finish_split(rec, std::move(parts), d);
}

std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t d) const {
  if (dim() == 0) throw Error("chunk expects at least a 1-dimensional tensor");
  if (chunks <= 0) throw Error("chunk expects `chunks` to be greater than 0, got: " + std::to_string(chunks));
  d = wrap_dim(d, dim());
  const int64_t split_size = (size(d) + chunks - 1) / chunks;
  if (split_size == 0 && size(d) == 0) {
    std::vector<int64_t> sizes(chunks, 0);
    return split_with_sizes(sizes, d);
  }
  return split(split_size, d);
}

std::vector<Tensor> Tensor::unbind(int64_t d) const {
  if (dim() == 0) throw Error("Dimension specified as 0 but tensor has no dimensions");
  d = wrap_dim(d, dim());
  Record rec("UnbindBackward0", {this});
  std::vector<Tensor> parts;
  for (int64_t i = 0; i < size(d); ++i) parts.push_back(select(d, i));
  if (!rec) return parts;
  return rec.finish(std::move(parts), [d](autograd::FunctionNode&, const tensor_list& g) {
    // stack() needs at least one tensor: a dim of size 0 has no parts, and its gradient is empty.
    return tensor_list{g.empty() ? Tensor() : stack(g, d)};
  });
}

Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  dim1 = wrap_dim(dim1, dim());
  dim2 = wrap_dim(dim2, dim());
  if (dim1 == dim2) {
    throw Error("diagonal dimensions cannot be identical " + std::to_string(dim1) + ", " + std::to_string(dim2));
  }
  int64_t start = storage_offset(), length;
  if (offset >= 0) {
    length = std::max<int64_t>(std::min(size(dim1), size(dim2) - offset), 0);
    if (length > 0) start += offset * stride(dim2);
  } else {
    length = std::max<int64_t>(std::min(size(dim1) + offset, size(dim2)), 0);
    if (length > 0) start -= offset * stride(dim1);
  }
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d < dim(); ++d) {
    if (d == dim1 || d == dim2) continue;
    sizes.push_back(size(d));
    strides.push_back(stride(d));
  }
  sizes.push_back(length);
  strides.push_back(stride(dim1) + stride(dim2));
  Record rec("DiagonalBackward0", {this});
  return finish_view(rec, make_view(*this, sizes, strides, start),
                     [in = this->sizes().vec(), offset, dim1, dim2](const Tensor& g) {
                       return scatter_through_view("DiagonalBackwardBackward0", g, in, [=](const Tensor& t) {
                         return t.diagonal(offset, dim1, dim2);
                       });
                     });
}

std::vector<int64_t> broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  const size_t ndim = std::max(a.size(), b.size());
  std::vector<int64_t> shape(ndim);
  for (int64_t i = static_cast<int64_t>(ndim) - 1; i >= 0; --i) {
    const int64_t offset = static_cast<int64_t>(ndim) - 1 - i;
    const int64_t da = static_cast<int64_t>(a.size()) - 1 - offset;
    const int64_t db = static_cast<int64_t>(b.size()) - 1 - offset;
    const int64_t sa = da >= 0 ? a[da] : 1, sb = db >= 0 ? b[db] : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      throw Error("The size of tensor a (" + std::to_string(sa) + ") must match the size of tensor b (" +
                  std::to_string(sb) + ") at non-singleton dimension " + std::to_string(i));
    }
    shape[i] = sa == 1 ? sb : sa;
  }
  return shape;
}

Tensor broadcast_to(const Tensor& x, IntArrayRef sizes) { return x.expand(sizes); }

}  // namespace ember
