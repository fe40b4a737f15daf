// Indexing: Tensor::index and index_put_ (LibTorch's TensorIndex semantics), the gather/scatter family,
// masks, nonzero, take/put_, tril/triu and one_hot.
//
// Basic indices (integers, slices, None, Ellipsis) become a view, as at::indexing::applySlicing does;
// integer tensors and masks that remain are advanced indices. Their element offsets within the view,
// sum(index_d * stride_d), are computed on the device, and one gather (or scatter) reads (or writes)
// through a view of the storage whose first dim walks those offsets with stride 1. So any strides work
// and no input is copied.
//
// Bounds: indices outside a dim raise PyTorch's IndexError before anything is launched. The min and
// max of every index tensor of a call are reduced on the device and read back together: one host
// synchronisation per call (nonzero, masks and one_hot with inferred classes read back too).
//
// Autograd: PyTorch's nodes and formulas. Gradients of gathers are scatter-adds (and the other way
// round), so repeated indices accumulate. The forward saves its checked indices (masks as positions,
// negative ones wrapped), and backward formulas run under detail::TrustedIndices, so backward never
// reads indices back. In-place ops that must be recorded run their out-of-place form on a copy
// (autograd::record_inplace).
#include <algorithm>

#include "autograd/record.h"
#include "tensor/indexing.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {
thread_local int trusted_index_scopes = 0;
}  // namespace

detail::TrustedIndices::TrustedIndices() { ++trusted_index_scopes; }
detail::TrustedIndices::~TrustedIndices() { --trusted_index_scopes; }
bool detail::TrustedIndices::active() { return trusted_index_scopes > 0; }

TensorIndex::TensorIndex(const char* ellipsis) : value_(indexing::Ellipsis) {
  if (std::string_view(ellipsis) != "...") {
    throw Error("Expected \"...\" to represent an ellipsis index, but got \"" + std::string(ellipsis) + "\"");
  }
}

namespace {

using detail::type_name;
using detail::wrap_dim;

Kernels& kernels(const Tensor& t) { return detail::kernels_for(*t.device()); }
Stream& stream(const Tensor& t) { return *detail::stream_for(*t.device()); }

// ---- bounds ----

struct IndexRange {
  int64_t min = 0, max = 0;
};

bool has_elements(const Tensor& t) { return t.defined() && t.numel() > 0; }

// The min and max of each index tensor (nullopt for undefined and empty ones), read back in one
// synchronisation; all nullopt, without reading, under detail::TrustedIndices.
std::vector<std::optional<IndexRange>> index_ranges(const std::vector<Tensor>& indices) {
  std::vector<std::optional<IndexRange>> ranges(indices.size());
  if (detail::TrustedIndices::active()) return ranges;
  const Tensor* first = nullptr;
  int64_t count = 0;
  for (const Tensor& index : indices) {
    if (has_elements(index)) {
      if (!first) first = &index;
      ++count;
    }
  }
  if (count == 0) return ranges;
  Tensor stats = detail::empty_on({2 * count}, DType::Int64, first->device());
  int64_t slot = 0;
  for (const Tensor& index : indices) {
    if (!has_elements(index)) continue;
    detail::check_same_device({first, &index});
    const uint32_t all = index.dim() >= 32 ? ~0u : (1u << index.dim()) - 1;
    for (ReduceOp op : {ReduceOp::Amin, ReduceOp::Amax}) {
      const TensorRef out = stats.narrow(0, slot++, 1).ref();
      kernels(index).reduce(stream(index), op, &out, nullptr, index.ref(), all, index.dtype());
    }
  }
  const std::vector<int64_t> values = stats.to_vector<int64_t>();
  slot = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (!has_elements(indices[i])) continue;
    ranges[i] = IndexRange{values[2 * slot], values[2 * slot + 1]};
    ++slot;
  }
  return ranges;
}

std::optional<IndexRange> index_range(const Tensor& index) { return index_ranges({index})[0]; }

// The first bound an index range breaks, if any. Negative indices count from the end where allowed.
std::optional<int64_t> out_of_bounds(const std::optional<IndexRange>& range, int64_t size, bool negative) {
  if (!range) return std::nullopt;
  const int64_t low = negative ? -size : 0;
  if (range->min < low) return range->min;
  if (range->max >= size) return range->max;
  return std::nullopt;
}

std::string bounds_message(int64_t index, int64_t dim, int64_t size) {
  return "index " + std::to_string(index) + " is out of bounds for dimension " + std::to_string(dim) +
         " with size " + std::to_string(size);
}

// Indices in [-size, size) made non-negative: one remainder launch, only when some index is negative.
Tensor wrap_negative(const Tensor& index, const std::optional<IndexRange>& range, int64_t size) {
  if (!range || range->min >= 0) return index;
  return index.remainder(size);
}

// A 1-D index (or any index, flattened) with every dim of size 1 except `dim`, which holds its n
// elements: its ref(shape) reads the index along one dim of `shape`. It may be a copy: keep it alive
// until the kernel call that reads it has been recorded.
Tensor along_dim(const Tensor& index, int64_t dim, size_t ndim) {
  std::vector<int64_t> sizes(ndim, 1);
  sizes[dim] = index.numel();
  return index.reshape(sizes);
}

std::string join_sizes(IntArrayRef sizes) {
  std::string s;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) s += ' ';
    s += std::to_string(sizes[i]);
  }
  return s;
}

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

Tensor nonzero_of(const Tensor& x);

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
      const Tensor positions = nonzero_of(t);
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
  std::vector<Tensor> checked;  // indices the library made are in range by construction
  for (size_t k = 0; k < adv.indices.size(); ++k) {
    checked.push_back(adv.trusted[k] ? Tensor() : adv.indices[k]);
  }
  const auto ranges = index_ranges(checked);
  for (size_t k = 0; k < adv.indices.size(); ++k) {
    const int64_t size = src.size(adv.dims[k]);
    if (auto bad = out_of_bounds(ranges[k], size, true)) {
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
  kernels(dst).scatter(stream(dst), accumulate ? ScatterMode::Add : ScatterMode::Assign,
                       offset_view(dst, adv, layout), 0, index.ref(kernel_sizes), src);
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
    throw Error("Index put requires the source and destination dtypes match, got " + type_name(self.dtype()) +
                " for the destination and " + type_name(value->dtype()) + " for the source.");
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
    kernels(src).gather(stream(src), target.ref(), offset_view(src, adv, layout), 0, index.ref(target.sizes()));
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

// Tensor::index with the node named `name`. Basic indices are views that record themselves.
Tensor index_recorded(const Tensor& self, const std::vector<TensorIndex>& indices, const char* name) {
  Sliced s = apply_slicing(self, indices);
  if (!s.advanced) return s.view;
  Advanced adv = prepare_advanced(s.view, s.list);
  check_and_wrap(s.view, adv);
  return gather_advanced(s.view, adv, name);
}

// ---- dim-wise gather and scatter ----

void check_index_dtype(const Tensor& index, bool allow_int32, const std::string& message) {
  if (index.dtype() == DType::Int64 || (allow_int32 && index.dtype() == DType::Int32)) return;
  throw Error(message);
}

// scatter and scatter_add checks; returns src narrowed to the index's sizes when it is a tensor.
void check_scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  check_index_dtype(index, false, "scatter(): Expected dtype int64 for index");
  if (src && src->dtype() != self.dtype()) throw Error("scatter(): Expected self.dtype to be equal to src.dtype");
  detail::check_same_device({&self, &index, src ? src : &self});
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

// A tensor with at least one dim (0-dim tensors gather and scatter as one element).
Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }

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
  if (auto bad = out_of_bounds(index_range(index), size, false)) {
    throw Error(bounds_message(*bad, dim, size));
  }
  if (index.numel() > 0) {
    const Tensor idx = at_least_1d(index);
    const Operand source = src ? Operand(narrowed_to(at_least_1d(*src), idx.sizes()).ref()) : Operand(*value);
    kernels(self).scatter(stream(self), mode, out.ref(), static_cast<int>(dim), idx.ref(), source);
  }
  detail::bump_version(self);
  return self;
}

// index_add_/index_copy_/index_fill_: a 1-D index along `dim` becomes a scatter with the index
// broadcast over `shape` (self's sizes with dim replaced by the index count).
void scatter_along(Tensor& self, ScatterMode mode, int64_t dim, const Tensor& index, const Operand& src,
                   IntArrayRef shape, Scalar alpha = 1) {
  if (detail::product(shape) > 0) {
    const Tensor out = at_least_1d(self);
    const Tensor idx = index.to(DType::Int64);
    kernels(self).scatter(stream(self), mode, out.ref(), static_cast<int>(dim),
                          along_dim(idx, dim, shape.size()).ref(shape), src, alpha);
  }
  detail::bump_version(self);
}

std::vector<int64_t> with_dim_size(const Tensor& self, int64_t dim, int64_t size) {
  std::vector<int64_t> shape = at_least_1d(self).sizes().vec();
  shape[dim] = size;
  return shape;
}

// ---- nonzero ----

// Coordinates of the nonzero elements: a cumulative count over (x != 0) gives each its row, and the
// last count (read back) sizes the result.
Tensor nonzero_of(const Tensor& x) {
  const auto& device = x.device();
  if (x.numel() == 0) return detail::empty_on({0, x.dim()}, DType::Int64, device);
  const Tensor flags = x.ne(0).reshape({-1});
  Tensor positions = detail::empty_on({x.numel()}, DType::Int64, device);
  kernels(x).scan(stream(x), ScanOp::CumSum, positions.ref(), nullptr, flags.ref(), 0, DType::Int64);
  const int64_t count = positions.narrow(0, x.numel() - 1, 1).item<int64_t>();
  Tensor out = detail::empty_on({count, x.dim()}, DType::Int64, device);
  if (out.numel() > 0) kernels(x).nonzero(stream(x), out.ref(), x.ref(), positions.ref());
  return out;
}

}  // namespace

// ---- Tensor::index and index_put_ ----

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(std::vector<TensorIndex>(indices));
}

Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  return index_recorded(*this, indices, "IndexBackward0");
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

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, Scalar value) {
  if (autograd::inplace_needs_record(*this, {})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) {
      return put_resolved(old, resolve_put_index(old, indices, nullptr), nullptr, value, false);
    });
  }
  write_at(*this, resolve_put_index(*this, indices, nullptr), nullptr, value, false);
  return *this;
}

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

Tensor index_fill_copy(const Tensor& self, int64_t dim, const Tensor& index, Scalar value) {
  autograd::Record rec("IndexFillBackward0", {&self});
  Tensor out = self.clone();
  out.index_fill_(dim, index, value);
  if (!rec) return out;
  rec.save(index);
  return rec.finish(out, [dim](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    detail::TrustedIndices trusted;
    return autograd::tensor_list{index_fill_copy(g[0], dim, node.saved(0), 0)};
  });
}

Tensor index_add_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha) {
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

Tensor index_copy_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
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
    if (node.needs_input_grad(0)) grad_self = index_fill_copy(g[0], dim, index, 0);
    if (node.needs_input_grad(1)) grad_source = shaped(g[0].index_select(dim, index), source_sizes);
    return autograd::tensor_list{grad_self, grad_source};
  });
}

Tensor put_copy(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
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
      grad_self = accumulate ? g[0] : put_copy(g[0], index, detail::zeros_as(g[0], source_sizes), false);
    }
    if (node.needs_input_grad(1)) grad_source = shaped(g[0].take(index), source_sizes);
    return autograd::tensor_list{grad_self, grad_source};
  });
}

}  // namespace

// ---- gather family ----

Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  dim = wrap_dim(dim, this->dim());
  check_index_dtype(index, true, "index_select(): Expected dtype int32 or int64 for index");
  if (index.dim() > 1) throw IndexError("index_select(): Index is supposed to be a vector");
  detail::check_same_device({this, &index});
  autograd::Record rec("IndexSelectBackward0", {this});
  const Tensor in = at_least_1d(*this);
  if (out_of_bounds(index_range(index), in.size(dim), false)) throw IndexError("index out of range in self");
  std::vector<int64_t> sizes = this->sizes().vec();
  if (this->dim() > 0) sizes[dim] = index.numel();
  Tensor out = detail::empty_on(sizes, dtype(), device());
  if (out.numel() > 0) {
    const Tensor target = at_least_1d(out);
    kernels(*this).gather(stream(*this), target.ref(), in.ref(), static_cast<int>(dim),
                          along_dim(index.to(DType::Int64), dim, target.dim()).ref(target.sizes()));
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
  check_index_dtype(index, false, "gather(): Expected dtype int64 for index");
  detail::check_same_device({this, &index});
  if (index.dim() != this->dim() && !(index.dim() <= 1 && this->dim() <= 1)) {
    throw Error("Index tensor must have the same number of dimensions as input tensor");
  }
  for (int64_t d = 0; d < index.dim() && this->dim() > 0; ++d) {
    if (d != dim && index.size(d) > size(d)) {
      throw Error("Size does not match at dimension " + std::to_string(d) + " expected index " +
                  to_string(index.sizes()) + " to be smaller than self " + to_string(sizes()) +
                  " apart from dimension " + std::to_string(dim));
    }
  }
  autograd::Record rec("GatherBackward0", {this});
  const Tensor in = at_least_1d(*this);
  if (auto bad = out_of_bounds(index_range(index), in.size(dim), false)) {
    throw Error(bounds_message(*bad, dim, in.size(dim)));
  }
  Tensor out = detail::empty_on(index.sizes(), dtype(), device());
  if (out.numel() > 0) {
    const Tensor target = at_least_1d(out);
    std::vector<int64_t> in_sizes = target.sizes().vec();
    in_sizes[dim] = in.size(dim);
    kernels(*this).gather(stream(*this), target.ref(), narrowed_to(in, in_sizes).ref(), static_cast<int>(dim),
                          at_least_1d(index).ref());
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
    throw Error("take(): Expected a long tensor for index, but got " + type_name(index.dtype()));
  }
  detail::check_same_device({this, &index});
  autograd::Record rec("TakeBackward0", {this});
  if (auto bad = out_of_bounds(index_range(index), numel(), true)) {
    throw IndexError("out of range: tried to access index " + std::to_string(*bad) + " on a tensor of " +
                     std::to_string(numel()) + " elements.");
  }
  Tensor out = detail::empty_on(index.sizes(), dtype(), device());
  if (out.numel() > 0) {
    // The gather kernel counts negative indices from the end, as take does.
    kernels(*this).gather(stream(*this), out.reshape({-1}).ref(), reshape({-1}).ref(), 0,
                          index.reshape({-1}).ref());
  }
  if (!rec) return out;
  rec.save(index);
  return rec.finish(out, [in_sizes = sizes().vec()](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    detail::TrustedIndices trusted;
    return autograd::tensor_list{detail::zeros_as(g[0], in_sizes).put_(node.saved(0), g[0], true)};
  });
}

Tensor Tensor::masked_select(const Tensor& mask) const {
  if (mask.dtype() != DType::Bool && mask.dtype() != DType::UInt8) {
    throw Error("masked_select: expected BoolTensor or ByteTensor for mask");
  }
  const std::vector<int64_t> shape = broadcast_shapes(sizes(), mask.sizes());
  return index_recorded(expand(shape), {mask.expand(shape)}, "MaskedSelectBackward0");
}

Tensor Tensor::nonzero() const { return nonzero_of(*this); }
Tensor Tensor::argwhere() const { return nonzero_of(*this); }

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
        *this, [&](const Tensor& old) { return index_add_copy(old, dim, index, source, alpha); });
  }
  dim = wrap_dim(dim, this->dim());
  check_index_dtype(index, true,
                    "index_add_(): Expected dtype int32/int64 for index but got: " + type_name(index.dtype()));
  if (index.dim() > 1) {
    throw IndexError("index_add_(): Index is supposed to be a vector, but got dim: " + std::to_string(index.dim()) +
                     " with type: " + type_name(index.dtype()) + " and size: " + to_string(index.sizes()));
  }
  if (source.dtype() != dtype()) {
    throw Error("index_add_(): self (" + type_name(dtype()) + ") and source (" + type_name(source.dtype()) +
                ") must have the same scalar type");
  }
  detail::check_same_device({this, &index, &source});
  const int64_t source_size = source.dim() == 0 ? 1 : source.size(std::min(dim, source.dim() - 1));
  if (index.numel() != source_size) {
    throw Error("index_add_(): Number of indices (" + std::to_string(index.numel()) +
                ") should be equal to source.size(dim): (" + std::to_string(source_size) + "), for dim: " +
                std::to_string(dim));
  }
  detail::check_no_internal_overlap(*this);
  if (out_of_bounds(index_range(index), at_least_1d(*this).size(dim), false)) {
    throw IndexError("index out of range in self");
  }
  const std::vector<int64_t> shape = with_dim_size(*this, dim, index.numel());
  const Tensor src = source.dim() == 0 ? source.reshape({1}) : source.expand(shape);
  scatter_along(*this, ScatterMode::Add, dim, index, src.ref(shape), shape, alpha);
  return *this;
}

Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) {
  if (autograd::inplace_needs_record(*this, {&source})) {
    return autograd::record_inplace(*this,
                                    [&](const Tensor& old) { return index_copy_copy(old, dim, index, source); });
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
    throw Error("index_copy_(): Expected a long tensor for index, but got " + type_name(index.dtype()));
  }
  if (source.dtype() != dtype()) {
    throw Error("index_copy_(): self and source expected to have the same dtype, but got (self) " +
                type_name(dtype()) + " and (source) " + type_name(source.dtype()));
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
  if (auto bad = out_of_bounds(index_range(index), size, false)) {
    throw IndexError("index_copy_(): " + bounds_message(*bad, dim, size));
  }
  const std::vector<int64_t> shape = with_dim_size(*this, dim, index.numel());
  scatter_along(*this, ScatterMode::Assign, dim, index, at_least_1d(source).ref(shape), shape);
  return *this;
}

Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, Scalar value) {
  if (autograd::inplace_needs_record(*this, {})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) { return index_fill_copy(old, dim, index, value); });
  }
  dim = wrap_dim(dim, this->dim());
  if (index.dtype() != DType::Int64) throw IndexError("index_fill_(): Expected dtype int64 for index.");
  if (index.dim() > 1) throw Error("Index has to be a vector/scalar");
  detail::check_same_device({this, &index});
  detail::check_no_internal_overlap(*this);
  const int64_t size = at_least_1d(*this).size(dim);
  const auto range = index_ranges({index})[0];
  if (auto bad = out_of_bounds(range, size, true)) throw IndexError(bounds_message(*bad, dim, size));
  const std::vector<int64_t> shape = with_dim_size(*this, dim, index.numel());
  scatter_along(*this, ScatterMode::Assign, dim, wrap_negative(index, range, size), Operand(value), shape);
  return *this;
}

Tensor& Tensor::put_(const Tensor& index, const Tensor& source, bool accumulate) {
  if (autograd::inplace_needs_record(*this, {&source})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) { return put_copy(old, index, source, accumulate); });
  }
  if (index.dtype() != DType::Int64) {
    throw Error("put_(): Expected a long tensor for index, but got " + type_name(index.dtype()));
  }
  if (source.dtype() != dtype()) {
    throw Error("put_(): self and source expected to have the same dtype, but got self.dtype = " +
                type_name(dtype()) + " and source.dtype = " + type_name(source.dtype()));
  }
  if (source.numel() != index.numel()) {
    throw IndexError("put_(): Expected source and index to have the same number of elements, but got "
                     "source.numel() = " + std::to_string(source.numel()) + ", index.numel() = " +
                     std::to_string(index.numel()));
  }
  detail::check_same_device({this, &index, &source});
  detail::check_no_internal_overlap(*this);
  const auto range = index_ranges({index})[0];
  if (auto bad = out_of_bounds(range, numel(), true)) {
    throw IndexError("out of range: tried to access index " + std::to_string(*bad) + " on a tensor of " +
                     std::to_string(numel()) + " elements.");
  }
  if (index.numel() > 0) {
    // Flat indices address the row-major order: a non-contiguous self is written through a copy.
    Tensor flat = is_contiguous() ? reshape({-1}) : contiguous().reshape({-1});
    const Tensor idx = wrap_negative(index, range, numel()).reshape({-1});
    kernels(*this).scatter(stream(*this), accumulate ? ScatterMode::Add : ScatterMode::Assign, flat.ref(), 0,
                           idx.ref(), source.reshape({-1}).ref());
    if (!is_contiguous()) copy_(flat.view(sizes()));
  }
  detail::bump_version(*this);
  return *this;
}

// ---- triangles ----

namespace {
Tensor& triangle_into(Tensor& out, const Tensor& in, int64_t diagonal, bool upper) {
  wrap_dim(-2, in.dim());
  if (in.numel() > 0) kernels(in).triangle(stream(in), out.ref(), in.ref(), diagonal, upper);
  return out;
}
}  // namespace

Tensor Tensor::tril(int64_t diagonal) const {
  autograd::Record rec("TrilBackward0", {this});
  Tensor out = detail::empty_on(sizes(), dtype(), device());
  triangle_into(out, *this, diagonal, false);
  if (!rec) return out;
  return rec.finish(out, [diagonal](autograd::FunctionNode&, const autograd::tensor_list& g) {
    return autograd::tensor_list{g[0].tril(diagonal)};
  });
}
Tensor Tensor::triu(int64_t diagonal) const {
  autograd::Record rec("TriuBackward0", {this});
  Tensor out = detail::empty_on(sizes(), dtype(), device());
  triangle_into(out, *this, diagonal, true);
  if (!rec) return out;
  return rec.finish(out, [diagonal](autograd::FunctionNode&, const autograd::tensor_list& g) {
    return autograd::tensor_list{g[0].triu(diagonal)};
  });
}
Tensor& Tensor::tril_(int64_t diagonal) {
  if (autograd::inplace_needs_record(*this, {})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) { return old.tril(diagonal); });
  }
  detail::check_no_internal_overlap(*this);
  triangle_into(*this, *this, diagonal, false);
  detail::bump_version(*this);
  return *this;
}
Tensor& Tensor::triu_(int64_t diagonal) {
  if (autograd::inplace_needs_record(*this, {})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) { return old.triu(diagonal); });
  }
  detail::check_no_internal_overlap(*this);
  triangle_into(*this, *this, diagonal, true);
  detail::bump_version(*this);
  return *this;
}

// ---- one_hot ----

Tensor one_hot(const Tensor& indices, int64_t num_classes) {
  if (indices.dtype() != DType::Int64) throw Error("one_hot is only applicable to index tensor.");
  if (num_classes == -1 && indices.numel() == 0) {
    throw Error("Can not infer total number of classes from empty tensor.");
  }
  if (indices.numel() > 0) {
    const std::optional<IndexRange> range = index_range(indices);  // one read-back, unless trusted
    if (!range) {
      if (num_classes == -1) throw Error("one_hot cannot infer num_classes under detail::TrustedIndices");
    } else if (range->min < 0) {
      throw Error("Class values must be non-negative.");
    } else if (num_classes == -1) {
      num_classes = range->max + 1;
    } else if (range->max >= num_classes) {
      throw Error("Class values must be smaller than num_classes.");
    }
  }
  std::vector<int64_t> shape = indices.sizes().vec();
  shape.push_back(num_classes);
  Tensor out = zeros(shape, TensorOptions().dtype(DType::Int64).device(indices.device()));
  if (out.numel() > 0) {
    kernels(indices).scatter(stream(indices), ScatterMode::Assign, out.ref(), static_cast<int>(indices.dim()),
                             indices.unsqueeze(-1).ref(), Operand(Scalar(int64_t{1})));
  }
  return out;
}

}  // namespace ember
