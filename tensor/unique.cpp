// Distinct values: torch.unique (PyTorch's _unique2 and unique_dim) and torch.unique_consecutive.
//
// Both work on rows: the elements of the flattened input, or the slices along `dim` flattened to rows of
// one [n, L] tensor. unique first sorts the rows (a stable sort of the elements; for slices, stable sorts
// by each column from the last, which orders them lexicographically), then both find where each run of
// equal rows starts. The number of runs sizes the result, so it is read back (nonzero), as PyTorch does.
//
// Where LibTorch's CPU differs, ember gives what a unique by sorting gives: the result is always sorted
// (sorted=false leaves the order to the implementation; LibTorch's CPU gives its hash set's), and each
// NaN is a distinct value counted once, sorted last (LibTorch's CPU counts a NaN 0 times, maps it to
// index 0 and places it by hash). -0.0 and 0.0 are one value, the first one seen kept, as in LibTorch.
//
// Outputs that were not asked for are empty. The values keep the input's history under PyTorch's node,
// whose backward fails with PyTorch's message: unique has no derivative.
#include "autograd/record.h"
#include "tensor/functions.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

TensorOptions int64_on(const Tensor& like) { return TensorOptions().dtype(DType::Int64).device(like.device()); }

// The runs of equal rows of `rows` ([n, L], or [n] of elements): each run's first row and each row's run.
// NaN differs from everything, itself included (PyTorch compares rows with at::equal).
struct Runs {
  Tensor firsts;  // int64 [runs]
  Tensor ids;     // int64 [n]
};

Runs runs_of(const Tensor& rows) {
  const int64_t n = rows.size(0);
  if (n == 0) return {empty({0}, int64_on(rows)), empty({0}, int64_on(rows))};
  Tensor differs = rows.narrow(0, 1, n - 1).ne(rows.narrow(0, 0, n - 1));
  if (rows.dim() == 2) differs = differs.any(1);
  const Tensor starts = cat({ones({1}, TensorOptions().dtype(DType::Bool).device(rows.device())), differs});
  return {starts.nonzero().flatten(), starts.cumsum(0, DType::Int64) - 1};
}

// How many of the n rows each run holds.
Tensor run_lengths(const Runs& runs, int64_t n) {
  return runs.firsts.diff(1, 0, std::nullopt, full({1}, n, int64_on(runs.firsts)));
}

// The order that sorts `rows` ([n, L]) lexicographically, equal rows in their order: a stable sort by
// each column, from the last. L sorts: the columns of PyTorch's comparator one at a time.
Tensor lexicographic_order(const Tensor& rows) {
  Tensor order = arange(rows.size(0), int64_on(rows));
  for (int64_t column = rows.size(1) - 1; column >= 0; --column) {
    const Tensor keys = rows.select(1, column).index_select(0, order);
    order = order.index_select(0, keys.argsort(0, false));
  }
  return order;
}

struct Wanted {
  bool sort;
  bool inverse;
  bool counts;
};

// The distinct rows of `rows` ([n] or [n, L]) in their runs after sorting them (when asked): the first row
// of each run, each row's run (in the input's order) and each run's length. Those not wanted are empty.
std::tuple<Tensor, Tensor, Tensor> distinct_rows(const Tensor& rows, Wanted wanted) {
  const int64_t n = rows.size(0);
  detail::TrustedIndices trusted;  // every index below is a row's position or run, in range by construction
  Tensor order, ordered = rows;
  if (wanted.sort && n > 1 && rows.dim() == 1) {
    std::tie(ordered, order) = rows.sort(0);
  } else if (wanted.sort && n > 1) {
    order = lexicographic_order(rows);
    ordered = rows.index_select(0, order);
  }
  const Runs runs = runs_of(ordered);
  Tensor inverse = empty({0}, int64_on(rows)), counts = empty({0}, int64_on(rows));
  if (wanted.inverse) {
    inverse = order.defined() ? zeros({n}, int64_on(rows)).scatter(0, order, runs.ids) : runs.ids;
  }
  if (wanted.counts) counts = run_lengths(runs, n);
  return {ordered.index_select(0, runs.firsts), inverse, counts};
}

std::tuple<Tensor, Tensor, Tensor> distinct_elements(const char* node, const char* op, const Tensor& x,
                                                     Wanted wanted) {
  if (x.dtype() == DType::Float16) throw Error("\"unique\" not implemented for 'Half'");
  autograd::Record rec(node, {&x});
  auto [values, inverse, counts] = distinct_rows(x.reshape({-1}), wanted);
  if (wanted.inverse) inverse = inverse.view(x.sizes());
  if (rec) values = rec.finish(values, autograd::missing_formula_backward(op));
  return {values, inverse, counts};
}

// PyTorch's checks of a dim form: only the chosen dim may be empty.
void check_zero_sizes(const Tensor& x, int64_t dim) {
  int64_t zero_sized = 0;
  for (int64_t d = 0; d < x.dim(); ++d) zero_sized += x.size(d) == 0;
  if (zero_sized > 1) {
    throw Error("Number of zero sized dimensions is more than one, so unique cannot be applied ");
  }
  if (zero_sized == 1 && x.size(dim) != 0) {
    throw Error("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
  }
}

std::tuple<Tensor, Tensor, Tensor> distinct_slices(const char* node, const char* op, const Tensor& x,
                                                   int64_t dim, Wanted wanted) {
  const int64_t n = x.size(dim);  // PyTorch's messages for a 0-dim x and a dim out of range
  const int64_t d = detail::wrap_dim(dim, x.dim());
  if (x.dtype() == DType::Float16) throw Error("\"unique_dim\" not implemented for 'Half'");
  check_zero_sizes(x, d);
  autograd::Record rec(node, {&x});
  const Tensor moved = x.movedim(d, 0);
  std::vector<int64_t> slice_sizes = moved.sizes().vec();
  const int64_t length = detail::product(IntArrayRef(slice_sizes.data() + 1, slice_sizes.size() - 1));
  auto [rows, inverse, counts] = distinct_rows(moved.reshape({n, length}), wanted);
  slice_sizes[0] = rows.size(0);
  Tensor values = rows.reshape(slice_sizes).movedim(0, d);
  if (rec) values = rec.finish(values, autograd::missing_formula_backward(op));
  return {values, inverse, counts};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> Tensor::unique(bool sorted, bool return_inverse, bool return_counts,
                                                  std::optional<int64_t> dim) const {
  // Always sorted: PyTorch leaves the order of sorted=false open.
  (void)sorted;
  const Wanted wanted{.sort = true, .inverse = return_inverse, .counts = return_counts};
  if (dim) return distinct_slices("UniqueDimBackward0", "unique_dim", *this, *dim, wanted);
  return distinct_elements("Unique2Backward0", "_unique2", *this, wanted);
}

std::tuple<Tensor, Tensor, Tensor> Tensor::unique_consecutive(bool return_inverse, bool return_counts,
                                                              std::optional<int64_t> dim) const {
  const Wanted wanted{.sort = false, .inverse = return_inverse, .counts = return_counts};
  // PyTorch takes a 1-D input's dim form as its elements' form.
  if (dim && this->dim() != 1) {
    return distinct_slices("UniqueConsecutiveBackward0", "unique_consecutive", *this, *dim, wanted);
  }
  if (dim) detail::wrap_dim(*dim, 1);  // still PyTorch's error for a dim past its one
  return distinct_elements("UniqueConsecutiveBackward0", "unique_consecutive", *this, wanted);
}

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& x, bool sorted, bool return_inverse, bool return_counts,
                                          std::optional<int64_t> dim) {
  return x.unique(sorted, return_inverse, return_counts, dim);
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, bool return_inverse, bool return_counts,
                                                      std::optional<int64_t> dim) {
  return x.unique_consecutive(return_inverse, return_counts, dim);
}

}  // namespace ember
