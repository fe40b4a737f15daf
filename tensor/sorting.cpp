// sort, argsort, msort, topk and kthvalue: PyTorch's checks and messages, then one SortKernels::sort
// call that writes just the sorted positions the op returns (all of them, the first k, or the k-th).
//
// The kernel's order is always stable (ties keep their order; NaN is largest), so sort(stable=false),
// whose order of ties PyTorch leaves open, gives the stable order too, and so do topk and kthvalue.
// topk and kthvalue sort each whole slice: a selection would do less work for a small k on long slices.
//
// Autograd: PyTorch's nodes (SortBackward0, and SortBackward1 for the overload that takes `stable`;
// TopkBackward0, KthvalueBackward0). The gradient goes back to the positions the indices name, zero
// elsewhere, through a scatter whose own gradient is a gather, as in PyTorch; indices have none.
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

}  // namespace ember
