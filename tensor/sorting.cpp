// sort, argsort, msort, topk, kthvalue, median, nanmedian and mode: PyTorch's checks and messages, then one
// SortKernels::sort call that writes just the sorted positions the op returns (all of them, the first k,
// or the k-th). median sorts whole slices and gathers each slice's median position, which depends on
// how many NaNs the slice holds; mode gathers the end of each slice's first longest run of equal values.
//
// The kernel's order is always stable (ties keep their order; NaN is largest), so sort(stable=false),
// whose order of ties PyTorch leaves open, gives the stable order too, and so do topk and kthvalue.
// topk and kthvalue sort each whole slice: a selection would do less work for a small k on long slices.
//
// Autograd: PyTorch's nodes (SortBackward0, and SortBackward1 for the overload that takes `stable`;
// TopkBackward0, KthvalueBackward0, MedianBackward1, NanmedianBackward1). The gradient goes back to the
// positions the indices name, zero elsewhere, through a scatter whose own gradient is a gather, as in
// PyTorch; indices have none.
#include <limits>

#include "autograd/record.h"
#include "runtime/kernels/sort.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

using detail::wrap_dim;

struct Selected {
  Tensor values;  // undefined for argsort
  Tensor indices;
};

// The elements along `dim` (wrapped) of each slice; a 0-dim tensor is one slice of one element.
int64_t slice_length(const Tensor& x, int64_t dim) { return x.dim() == 0 ? 1 : x.size(dim); }

// Sorted positions [first, first + count) of every slice of x along `dim` (wrapped): x's sizes with
// `count` along dim (a 0-dim x gives 0-dim results).
Selected sorted_positions(const Tensor& x, int64_t dim, bool descending, int64_t first, int64_t count,
                          bool with_values) {
  std::vector<int64_t> sizes = x.sizes().vec();
  if (x.dim() > 0) sizes[dim] = count;
  Selected r;
  if (with_values) r.values = detail::empty_on(sizes, x.dtype(), x.device());
  r.indices = detail::empty_on(sizes, DType::Int64, x.device());
  if (detail::product(sizes) == 0) return r;
  SortArgs args{.indices = r.indices.ref(), .in = x.ref(), .dim = static_cast<int>(dim), .descending = descending,
                .first = first};
  if (with_values) args.values = r.values.ref();
  detail::kernels_for<SortKernels>(*x.device()).sort(*detail::stream_for(*x.device()), args);
  return r;
}

// The gradient of elements picked by `indices` along `dim`: `g` put back where they came from in an
// input of `sizes`, zero elsewhere. The indices are the kernel's, in range by construction.
Tensor put_back(const Tensor& g, const Tensor& indices, IntArrayRef sizes, int64_t dim) {
  if (sizes.empty()) return g.reshape({});  // a 0-dim input: its one element
  detail::TrustedIndices trusted;
  return detail::zeros_as(g, sizes).scatter(dim, indices, g);
}

// Records `selected` (values and indices of x along `dim`) under `rec`. `squeezed`: the outputs lack
// the dim (kthvalue without keepdim), which the gradient gets back first.
std::tuple<Tensor, Tensor> record_selection(autograd::Record& rec, const Selected& selected, const Tensor& x,
                                            int64_t dim, bool squeezed) {
  rec.save_output(selected.indices, 1);
  autograd::tensor_list outs = rec.finish(
      {selected.values, selected.indices},
      [sizes = x.sizes().vec(), dim, squeezed](autograd::FunctionNode& node, const autograd::tensor_list& g) {
        Tensor grad = g[0];
        Tensor indices = node.saved(0);
        if (squeezed) {
          grad = grad.unsqueeze(dim);
          indices = indices.unsqueeze(dim);
        }
        return autograd::tensor_list{put_back(grad, indices, sizes, dim)};
      });
  return {outs[0], outs[1]};
}

std::tuple<Tensor, Tensor> sort_recorded(const Tensor& x, int64_t dim, bool descending, const char* node_name) {
  const int64_t d = wrap_dim(dim, x.dim());
  autograd::Record rec(node_name, {&x});
  Selected sorted = sorted_positions(x, d, descending, 0, slice_length(x, d), true);
  if (!rec) return {sorted.values, sorted.indices};
  return record_selection(rec, sorted, x, d, false);
}

Tensor argsort_of(const Tensor& x, int64_t dim, bool descending) {
  const int64_t d = wrap_dim(dim, x.dim());
  return sorted_positions(x, d, descending, 0, slice_length(x, d), false).indices;
}

// topk and kthvalue have no kernel for bool in PyTorch; the message is its CPU kernel's.
void check_not_bool(const Tensor& x, const char* kernel) {
  if (x.dtype() == DType::Bool) throw Error("\"" + std::string(kernel) + "\" not implemented for 'Bool'");
}

// The median's sorted position in each slice along `dim` (keepdim sizes). NaN sorts last in input
// order, so median's first NaN (which it returns, as PyTorch) is at n - (NaN count); nanmedian takes
// the lower median of the rest, or the first NaN of an all-NaN slice.
Tensor median_positions(const Tensor& x, int64_t dim, bool ignore_nan) {
  const int64_t n = x.size(dim);
  const Tensor nans = x.isnan().sum({dim}, /*keepdim=*/true);
  if (ignore_nan) return (n - 1 - nans).clamp_min(0).bitwise_right_shift(1);
  return where(nans.gt(0), n - nans, (n - 1) / 2);
}

// The most frequent value's sorted position in each slice along `dim` (keepdim sizes): the end of the
// first longest run of equal values, so the smallest of equally frequent values and (the sort being
// stable) its last occurrence, as PyTorch's CPU gives for slices of up to 16. Each NaN is a run of its
// own, as in PyTorch.
Tensor mode_positions(const Selected& sorted, int64_t dim) {
  const Tensor& values = sorted.values;
  const int64_t n = values.size(dim);
  std::vector<int64_t> along(values.dim(), 1);
  along[dim] = n;
  const Tensor position = arange(n, TensorOptions().dtype(DType::Int64).device(values.device())).view(along);
  const Tensor starts = cat({ones_like(values.narrow(dim, 0, 1), DType::Bool),
                             values.narrow(dim, 1, n - 1).ne(values.narrow(dim, 0, n - 1))},
                            dim);
  const Tensor run_start = std::get<0>(ember::where(starts, position, 0).cummax(dim));
  return (position - run_start).argmax(dim, /*keepdim=*/true);
}

// One sorted position of each slice along `dim`, given by `position_of(x, sorted slices, dim)` (keepdim
// sizes): its value and index, recorded under `node_name`. `op` names the op in PyTorch's messages.
template <class PositionOf>
std::tuple<Tensor, Tensor> pick_sorted(const char* op, const char* node_name, const Tensor& x, int64_t dim,
                                       bool keepdim, PositionOf position_of) {
  const int64_t d = wrap_dim(dim, x.dim());
  if (x.dim() > 0 && x.size(d) == 0) {
    throw IndexError(std::string(op) + "(): Expected reduction dim " + std::to_string(d) + " to have non-zero size.");
  }
  autograd::Record rec(node_name, {&x});
  Selected picked = sorted_positions(x, d, false, 0, slice_length(x, d), true);
  const bool squeezed = !keepdim && x.dim() > 0;
  if (x.dim() > 0 && x.numel() > 0) {
    const Tensor at = position_of(x, picked, d);
    detail::TrustedIndices trusted;  // positions within each slice by construction
    picked.values = picked.values.gather(d, at);
    picked.indices = picked.indices.gather(d, at);
  } else if (x.dim() > 0) {  // slices of one or more elements, but none of them
    picked.values = picked.values.narrow(d, 0, 1);
    picked.indices = picked.indices.narrow(d, 0, 1);
  }
  if (squeezed) {
    picked.values = picked.values.squeeze(d);
    picked.indices = picked.indices.squeeze(d);
  }
  if (!rec) return {picked.values, picked.indices};
  return record_selection(rec, picked, x, d, squeezed);
}

// Both medians share PyTorch's messages, which name median.
std::tuple<Tensor, Tensor> median_along(const char* node_name, const Tensor& x, int64_t dim, bool keepdim,
                                        bool ignore_nan) {
  const int64_t d = wrap_dim(dim, x.dim());
  if (x.dim() == 0 || x.size(d) != 0) check_not_bool(x, "median_out");  // after the empty dim's check
  return pick_sorted("median", node_name, x, dim, keepdim, [ignore_nan](const Tensor& input, const Selected&, int64_t d) {
    return median_positions(input, d, ignore_nan);
  });
}

// median() and nanmedian(): the median of all elements; its gradient is shared evenly by the elements
// equal to it (the NaNs, when it is NaN), as PyTorch's.
Tensor median_of_all(const char* node_name, const Tensor& x, bool ignore_nan) {
  check_not_bool(x, "median_cpu");
  autograd::Record rec(node_name, {&x});
  Tensor value;
  if (x.numel() == 0) {
    // PyTorch converts NaN to the dtype, which for integers gives whatever the host's conversion does.
    if (!x.is_floating_point()) {
      throw Error("median() of an empty " + scalar_type_name(x.dtype()) +
                  " tensor has no value: it would be NaN, which integers cannot hold");
    }
    value = full({}, std::numeric_limits<double>::quiet_NaN(), TensorOptions().dtype(x.dtype()).device(x.device()));
  } else {
    value = std::get<0>(median_along(node_name, x.flatten(), 0, false, ignore_nan));
  }
  if (!rec) return value;
  rec.save(x);
  rec.save_output(value);
  return rec.finish(value, [](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    const Tensor x = node.saved(0), median = node.saved(1);
    const Tensor shares = x.eq(median).logical_or(x.isnan().logical_and(median.isnan())).to(g[0].dtype());
    return autograd::tensor_list{shares * (g[0] / shares.sum())};
  });
}

}  // namespace

std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  return sort_recorded(*this, dim, descending, "SortBackward0");
}

std::tuple<Tensor, Tensor> Tensor::sort(std::optional<bool> /*stable*/, int64_t dim, bool descending) const {
  return sort_recorded(*this, dim, descending, "SortBackward1");
}

Tensor Tensor::argsort(int64_t dim, bool descending) const { return argsort_of(*this, dim, descending); }

Tensor Tensor::argsort(bool /*stable*/, int64_t dim, bool descending) const {
  return argsort_of(*this, dim, descending);
}

Tensor Tensor::msort() const { return std::get<0>(sort(0)); }

std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool /*sorted*/) const {
  const int64_t d = wrap_dim(dim, this->dim());
  if (k < 0 || k > slice_length(*this, d)) throw Error("selected index k out of range");
  check_not_bool(*this, "topk_cpu");
  autograd::Record rec("TopkBackward0", {this});
  // Largest first is a descending sort; the order of a sorted=false result is unspecified, so it is too.
  Selected top = sorted_positions(*this, d, largest, 0, k, true);
  if (!rec) return {top.values, top.indices};
  return record_selection(rec, top, *this, d, false);
}

std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  const int64_t d = wrap_dim(dim, this->dim());
  if (this->dim() > 0 && size(d) == 0) {
    throw IndexError("kthvalue(): Expected reduction dim " + std::to_string(d) + " to have non-zero size.");
  }
  if (k < 1 || k > slice_length(*this, d)) {
    throw Error("kthvalue(): selected number k out of range for dimension " + std::to_string(d));
  }
  check_not_bool(*this, "kthvalue_cpu");
  autograd::Record rec("KthvalueBackward0", {this});
  Selected kth = sorted_positions(*this, d, false, k - 1, 1, true);
  const bool squeezed = !keepdim && this->dim() > 0;
  if (squeezed) {
    kth.values = kth.values.squeeze(d);
    kth.indices = kth.indices.squeeze(d);
  }
  if (!rec) return {kth.values, kth.indices};
  return record_selection(rec, kth, *this, d, squeezed);
}

Tensor Tensor::median() const { return median_of_all("MedianBackward0", *this, false); }

std::tuple<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const {
  return median_along("MedianBackward1", *this, dim, keepdim, false);
}

Tensor Tensor::nanmedian() const { return median_of_all("NanmedianBackward0", *this, true); }

std::tuple<Tensor, Tensor> Tensor::mode(int64_t dim, bool keepdim) const {
  return pick_sorted("mode", "ModeBackward0", *this, dim, keepdim,
                     [](const Tensor&, const Selected& sorted, int64_t d) { return mode_positions(sorted, d); });
}

std::tuple<Tensor, Tensor> Tensor::nanmedian(int64_t dim, bool keepdim) const {
  return median_along("NanmedianBackward1", *this, dim, keepdim, true);
}

std::tuple<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending) { return x.sort(dim, descending); }

std::tuple<Tensor, Tensor> sort(const Tensor& x, std::optional<bool> stable, int64_t dim, bool descending) {
  return x.sort(stable, dim, descending);
}

Tensor argsort(const Tensor& x, int64_t dim, bool descending) { return x.argsort(dim, descending); }

Tensor argsort(const Tensor& x, bool stable, int64_t dim, bool descending) {
  return x.argsort(stable, dim, descending);
}

Tensor msort(const Tensor& x) { return x.msort(); }

std::tuple<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
  return x.topk(k, dim, largest, sorted);
}

std::tuple<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim, bool keepdim) {
  return x.kthvalue(k, dim, keepdim);
}

Tensor median(const Tensor& x) { return x.median(); }

std::tuple<Tensor, Tensor> median(const Tensor& x, int64_t dim, bool keepdim) { return x.median(dim, keepdim); }

Tensor nanmedian(const Tensor& x) { return x.nanmedian(); }

std::tuple<Tensor, Tensor> mode(const Tensor& x, int64_t dim, bool keepdim) { return x.mode(dim, keepdim); }

std::tuple<Tensor, Tensor> nanmedian(const Tensor& x, int64_t dim, bool keepdim) {
  return x.nanmedian(dim, keepdim);
}

}  // namespace ember
