// Selection by a condition: where (all forms), masked_fill, masked_select, masked_scatter_, nonzero
// (as a matrix or a tuple of index tensors) and argwhere.
#include <functional>
#include <string>

#include "tensor/elementwise_support.h"
#include "runtime/kernels/reduce.h"
#include "tensor/indexing_support.h"

namespace ember {

namespace {

using autograd::FunctionNode;
using autograd::Record;
using autograd::tensor_list;
using detail::run_ternary;

void check_condition(const Tensor& condition) {
  if (condition.dtype() != DType::Bool && condition.dtype() != DType::UInt8) {
    throw Error("where expected condition to be a boolean tensor, but got a tensor with dtype " +
                scalar_type_name(condition.dtype()));
  }
}

// where(c, a, b): a's gradient where c holds, b's elsewhere. `a` or `b` null are scalars.
Tensor recorded_where(const Tensor& condition, const Tensor* a, const Tensor* b, const std::function<Tensor()>& run) {
  Record rec("WhereBackward0", {a, b});
  Tensor out = run();
  if (!rec) return out;
  rec.save(condition);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor c = node.saved(0);
    return tensor_list{node.needs_input_grad(0) ? ember::where(c, g[0], 0) : Tensor(),
                       node.needs_input_grad(1) ? ember::where(c, 0, g[0]) : Tensor()};
  });
}

void check_mask(const Tensor& mask) {
  if (mask.dtype() != DType::Bool) {
    throw Error("masked_fill_ only supports boolean masks, but got mask with dtype " +
                std::string(dtype_name(mask.dtype())));
  }
}

void check_fill_value(const Tensor& value) {
  if (value.dim() != 0) {
    throw Error("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with " +
                std::to_string(value.dim()) + " dimension(s).");
  }
}

}  // namespace

// ---- where ----

Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  return ember::where(condition, *this, other);
}

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  check_condition(condition);
  return recorded_where(condition, &a, &b, [&] {
    const DType result = result_type(a, b);
    return run_ternary(TernaryOp::Where, condition, a, b, result, result, 1, nullptr);
  });
}

Tensor where(const Tensor& condition, Scalar a, const Tensor& b) {
  check_condition(condition);
  const DType result = result_type(b, a);
  detail::check_scalar_fits(a, result);
  return recorded_where(condition, nullptr, &b, [&] {
    return run_ternary(TernaryOp::Where, condition, a, b, result, result, 1, nullptr);
  });
}

Tensor where(const Tensor& condition, const Tensor& a, Scalar b) {
  check_condition(condition);
  const DType result = result_type(a, b);
  detail::check_scalar_fits(b, result);
  return recorded_where(condition, &a, nullptr, [&] {
    return run_ternary(TernaryOp::Where, condition, a, b, result, result, 1, nullptr);
  });
}

Tensor where(const Tensor& condition, Scalar a, Scalar b) {
  check_condition(condition);
  auto dtype_of = [](Scalar s) {
    return s.is_floating_point() ? get_default_dtype() : s.is_bool() ? DType::Bool : DType::Int64;
  };
  const DType result = promote_types(dtype_of(a), dtype_of(b));
  Tensor filled = full(condition.sizes(), b, TensorOptions().dtype(result).device(condition.device()));
  return run_ternary(TernaryOp::Where, condition, a, filled, result, result, 1, nullptr);
}

// ---- masked_fill ----
// The out-of-place forms are one where() launch into a new tensor of the broadcast shape, as PyTorch's
// expand-then-fill gives, rather than a clone followed by the in-place fill. Filled positions pass no
// gradient to self; a tensor value gets the sum of theirs.

Tensor Tensor::masked_fill(const Tensor& mask, Scalar value) const {
  check_mask(mask);
  detail::check_scalar_fits(value, dtype());
  Record rec("MaskedFillBackward0", {this});
  Tensor out = run_ternary(TernaryOp::Where, mask, value, *this, dtype(), dtype(), 1, nullptr);
  if (!rec) return out;
  rec.save(mask);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    return tensor_list{g[0].masked_fill(node.saved(0), 0)};
  });
}

// A tensor value is converted as a cast converts, without the fit check PyTorch makes: that check would
// read the value back to the host.
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  check_fill_value(value);
  check_mask(mask);
  Record rec("MaskedFillBackward1", {this, &value});
  Tensor out = run_ternary(TernaryOp::Where, mask, value, *this, dtype(), dtype(), 1, nullptr);
  if (!rec) return out;
  rec.save(mask);
  return rec.finish(out, [](FunctionNode& node, const tensor_list& g) {
    const Tensor m = node.saved(0);
    return tensor_list{node.needs_input_grad(0) ? g[0].masked_fill(m, 0) : Tensor(),
                       node.needs_input_grad(1) ? ember::where(m, g[0], 0).sum() : Tensor()};
  });
}

Tensor& Tensor::masked_fill_(const Tensor& mask, Scalar value) {
  check_mask(mask);
  detail::check_scalar_fits(value, dtype());
  return detail::inplace(*this, {}, [&](const Tensor& old) { return old.masked_fill(mask, value); },
                         [&] { run_ternary(TernaryOp::Where, mask, value, *this, dtype(), dtype(), 1, this); });
}

Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) {
  check_fill_value(value);
  check_mask(mask);
  return detail::inplace(*this, {&value}, [&](const Tensor& old) { return old.masked_fill(mask, value); },
                         [&] { run_ternary(TernaryOp::Where, mask, value, *this, dtype(), dtype(), 1, this); });
}

// ---- nonzero and masked_select ----

// Coordinates of the nonzero elements: a cumulative count over (x != 0) gives each its row, and the
// last count (read back) sizes the result.
namespace detail {

Tensor nonzero_of(const Tensor& x) {
  const auto& device = x.device();
  if (x.numel() == 0) return empty_on({0, x.dim()}, DType::Int64, device);
  const Tensor flags = x.ne(0).reshape({-1});
  Tensor positions = empty_on({x.numel()}, DType::Int64, device);
  kernels_for<ReduceKernels>(*x.device())
      .scan(detail::stream_of(x), {.op = ScanOp::CumSum, .out = positions.ref(), .in = flags.ref(), .dim = 0,
                        .compute = DType::Int64});
  const int64_t count = positions.narrow(0, x.numel() - 1, 1).item<int64_t>();
  Tensor out = empty_on({count, x.dim()}, DType::Int64, device);
  if (out.numel() > 0) detail::index_kernels(x).nonzero(detail::stream_of(x), {out.ref(), x.ref(), positions.ref()});
  return out;
}

}  // namespace detail

Tensor Tensor::masked_select(const Tensor& mask) const {
  if (mask.dtype() != DType::Bool && mask.dtype() != DType::UInt8) {
    throw Error("masked_select: expected BoolTensor or ByteTensor for mask");
  }
  const std::vector<int64_t> shape = broadcast_shapes(mask.sizes(), sizes());  // PyTorch's order, for its message
  return detail::index_recorded(expand(shape), {mask.expand(shape)}, "MaskedSelectBackward0");
}

Tensor Tensor::nonzero() const { return detail::nonzero_of(*this); }
Tensor Tensor::argwhere() const { return detail::nonzero_of(*this); }

// A 0-dim tensor is one element, as PyTorch's nonzero_numpy and masked_scatter see it.
std::vector<Tensor> Tensor::nonzero_numpy() const {
  return detail::nonzero_of(detail::at_least_1d(*this)).unbind(1);
}

std::vector<Tensor> where(const Tensor& condition) { return condition.nonzero_numpy(); }

// ---- masked_scatter ----
// The true positions of the mask (broadcast to self's shape) take source's elements in row-major order:
// the mask's nonzero coordinates (one read-back, for their count) index one index_put_ of source's first
// `count` elements. The coordinates are saved, so backward reads nothing back.

namespace {

void check_scatter_mask(const Tensor& mask) {
  // PyTorch 1.13 reads other dtypes' bytes as bools; refusing them is clearer.
  if (mask.dtype() != DType::Bool && mask.dtype() != DType::UInt8) {
    throw Error("masked_scatter_ only supports boolean masks, but got mask with dtype " +
                std::string(dtype_name(mask.dtype())));
  }
}

void check_scatter_source(const Tensor& self, const Tensor& source) {
  // PyTorch's message has no space after "got".
  if (self.dtype() != source.dtype()) {
    throw Error("masked_scatter: expected self and source to have same dtypes but got" +
                scalar_type_name(self.dtype()) + " and " + scalar_type_name(source.dtype()));
  }
}

std::vector<TensorIndex> columns_of(const Tensor& positions) {
  std::vector<TensorIndex> columns;
  for (const Tensor& column : positions.unbind(1)) columns.emplace_back(column);
  return columns;
}

// The coordinates of mask's true elements (mask has the target's shape), one row each, row-major.
Tensor true_positions(const Tensor& mask) { return detail::nonzero_of(detail::at_least_1d(mask)); }

// Writes source's first positions.size(0) elements at `positions` of target.
void scatter_at(const Tensor& target, const Tensor& positions, const Tensor& source) {
  const int64_t count = positions.size(0);
  if (count > source.numel()) throw Error("Number of elements of source < number of ones in mask");
  if (count == 0) return;
  detail::TrustedIndices trusted;  // nonzero's coordinates are in range
  Tensor view = detail::at_least_1d(target);
  view.index_put_(columns_of(positions), source.reshape({-1}).narrow(0, 0, count));
}

}  // namespace

Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  detail::check_same_device({this, &mask, &source});
  check_scatter_mask(mask);
  const std::vector<int64_t> shape = broadcast_shapes(mask.sizes(), sizes());
  check_scatter_source(*this, source);
  const Tensor full_mask = mask.expand(shape);
  Record rec("MaskedScatterBackward0", {this, &source});
  Tensor out = detail::empty_on(shape, dtype(), device());
  out.copy_(expand(shape));
  const Tensor positions = true_positions(full_mask);
  scatter_at(out, positions, source);
  if (!rec) return out;
  rec.save(full_mask);
  rec.save(positions);
  // self: the gradient where nothing was written; source: the gradient at the written positions, in
  // order, then zeros for the elements left unused.
  return rec.finish(out, [self_sizes = sizes().vec(), source_sizes = source.sizes().vec(),
                          source_numel = source.numel()](FunctionNode& node, const tensor_list& g) {
    tensor_list grads(2);
    if (node.needs_input_grad(0)) grads[0] = autograd::sum_to(g[0].masked_fill(node.saved(0), 0), self_sizes);
    if (node.needs_input_grad(1)) {
      const Tensor positions = node.saved(1);
      Tensor picked;
      {
        detail::TrustedIndices trusted;
        picked = detail::at_least_1d(g[0]).index(columns_of(positions));
      }
      const int64_t unused = source_numel - positions.size(0);
      if (unused > 0) picked = cat({picked, detail::zeros_as(g[0], {unused})});
      grads[1] = picked.reshape(source_sizes);
    }
    return grads;
  });
}

Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) {
  detail::check_same_device({this, &mask, &source});
  detail::check_no_internal_overlap(*this);
  check_scatter_source(*this, source);
  check_scatter_mask(mask);
  const Tensor full_mask = mask.expand(sizes());
  return detail::inplace(*this, {&source}, [&](const Tensor& old) { return old.masked_scatter(full_mask, source); },
                         [&] { scatter_at(*this, true_positions(full_mask), source); });
}

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  return self.masked_scatter(mask, source);
}

}  // namespace ember
