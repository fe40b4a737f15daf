// The dim-wise index ops: gather, index_select, take; scatter, scatter_add, index_add, index_copy,
// index_fill and put, in place and out of place. Indices are checked against their dim before anything
// is launched (one read-back of their min and max); the kernels take negative indices from the end.
//
// Autograd: PyTorch's nodes and formulas. Gradients of gathers are scatter-adds (and the other way
// round), so repeated indices accumulate. Backward formulas run under detail::TrustedIndices, so backward
// never reads indices back.
#include <algorithm>

#include "autograd/record.h"
#include "tensor/indexing_support.h"

namespace ember {

namespace {

using detail::along_dim;
using detail::at_least_1d;
using detail::bounds_message;
using detail::index_range;
using detail::index_ranges;
using detail::join_sizes;
using detail::breaks_bounds;
using detail::out_of_bounds;
using detail::stored_as;
using detail::wrap_dim;
using detail::wrap_negative;

void check_index_dtype(const Tensor& index, bool allow_int32, const std::string& message) {
  if (index.dtype() == DType::Int64 || (allow_int32 && index.dtype() == DType::Int32)) return;
  throw Error(message);
}

// scatter and scatter_add checks. As PyTorch, an empty index is checked for nothing (its dtype and
// shape included); src's dtype always is.
void check_scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  if (index.numel() > 0) check_index_dtype(index, false, "scatter(): Expected dtype int64 for index");
  if (src && src->dtype() != self.dtype()) throw Error("scatter(): Expected self.dtype to be equal to src.dtype");
  detail::check_same_device({&self, &index, src ? src : &self});
  if (index.numel() == 0) return;
  if (index.dim() != self.dim() && !(index.dim() <= 1 && self.dim() <= 1)) {
    throw Error("Index tensor must have the same number of dimensions as self tensor");
  }
  if (src && index.dim() != src->dim() && !(index.dim() <= 1 && src->dim() <= 1)) {
    throw Error("Index tensor must have the same number of dimensions as src tensor");
  }
  for (int64_t d = 0; d < index.dim(); ++d) {
    const bool self_ok = d == dim || self.dim() == 0 || index.size(d) <= self.size(d);
    const bool src_ok = !src || src->dim() == 0 || index.size(d) <= src->size(d);
    if (!self_ok || !src_ok) {
      throw Error("Expected index " + to_string(index.sizes()) + " to be smaller than self " +
                  to_string(self.sizes()) + " apart from dimension " + std::to_string(dim) +
                  (src ? " and to be smaller size than src " + to_string(src->sizes()) : std::string()));
    }
  }
}

// t narrowed to `sizes` (its leading elements in every dim).
Tensor narrowed_to(const Tensor& t, IntArrayRef sizes) {
  Tensor v = t;
  for (size_t d = 0; d < sizes.size(); ++d) v = v.narrow(static_cast<int64_t>(d), 0, sizes[d]);
  return v;
}

Tensor& scatter_impl(Tensor& self, ScatterMode mode, int64_t dim, const Tensor& index, const Tensor* src,
                     std::optional<Scalar> value) {
  dim = wrap_dim(dim, self.dim());
  check_scatter(self, dim, index, src);
  detail::check_no_internal_overlap(self);
  const Tensor out = at_least_1d(self);
  const int64_t size = out.size(dim);
  if (auto bad = out_of_bounds(index, index_range(index), size, false)) {
    throw Error(bounds_message(*bad, dim, size));
  }
  if (index.numel() > 0) {
    if (value) detail::check_scalar_fits(*value, self.dtype());  // only where something is written, as PyTorch
    const Tensor idx = at_least_1d(index);
    const Operand source = src ? Operand(narrowed_to(at_least_1d(*src), idx.sizes()).ref())
                               : Operand(stored_as(*value, self.dtype()));
    detail::index_kernels(self).scatter(detail::stream_of(self), {mode, out.ref(), static_cast<int>(dim), idx.ref(), source});
  }
  detail::bump_version(self);
  return self;
}

}  // namespace

void detail::check_scatter_args(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  check_scatter(self, dim, index, src);
}

Tensor& detail::scatter_checked(Tensor& self, ScatterMode mode, int64_t dim, const Tensor& index, const Tensor* src,
                                std::optional<Scalar> value) {
  return scatter_impl(self, mode, dim, index, src, value);
}

namespace {

// index_add_/index_copy_/index_fill_: a 1-D index along `dim` becomes a scatter with the index
// broadcast over `shape` (self's sizes with dim replaced by the index count).
void scatter_along(Tensor& self, ScatterMode mode, int64_t dim, const Tensor& index, const Operand& src,
                   IntArrayRef shape, Scalar alpha = 1) {
  if (detail::product(shape) > 0) {
    const Tensor out = at_least_1d(self);
    const Tensor idx = index.to(DType::Int64);
    detail::index_kernels(self).scatter(detail::stream_of(self), {mode, out.ref(), static_cast<int>(dim),
                                         along_dim(idx, dim, shape.size()).ref(shape), src, alpha});
  }
  detail::bump_version(self);
}

std::vector<int64_t> with_dim_size(const Tensor& self, int64_t dim, int64_t size) {
  std::vector<int64_t> shape = at_least_1d(self).sizes().vec();
  shape[dim] = size;
  return shape;
}


}  // namespace

// ---- out-of-place forms of the in-place index ops, with their gradients ----
//
// In-place ops that must be recorded run these on a copy (autograd::record_inplace). Gradient formulas
// run under detail::TrustedIndices: the forward checked the indices, and the engine must not wait on
// the device.

namespace {

// A gradient computed for an input of `sizes` that may come out 0-dim where the input has one element
// in a dim (or the other way round), or in the index's shape (put_).
Tensor shaped(const Tensor& grad, IntArrayRef sizes) {
  return grad.sizes() == sizes ? grad : grad.reshape(sizes);
}

}  // namespace

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, Scalar value) {
  autograd::Record rec("IndexFillBackward0", {&self});
  Tensor out = self.clone();
  out.index_fill_(dim, index, value);
  if (!rec) return out;
  rec.save(index);
  return rec.finish(out, [dim](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    detail::TrustedIndices trusted;
    return autograd::tensor_list{index_fill(g[0], dim, node.saved(0), 0)};
  });
}

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha) {
  autograd::Record rec("IndexAddBackward0", {&self, &source});
  Tensor out = self.clone();
  out.index_add_(dim, index, source, alpha);
  if (!rec) return out;
  rec.save(index);
  return rec.finish(out, [dim = wrap_dim(dim, self.dim()), alpha, source_sizes = source.sizes().vec()](
                             autograd::FunctionNode& node, const autograd::tensor_list& g) {
    detail::TrustedIndices trusted;
    Tensor grad_source;
    if (node.needs_input_grad(1)) {
      grad_source = g[0].index_select(dim, node.saved(0));
      if (alpha.to_double() != 1.0) grad_source = grad_source.mul(alpha);
      if (source_sizes.empty()) grad_source = grad_source.reshape({});
    }
    return autograd::tensor_list{g[0], grad_source};
  });
}

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  autograd::Record rec("IndexCopyBackward0", {&self, &source});
  Tensor out = self.clone();
  out.index_copy_(dim, index, source);
  if (!rec) return out;
  rec.save(index);
  return rec.finish(out, [dim = wrap_dim(dim, self.dim()), source_sizes = source.sizes().vec()](
                             autograd::FunctionNode& node, const autograd::tensor_list& g) {
    detail::TrustedIndices trusted;
    const Tensor index = node.saved(0);
    Tensor grad_self, grad_source;
    if (node.needs_input_grad(0)) grad_self = index_fill(g[0], dim, index, 0);
    if (node.needs_input_grad(1)) grad_source = shaped(g[0].index_select(dim, index), source_sizes);
    return autograd::tensor_list{grad_self, grad_source};
  });
}

Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  autograd::Record rec("PutBackward0", {&self, &source});
  Tensor out = self.clone();
  out.put_(index, source, accumulate);
  if (!rec) return out;
  rec.save(index);
  return rec.finish(out, [accumulate, source_sizes = source.sizes().vec()](autograd::FunctionNode& node,
                                                                           const autograd::tensor_list& g) {
    detail::TrustedIndices trusted;
    const Tensor index = node.saved(0);
    Tensor grad_self, grad_source;
    if (node.needs_input_grad(0)) {
      grad_self = accumulate ? g[0] : put(g[0], index, detail::zeros_as(g[0], source_sizes), false);
    }
    if (node.needs_input_grad(1)) grad_source = shaped(g[0].take(index), source_sizes);
    return autograd::tensor_list{grad_self, grad_source};
  });
}

Tensor Tensor::index_fill(int64_t dim, const Tensor& index, Scalar value) const {
  return ember::index_fill(*this, dim, index, value);
}
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha) const {
  return ember::index_add(*this, dim, index, source, alpha);
}
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  return ember::index_copy(*this, dim, index, source);
}
Tensor Tensor::put(const Tensor& index, const Tensor& source, bool accumulate) const {
  return ember::put(*this, index, source, accumulate);
}


// ---- gather family ----

Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  dim = wrap_dim(dim, this->dim());
  check_index_dtype(index, true, "index_select(): Expected dtype int32 or int64 for index");
  if (index.dim() > 1) throw IndexError("index_select(): Index is supposed to be a vector");
  detail::check_same_device({this, &index});
  autograd::Record rec("IndexSelectBackward0", {this});
  const Tensor in = at_least_1d(*this);
  if (breaks_bounds(index_range(index), in.size(dim), false)) throw IndexError("index out of range in self");
  std::vector<int64_t> sizes = this->sizes().vec();
  if (this->dim() > 0) sizes[dim] = index.numel();
  Tensor out = detail::empty_on(sizes, dtype(), device());
  if (out.numel() > 0) {
    const Tensor target = at_least_1d(out);
    detail::index_kernels(*this).gather(detail::stream_of(*this), {target.ref(), in.ref(), static_cast<int>(dim),
                                          along_dim(index.to(DType::Int64), dim, target.dim()).ref(target.sizes())});
  }
  if (!rec) return out;
  rec.save(index);
  return rec.finish(out, [dim, in_sizes = this->sizes().vec()](autograd::FunctionNode& node,
                                                               const autograd::tensor_list& g) {
    // A 0-dim input gives a 0-dim output: its one element.
    if (in_sizes.empty()) return autograd::tensor_list{g[0]};
    detail::TrustedIndices trusted;
    // In place on fresh zeros: recorded (as a copy) only under create_graph.
    return autograd::tensor_list{detail::zeros_as(g[0], in_sizes).index_add_(dim, node.saved(0), g[0])};
  });
}

Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  dim = wrap_dim(dim, this->dim());
  // As PyTorch, an empty index is checked for nothing: its dtype, rank and sizes are free.
  const bool checked = index.numel() > 0;
  if (checked) check_index_dtype(index, false, "gather(): Expected dtype int64 for index");
  detail::check_same_device({this, &index});
  if (checked && index.dim() != this->dim() && !(index.dim() <= 1 && this->dim() <= 1)) {
    throw Error("Index tensor must have the same number of dimensions as input tensor");
  }
  for (int64_t d = 0; checked && d < index.dim() && this->dim() > 0; ++d) {
    if (d != dim && index.size(d) > size(d)) {
      throw Error("Size does not match at dimension " + std::to_string(d) + " expected index " +
                  to_string(index.sizes()) + " to be smaller than self " + to_string(sizes()) +
                  " apart from dimension " + std::to_string(dim));
    }
  }
  autograd::Record rec("GatherBackward0", {this});
  const Tensor in = at_least_1d(*this);
  if (auto bad = out_of_bounds(index, index_range(index), in.size(dim), false)) {
    throw Error(bounds_message(*bad, dim, in.size(dim)));
  }
  Tensor out = detail::empty_on(index.sizes(), dtype(), device());
  if (out.numel() > 0) {
    const Tensor target = at_least_1d(out);
    std::vector<int64_t> in_sizes = target.sizes().vec();
    in_sizes[dim] = in.size(dim);
    detail::index_kernels(*this).gather(detail::stream_of(*this), {target.ref(), narrowed_to(in, in_sizes).ref(), static_cast<int>(dim),
                                          at_least_1d(index).ref()});
  }
  if (!rec) return out;
  rec.save(index);
  return rec.finish(out, [dim, in_sizes = this->sizes().vec()](autograd::FunctionNode& node,
                                                               const autograd::tensor_list& g) {
    detail::TrustedIndices trusted;
    return autograd::tensor_list{detail::zeros_as(g[0], in_sizes).scatter_add_(dim, node.saved(0), g[0])};
  });
}

Tensor Tensor::take(const Tensor& index) const {
  if (index.dtype() != DType::Int64) {
    throw Error("take(): Expected a long tensor for index, but got " + scalar_type_name(index.dtype()));
  }
  detail::check_same_device({this, &index});
  autograd::Record rec("TakeBackward0", {this});
  if (auto bad = out_of_bounds(index, index_range(index), numel(), true)) {
    throw IndexError("out of range: tried to access index " + std::to_string(*bad) + " on a tensor of " +
                     std::to_string(numel()) + " elements.");
  }
  Tensor out = detail::empty_on(index.sizes(), dtype(), device());
  if (out.numel() > 0) {
    // The gather kernel counts negative indices from the end, as take does.
    detail::index_kernels(*this).gather(detail::stream_of(*this), {out.reshape({-1}).ref(), reshape({-1}).ref(), 0, index.reshape({-1}).ref()});
  }
  if (!rec) return out;
  rec.save(index);
  return rec.finish(out, [in_sizes = sizes().vec()](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    detail::TrustedIndices trusted;
    return autograd::tensor_list{detail::zeros_as(g[0], in_sizes).put_(node.saved(0), g[0], true)};
  });
}


// ---- scatter family ----

Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  autograd::Record rec("ScatterBackward0", {this, &src});
  Tensor out = clone().scatter_(dim, index, src);
  if (!rec) return out;
  rec.save(index);
  return rec.finish(out, [dim](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    detail::TrustedIndices trusted;
    const Tensor index = node.saved(0);
    return autograd::tensor_list{node.needs_input_grad(0) ? g[0].scatter(dim, index, 0) : Tensor(),
                                 node.needs_input_grad(1) ? g[0].gather(dim, index) : Tensor()};
  });
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, Scalar value) const {
  autograd::Record rec("ScatterBackward1", {this});
  Tensor out = clone().scatter_(dim, index, value);
  if (!rec) return out;
  rec.save(index);
  return rec.finish(out, [dim](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    detail::TrustedIndices trusted;
    return autograd::tensor_list{g[0].scatter(dim, node.saved(0), 0)};
  });
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) {
  if (autograd::inplace_needs_record(*this, {&src})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) { return old.scatter(dim, index, src); });
  }
  return scatter_impl(*this, ScatterMode::Assign, dim, index, &src, std::nullopt);
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, Scalar value) {
  if (autograd::inplace_needs_record(*this, {})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) { return old.scatter(dim, index, value); });
  }
  return scatter_impl(*this, ScatterMode::Assign, dim, index, nullptr, value);
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  autograd::Record rec("ScatterAddBackward0", {this, &src});
  Tensor out = clone().scatter_add_(dim, index, src);
  if (!rec) return out;
  rec.save(index);
  return rec.finish(out, [dim](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    detail::TrustedIndices trusted;
    return autograd::tensor_list{g[0], node.needs_input_grad(1) ? g[0].gather(dim, node.saved(0)) : Tensor()};
  });
}
Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) {
  if (autograd::inplace_needs_record(*this, {&src})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) { return old.scatter_add(dim, index, src); });
  }
  return scatter_impl(*this, ScatterMode::Add, dim, index, &src, std::nullopt);
}

Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha) {
  if (autograd::inplace_needs_record(*this, {&source})) {
    return autograd::record_inplace(
        *this, [&](const Tensor& old) { return ember::index_add(old, dim, index, source, alpha); });
  }
  dim = wrap_dim(dim, this->dim());
  check_index_dtype(index, true,
                    "index_add_(): Expected dtype int32/int64 for index but got: " + scalar_type_name(index.dtype()));
  if (index.dim() > 1) {
    throw IndexError("index_add_(): Index is supposed to be a vector, but got dim: " + std::to_string(index.dim()) +
                     " with type: " + scalar_type_name(index.dtype()) + " and size: " + to_string(index.sizes()));
  }
  if (source.dtype() != dtype()) {
    throw Error("index_add_(): self (" + scalar_type_name(dtype()) + ") and source (" + scalar_type_name(source.dtype()) +
                ") must have the same scalar type");
  }
  detail::check_same_device({this, &index, &source});
  // PyTorch converts alpha to self's dtype (with its overflow check) in its add kernel, which for a self
  // of two dims or more it runs only when the index has elements.
  if (this->dim() <= 1 || index.numel() > 0) detail::check_scalar_fits(alpha, dtype());
  const int64_t source_size = source.dim() == 0 ? 1 : source.size(std::min(dim, source.dim() - 1));
  if (index.numel() != source_size) {
    throw Error("index_add_(): Number of indices (" + std::to_string(index.numel()) +
                ") should be equal to source.size(dim): (" + std::to_string(source_size) + "), for dim: " +
                std::to_string(dim));
  }
  detail::check_no_internal_overlap(*this);
  if (breaks_bounds(index_range(index), at_least_1d(*this).size(dim), false)) {
    throw IndexError("index out of range in self");
  }
  const std::vector<int64_t> shape = with_dim_size(*this, dim, index.numel());
  const Tensor src = source.dim() == 0 ? source.reshape({1}) : source.expand(shape);
  scatter_along(*this, ScatterMode::Add, dim, index, src.ref(shape), shape, stored_as(alpha, dtype()));
  return *this;
}

Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) {
  if (autograd::inplace_needs_record(*this, {&source})) {
    return autograd::record_inplace(*this,
                                    [&](const Tensor& old) { return ember::index_copy(old, dim, index, source); });
  }
  dim = wrap_dim(dim, this->dim());
  if (index.dim() > 1) {
    throw IndexError("index_copy_(): Index should have dimension 1 or 0 (got " + std::to_string(index.dim()) + ")");
  }
  if (this->dim() > 0 && source.dim() > 0 && source.dim() != this->dim()) {
    throw IndexError("index_copy_(): When source and destination are not scalars, their dimensionality must "
                     "match. Source dimensionality (" + std::to_string(source.dim()) +
                     "), destination dimensionality (" + std::to_string(this->dim()) + ")");
  }
  const int64_t source_size = source.dim() == 0 ? 1 : source.size(std::min(dim, source.dim() - 1));
  if (index.numel() != source_size) {
    throw IndexError("index_copy_(): Number of indices (" + std::to_string(index.numel()) +
                     ") should be equal to source.size(dim) (" + std::to_string(source_size) + ")");
  }
  if (index.dtype() != DType::Int64) {
    throw Error("index_copy_(): Expected a long tensor for index, but got " + scalar_type_name(index.dtype()));
  }
  if (source.dtype() != dtype()) {
    throw Error("index_copy_(): self and source expected to have the same dtype, but got (self) " +
                scalar_type_name(dtype()) + " and (source) " + scalar_type_name(source.dtype()));
  }
  for (int64_t d = 0; d < source.dim() && this->dim() > 0; ++d) {
    if (d != dim && source.size(d) != size(d)) {
      std::vector<int64_t> self_slice = sizes().vec(), source_slice = source.sizes().vec();
      self_slice.erase(self_slice.begin() + dim);
      source_slice.erase(source_slice.begin() + dim);
      throw Error("index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                  "shape: " + join_sizes(self_slice) + " at dimension " + std::to_string(dim) +
                  " and source slice shape: " + join_sizes(source_slice) + " at dimension " +
                  std::to_string(dim) + ".");
    }
  }
  detail::check_same_device({this, &index, &source});
  detail::check_no_internal_overlap(*this);
  const int64_t size = at_least_1d(*this).size(dim);
  const std::vector<int64_t> shape = with_dim_size(*this, dim, index.numel());
  // As index_fill_: no index is checked when the other dims leave nothing to copy.
  if (detail::product(shape) > 0) {
    if (auto bad = out_of_bounds(index, index_range(index), size, false)) {
      throw IndexError("index_copy_(): " + bounds_message(*bad, dim, size));
    }
  }
  scatter_along(*this, ScatterMode::Assign, dim, index, at_least_1d(source).ref(shape), shape);
  return *this;
}

Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, Scalar value) {
  if (autograd::inplace_needs_record(*this, {})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) { return ember::index_fill(old, dim, index, value); });
  }
  dim = wrap_dim(dim, this->dim());
  if (index.dtype() != DType::Int64) throw IndexError("index_fill_(): Expected dtype int64 for index.");
  if (index.dim() > 1) throw Error("Index has to be a vector/scalar");
  detail::check_same_device({this, &index});
  detail::check_no_internal_overlap(*this);
  const int64_t size = at_least_1d(*this).size(dim);
  const auto range = index_ranges({index})[0];
  const std::vector<int64_t> shape = with_dim_size(*this, dim, index.numel());
  // PyTorch checks each index as it fills along it: none when the other dims leave nothing to fill (the
  // value is checked all the same).
  const bool fills = detail::product(shape) > 0;
  if (fills) {
    if (auto bad = out_of_bounds(index, range, size, true)) throw IndexError(bounds_message(*bad, dim, size));
  }
  detail::check_scalar_fits(value, dtype());
  // Unchecked indices stay as they are: wrapping them by a size of 0 would divide by zero.
  scatter_along(*this, ScatterMode::Assign, dim, fills ? wrap_negative(index, range, size) : index,
                Operand(stored_as(value, dtype())), shape);
  return *this;
}

Tensor& Tensor::put_(const Tensor& index, const Tensor& source, bool accumulate) {
  if (autograd::inplace_needs_record(*this, {&source})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) { return ember::put(old, index, source, accumulate); });
  }
  if (index.dtype() != DType::Int64) {
    throw Error("put_(): Expected a long tensor for index, but got " + scalar_type_name(index.dtype()));
  }
  if (source.dtype() != dtype()) {
    throw Error("put_(): self and source expected to have the same dtype, but got self.dtype = " +
                scalar_type_name(dtype()) + " and source.dtype = " + scalar_type_name(source.dtype()));
  }
  if (source.numel() != index.numel()) {
    throw IndexError("put_(): Expected source and index to have the same number of elements, but got "
                     "source.numel() = " + std::to_string(source.numel()) + ", index.numel() = " +
                     std::to_string(index.numel()));
  }
  detail::check_same_device({this, &index, &source});
  detail::check_no_internal_overlap(*this);
  const auto range = index_ranges({index})[0];
  if (auto bad = out_of_bounds(index, range, numel(), true)) {
    throw IndexError("out of range: tried to access index " + std::to_string(*bad) + " on a tensor of " +
                     std::to_string(numel()) + " elements.");
  }
  if (index.numel() > 0) {
    // Flat indices address the row-major order: a non-contiguous self is written through a copy.
    Tensor flat = is_contiguous() ? reshape({-1}) : contiguous().reshape({-1});
    const Tensor idx = wrap_negative(index, range, numel()).reshape({-1});
    detail::index_kernels(*this).scatter(detail::stream_of(*this), {accumulate ? ScatterMode::Add : ScatterMode::Assign, flat.ref(), 0,
                                           idx.ref(), source.reshape({-1}).ref()});
    if (!is_contiguous()) copy_(flat.view(sizes()));
  }
  detail::bump_version(*this);
  return *this;
}


}  // namespace ember
