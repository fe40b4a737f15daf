// Tensor::index and index_put_ with LibTorch's TensorIndex semantics.
//
// Basic indices (integers, slices, None, Ellipsis) become a view, as at::indexing::applySlicing does;
// integer tensors and masks that remain are advanced indices. Their element offsets within the view,
// sum(index_d * stride_d), are computed on the device, and one gather (or scatter) reads (or writes)
// through a view of the storage whose first dim walks those offsets with stride 1. So any strides work
// and no input is copied.
//
// Bounds: indices outside a dim raise PyTorch's IndexError before anything is launched. The min and
// max of every index tensor of a call are reduced on the device and read back together: one host
// synchronisation per call (masks read back their count of nonzeros too).
//
// Autograd: IndexBackward0 and IndexPutBackward0. The gradient of a gather is a scatter-add, so repeated
// indices accumulate. The forward saves its checked indices (masks as positions, negative ones wrapped),
// and backward formulas run under detail::TrustedIndices, so backward never reads indices back.
#include <algorithm>

#include "autograd/record.h"
#include "tensor/indexing_support.h"

namespace ember {

TensorIndex::TensorIndex(const char* ellipsis) : value_(indexing::Ellipsis) {
  if (std::string_view(ellipsis) != "...") {
    throw Error("Expected \"...\" to represent an ellipsis index, but got \"" + std::string(ellipsis) + "\"");
  }
}

namespace {

using detail::along_dim;
using detail::bounds_message;
using detail::index_ranges;
using detail::IndexRange;
using detail::out_of_bounds;
using detail::wrap_negative;

// ---- advanced indexing ----

struct IndexEntry {
  Tensor tensor;          // undefined: this dim is not indexed
  bool trusted = false;   // made by the library (masks, bools): known to be in range
};

struct Advanced {
  std::vector<int64_t> dims;  // indexed dims of the source, ascending
  std::vector<Tensor> indices;
  std::vector<bool> trusted;
  std::vector<int64_t> shape;  // the indices broadcast together
  bool adjacent = true;        // indexed dims are consecutive: the result keeps them in place
};

// at::index's preparation: dtype checks, masks expanded into one int64 index per mask dim, broadcast.
Advanced prepare_advanced(const Tensor& src, const std::vector<IndexEntry>& list) {
  std::vector<IndexEntry> expanded;
  for (const IndexEntry& entry : list) {
    const Tensor& t = entry.tensor;
    if (!t.defined()) {
      expanded.push_back(entry);
      continue;
    }
    detail::check_same_device({&src, &t});
    if (t.dtype() == DType::Bool || t.dtype() == DType::UInt8) {
      const int64_t at = static_cast<int64_t>(expanded.size());
      for (int64_t j = 0; j < t.dim(); ++j) {
        if (at + j >= src.dim() || t.size(j) != src.size(at + j)) {
          throw IndexError("The shape of the mask " + to_string(t.sizes()) + " at index " + std::to_string(j) +
                           " does not match the shape of the indexed tensor " + to_string(src.sizes()) +
                           " at index " + std::to_string(at + j));
        }
      }
      const Tensor positions = detail::nonzero_of(t);
      for (int64_t j = 0; j < t.dim(); ++j) expanded.push_back({positions.select(1, j), true});
    } else if (t.dtype() == DType::Int64) {
      expanded.push_back(entry);
    } else {
      throw IndexError("tensors used as indices must be long, byte or bool tensors");
    }
  }
  Advanced adv;
  std::vector<std::string> shapes;
  for (size_t d = 0; d < expanded.size(); ++d) {
    if (!expanded[d].tensor.defined()) continue;
    adv.dims.push_back(static_cast<int64_t>(d));
    adv.indices.push_back(expanded[d].tensor);
    adv.trusted.push_back(expanded[d].trusted);
    shapes.push_back(to_string(expanded[d].tensor.sizes()));
  }
  try {
    for (const Tensor& index : adv.indices) adv.shape = broadcast_shapes(adv.shape, index.sizes());
  } catch (const Error&) {
    std::string all;
    for (size_t i = 0; i < shapes.size(); ++i) all += (i ? ", " : "") + shapes[i];
    throw IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes " + all);
  }
  for (size_t k = 1; k < adv.dims.size(); ++k) {
    if (adv.dims[k] != adv.dims[k - 1] + 1) adv.adjacent = false;
  }
  return adv;
}

// Where the indexed block lands: the result is src's leading unindexed dims, the broadcast index shape,
// then the rest (adjacent indices), or the index shape first, then every unindexed dim.
struct AdvancedLayout {
  std::vector<int64_t> result;  // the result's sizes
  std::vector<int64_t> merged;  // the same with the index shape as one dim
  std::vector<int64_t> rest;    // unindexed dims of src, in order
  int64_t front = 0;            // where the index block starts in the result
  int64_t count = 0;            // elements of the index shape
};

AdvancedLayout advanced_layout(const Tensor& src, const Advanced& adv) {
  AdvancedLayout layout;
  layout.front = adv.adjacent ? adv.dims.front() : 0;
  layout.count = detail::product(adv.shape);
  for (int64_t d = 0; d < src.dim(); ++d) {
    if (std::find(adv.dims.begin(), adv.dims.end(), d) == adv.dims.end()) layout.rest.push_back(d);
  }
  for (size_t j = 0; j <= layout.rest.size(); ++j) {
    if (static_cast<int64_t>(j) == layout.front) {
      layout.result.insert(layout.result.end(), adv.shape.begin(), adv.shape.end());
      layout.merged.push_back(layout.count);
    }
    if (j < layout.rest.size()) {
      layout.result.push_back(src.size(layout.rest[j]));
      layout.merged.push_back(src.size(layout.rest[j]));
    }
  }
  return layout;
}

// Checks every index against its dim (one read-back for all of them) and makes negative ones count
// from the end. Every index is trusted afterwards: offsets and backward formulas need no check.
void check_and_wrap(const Tensor& src, Advanced& adv) {
  // PyTorch checks each index as its kernel reaches it: none when the unindexed dims leave nothing to
  // read or write. An indexed dim of size 0 is refused all the same.
  int64_t unindexed = 1;
  for (int64_t d = 0; d < src.dim(); ++d) {
    if (std::find(adv.dims.begin(), adv.dims.end(), d) == adv.dims.end()) unindexed *= src.size(d);
  }
  if (unindexed == 0) {
    for (size_t k = 0; k < adv.indices.size(); ++k) {
      if (src.size(adv.dims[k]) == 0 && adv.indices[k].numel() > 0) {
        throw IndexError("index is out of bounds for dimension with size 0");
      }
    }
    return;  // the result is empty: nothing uses the indices
  }
  std::vector<Tensor> checked;  // indices the library made are in range by construction
  for (size_t k = 0; k < adv.indices.size(); ++k) {
    checked.push_back(adv.trusted[k] ? Tensor() : adv.indices[k]);
  }
  const auto ranges = index_ranges(checked);
  for (size_t k = 0; k < adv.indices.size(); ++k) {
    const int64_t size = src.size(adv.dims[k]);
    if (auto bad = out_of_bounds(adv.indices[k], ranges[k], size, true)) {
      if (size == 0) throw IndexError("index is out of bounds for dimension with size 0");
      throw IndexError(bounds_message(*bad, static_cast<int64_t>(k), size));
    }
    adv.indices[k] = wrap_negative(adv.indices[k], ranges[k], size);
    adv.trusted[k] = true;
  }
}

// Element offsets of the indexed positions from src's first element, with the index shape. The
// indices must have been through check_and_wrap.
Tensor element_offsets(const Tensor& src, const Advanced& adv) {
  Tensor offsets;
  for (size_t k = 0; k < adv.indices.size(); ++k) {
    const Tensor& index = adv.indices[k];
    const int64_t stride = src.stride(adv.dims[k]);
    if (!offsets.defined()) {
      offsets = stride == 1 ? index : index.mul(stride);
    } else {
      offsets = offsets.add(index, stride);
    }
  }
  return offsets;
}

// src seen by the kernels: dim 0 walks element offsets with stride 1, then the unindexed dims.
TensorRef offset_view(const Tensor& src, const Advanced& adv, const AdvancedLayout& layout) {
  TensorRef ref = src.ref();
  int64_t span = 1;
  for (int64_t d : adv.dims) span += (src.size(d) - 1) * src.stride(d);
  ref.ndim = static_cast<int>(1 + layout.rest.size());
  ref.sizes[0] = span;
  ref.strides[0] = 1;
  for (size_t j = 0; j < layout.rest.size(); ++j) {
    ref.sizes[1 + j] = src.size(layout.rest[j]);
    ref.strides[1 + j] = src.stride(layout.rest[j]);
  }
  return ref;
}

// A tensor with the result's layout, seen as [index count, unindexed dims...] for the kernels.
Tensor kernel_order(const Tensor& result_shaped, const AdvancedLayout& layout) {
  return result_shaped.reshape(layout.merged).movedim(layout.front, 0);
}

IntArrayRef strip_leading_ones(IntArrayRef sizes) {
  size_t first = 0;
  while (first < sizes.size() && sizes[first] == 1) ++first;
  return IntArrayRef(sizes.data() + first, sizes.size() - first);
}

// PyTorch's checks of an index_put_ value against the indexing result's shape (after its leading 1s).
void check_put_value(const Tensor& dst, const Tensor& value, const AdvancedLayout& layout) {
  detail::check_same_device({&dst, &value});
  const IntArrayRef stripped = strip_leading_ones(value.sizes());
  bool fits = stripped.size() <= layout.result.size();
  for (size_t i = 0; fits && i < stripped.size(); ++i) {
    const int64_t want = layout.result[layout.result.size() - stripped.size() + i];
    fits = stripped[i] == want || stripped[i] == 1;
  }
  if (!fits) {
    throw Error("shape mismatch: value tensor of shape " + to_string(value.sizes()) +
                " cannot be broadcast to indexing result of shape " + to_string(layout.result));
  }
}

// Writes (or adds) `value`, or `scalar`, at dst's advanced indices: `adv` went through check_and_wrap
// and the value through check_put_value.
void advanced_put(const Tensor& dst, const Advanced& adv, const Tensor* value, std::optional<Scalar> scalar,
                  bool accumulate) {
  const AdvancedLayout layout = advanced_layout(dst, adv);
  if (detail::product(layout.result) == 0) return;
  const Tensor source = value ? value->view(strip_leading_ones(value->sizes()).vec()).expand(layout.result) : Tensor();
  std::vector<int64_t> kernel_sizes{layout.count};
  for (int64_t d : layout.rest) kernel_sizes.push_back(dst.size(d));
  const Tensor index = along_dim(element_offsets(dst, adv), 0, kernel_sizes.size());
  const Tensor ordered = source.defined() ? kernel_order(source, layout) : Tensor();  // may be a copy
  const Operand src = ordered.defined() ? Operand(ordered.ref()) : Operand(*scalar);
  detail::index_kernels(dst).scatter(detail::stream_of(dst), {.mode = accumulate ? ScatterMode::Add : ScatterMode::Assign,
                                     .out = offset_view(dst, adv, layout), .dim = 0,
                                     .index = index.ref(kernel_sizes), .src = src});
  detail::bump_version(dst);
}

// ---- basic indexing (at::indexing::applySlicing) ----

// One view apply_slicing took; replaying the steps on a tensor of the same sizes (a gradient) takes
// the same views.
struct BasicStep {
  enum Kind { Select, Slice, Unsqueeze } kind;
  int64_t dim = 0;
  int64_t index = 0;  // Select
  std::optional<int64_t> start, stop;  // Slice
  int64_t step = 1;
};

Tensor replay(Tensor t, const std::vector<BasicStep>& steps) {
  for (const BasicStep& s : steps) {
    switch (s.kind) {
      case BasicStep::Select: t = t.select(s.dim, s.index); break;
      case BasicStep::Slice: t = t.slice(s.dim, s.start, s.stop, s.step); break;
      case BasicStep::Unsqueeze: t = t.unsqueeze(s.dim); break;
    }
  }
  return t;
}

struct Sliced {
  Tensor view;
  std::vector<BasicStep> steps;  // how view was taken from the indexed tensor
  std::vector<IndexEntry> list;  // by dim of the view
  bool advanced = false;
  // Takes a basic view and remembers it.
  void take(BasicStep step) {
    view = replay(view, {step});
    steps.push_back(step);
  }
};

void record(Sliced& s, int64_t& dim, IndexEntry entry) {
  s.list.resize(dim + 1);
  s.list[dim] = std::move(entry);
  s.advanced = true;
  ++dim;
}

void select_checked(Sliced& s, int64_t dim, int64_t index, int64_t real_dim) {
  const Tensor& t = s.view;
  if (t.dim() == 0) {
    throw IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                     "C++ to convert a 0-dim tensor to a number");
  }
  const int64_t size = t.size(dim);
  if (index < -size || index >= size) throw IndexError(bounds_message(index, real_dim, size));
  s.take({BasicStep::Select, dim, index});
}

// An int64 index of the one position 0 (true) or of none (false), as boolToIndexingTensor makes.
IndexEntry bool_index(bool value, const std::shared_ptr<Device>& device) {
  Tensor t = detail::empty_on({value ? 1 : 0}, DType::Int64, device);
  if (value) t.fill_(0);
  return {t, true};
}

Sliced apply_slicing(const Tensor& self, const std::vector<TensorIndex>& indices) {
  using V = TensorIndex::Value;
  int64_t specified = 0;
  for (const TensorIndex& index : indices) {
    const V& v = index.value();
    if (std::holds_alternative<int64_t>(v) || std::holds_alternative<indexing::Slice>(v)) ++specified;
    if (const Tensor* t = std::get_if<Tensor>(&v)) {
      specified += (t->dtype() == DType::Bool || t->dtype() == DType::UInt8) ? t->dim() : 1;
    }
  }
  Sliced s;
  s.view = self;
  // One integer alone selects directly, as at::indexing::get_item does.
  if (indices.size() == 1 && std::holds_alternative<int64_t>(indices[0].value())) {
    select_checked(s, 0, std::get<int64_t>(indices[0].value()), 0);
    return s;
  }
  if (specified > self.dim()) {
    throw IndexError("too many indices for tensor of dimension " + std::to_string(self.dim()));
  }
  int64_t dim = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const V& v = indices[i].value();
    const auto real_dim = static_cast<int64_t>(i);
    if (const int64_t* integer = std::get_if<int64_t>(&v)) {
      select_checked(s, dim, *integer, real_dim);
    } else if (const indexing::Slice* slice = std::get_if<indexing::Slice>(&v)) {
      if (slice->step() == 0) throw Error("slice step cannot be zero");
      if (slice->step() < 0) throw Error("step must be greater than zero");
      s.take({BasicStep::Slice, dim, 0, slice->start(), slice->stop(), slice->step()});
      ++dim;
    } else if (std::holds_alternative<indexing::EllipsisIndex>(v)) {
      dim += self.dim() - specified;
    } else if (std::holds_alternative<indexing::NoneIndex>(v)) {
      s.take({BasicStep::Unsqueeze, dim});
      ++dim;
    } else if (const bool* flag = std::get_if<bool>(&v)) {
      s.take({BasicStep::Unsqueeze, dim});
      record(s, dim, bool_index(*flag, self.device()));
    } else {
      const Tensor& t = std::get<Tensor>(v);
      detail::check_same_device({&self, &t});
      if (t.dim() == 0 && !t.is_floating_point()) {
        // A 0-dim integer tensor selects (reading it back); a 0-dim bool adds a dim of size 1 or 0.
        if (t.dtype() != DType::Bool && t.dtype() != DType::UInt8) {
          select_checked(s, dim, t.item<int64_t>(), real_dim);
        } else {
          s.take({BasicStep::Unsqueeze, dim});
          record(s, dim, bool_index(t.item<int64_t>() != 0, self.device()));
        }
      } else {
        record(s, dim, {t, false});
      }
    }
  }
  return s;
}

// copy_to of at::indexing: the value's leading 1s are dropped, then it broadcasts to the destination.
void copy_to(Tensor dst, const Tensor& value) {
  if (dst.sizes() == value.sizes()) {
    dst.copy_(value);
    return;
  }
  const Tensor stripped = value.view(strip_leading_ones(value.sizes()).vec());
  dst.copy_(stripped.expand(dst.sizes()));
}

// ---- indexing with autograd ----

// Where an index_put_ writes, checked: the basic views, then (when there are advanced indices) the
// advanced indices of the view, wrapped and trusted.
struct ResolvedIndex {
  std::vector<BasicStep> steps;
  Advanced adv;
  bool advanced = false;
};

ResolvedIndex resolve_put_index(const Tensor& self, const std::vector<TensorIndex>& indices, const Tensor* value) {
  autograd::AutoGradMode untracked(false);  // only positions are wanted here, not views with history
  Sliced s = apply_slicing(self, indices);
  ResolvedIndex at{std::move(s.steps), {}, s.advanced};
  if (!s.advanced) return at;
  if (value && value->dtype() != self.dtype()) {
    throw Error("Index put requires the source and destination dtypes match, got " + scalar_type_name(self.dtype()) +
                " for the destination and " + scalar_type_name(value->dtype()) + " for the source.");
  }
  at.adv = prepare_advanced(s.view, s.list);
  if (value) check_put_value(s.view, *value, advanced_layout(s.view, at.adv));
  check_and_wrap(s.view, at.adv);
  return at;
}

// Writes (or adds) `value`, or `scalar`, at `at` of `target` in place, without autograd.
void write_at(const Tensor& target, const ResolvedIndex& at, const Tensor* value, std::optional<Scalar> scalar,
              bool accumulate) {
  Tensor region = replay(target, at.steps);
  if (at.advanced) {
    advanced_put(region, at.adv, value, scalar, accumulate);
  } else if (!value) {
    region.fill_(*scalar);
  } else if (accumulate) {
    region.add_(*value);
  } else {
    copy_to(region, *value);
  }
}

// What a backward closure may keep of an Advanced: all but the index tensors, which the node saves.
Advanced without_indices(Advanced adv) {
  adv.indices.clear();
  return adv;
}

Advanced with_saved_indices(Advanced adv, autograd::FunctionNode& node) {
  for (size_t k = 0; k < adv.dims.size(); ++k) adv.indices.push_back(node.saved(k));
  return adv;
}

Tensor put_resolved(const Tensor& self, const ResolvedIndex& at, const Tensor* value, std::optional<Scalar> scalar,
                    bool accumulate, bool self_is_scratch = false);

// src at its advanced indices `adv` (through check_and_wrap) as a new tensor. Recorded as `name`: the
// gradient is added at the same positions of zeros, so repeated indices accumulate.
Tensor gather_advanced(const Tensor& src, const Advanced& adv, const char* name) {
  autograd::Record rec(name, {&src});
  const AdvancedLayout layout = advanced_layout(src, adv);
  Tensor out = detail::empty_on(layout.result, src.dtype(), src.device());
  if (out.numel() > 0) {
    const Tensor target = kernel_order(out, layout);
    const Tensor index = along_dim(element_offsets(src, adv), 0, target.dim());
    detail::index_kernels(src).gather(detail::stream_of(src), {target.ref(), offset_view(src, adv, layout), 0, index.ref(target.sizes())});
  }
  if (!rec) return out;
  for (const Tensor& index : adv.indices) rec.save(index);
  return rec.finish(out, [kept = without_indices(adv), sizes = src.sizes().vec()](autograd::FunctionNode& node,
                                                                                 const autograd::tensor_list& g) {
    const ResolvedIndex at{{}, with_saved_indices(kept, node), true};
    return autograd::tensor_list{put_resolved(detail::zeros_as(g[0], sizes), at, &g[0], std::nullopt, true, true)};
  });
}

// A copy of self with `value` (or `scalar`) written or added at `at`: index_put_'s out-of-place form.
// The gradient of self is zero where values were written over; the value's gradient is the output
// gradient at `at`, summed over the value's broadcast. A self that nothing else sees (zeros made for a
// gradient) is written in place instead of copied, unless recording (the output must be a new tensor).
Tensor put_resolved(const Tensor& self, const ResolvedIndex& at, const Tensor* value, std::optional<Scalar> scalar,
                    bool accumulate, bool self_is_scratch) {
  autograd::Record rec("IndexPutBackward0", {&self, value});
  Tensor out = self_is_scratch && !rec ? self : self.clone();
  write_at(out, at, value, scalar, accumulate);
  if (!rec) return out;
  if (at.advanced) {
    for (const Tensor& index : at.adv.indices) rec.save(index);
  }
  std::optional<std::vector<int64_t>> value_sizes;
  if (value) value_sizes = value->sizes().vec();
  return rec.finish(out, [steps = at.steps, kept = without_indices(at.adv), advanced = at.advanced, accumulate,
                          value_sizes](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    const ResolvedIndex where{steps, advanced ? with_saved_indices(kept, node) : kept, advanced};
    autograd::tensor_list grads(2);
    if (node.needs_input_grad(0)) {
      grads[0] = accumulate ? g[0] : put_resolved(g[0], where, nullptr, Scalar(0), false);
    }
    if (value_sizes && node.needs_input_grad(1)) {
      Tensor picked = replay(g[0], where.steps);
      if (advanced) picked = gather_advanced(picked, where.adv, "IndexBackward0");
      grads[1] = autograd::sum_to(picked, strip_leading_ones(*value_sizes)).reshape(*value_sizes);
    }
    return grads;
  });
}

}  // namespace

// Basic indices are views that record themselves.
Tensor detail::index_recorded(const Tensor& self, const std::vector<TensorIndex>& indices, const char* name) {
  Sliced s = apply_slicing(self, indices);
  if (!s.advanced) return s.view;
  Advanced adv = prepare_advanced(s.view, s.list);
  check_and_wrap(s.view, adv);
  return gather_advanced(s.view, adv, name);
}

// ---- Tensor::index and index_put_ ----

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(std::vector<TensorIndex>(indices));
}

Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  return detail::index_recorded(*this, indices, "IndexBackward0");
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value, bool accumulate) {
  return index_put_(std::vector<TensorIndex>(indices), value, accumulate);
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, Scalar value) {
  return index_put_(std::vector<TensorIndex>(indices), value);
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Tensor& value, bool accumulate) {
  if (autograd::inplace_needs_record(*this, {&value})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) {
      return put_resolved(old, resolve_put_index(old, indices, &value), &value, std::nullopt, accumulate);
    });
  }
  write_at(*this, resolve_put_index(*this, indices, &value), &value, std::nullopt, accumulate);
  return *this;
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, Scalar scalar) {
  // As LibTorch, which makes the value a tensor of self's dtype first (with its overflow check).
  detail::check_scalar_fits(scalar, dtype());
  const Scalar value = detail::stored_as(scalar, dtype());
  if (autograd::inplace_needs_record(*this, {})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) {
      return put_resolved(old, resolve_put_index(old, indices, nullptr), nullptr, value, false);
    });
  }
  write_at(*this, resolve_put_index(*this, indices, nullptr), nullptr, value, false);
  return *this;
}


}  // namespace ember
