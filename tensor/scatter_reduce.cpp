// scatter_reduce(_) (reduce sum, prod, mean, amax or amin; include_self), index_reduce(_) (its form over
// slices, composed as a scatter_reduce) and scatter(_) with reduce "add" or "multiply", as PyTorch 1.13.
// They compose the scatter kernel's modes: include_self = false first puts the reduction's identity at
// every scattered position, and mean sums, then divides by the number of values each position received
// (plus one for self's own value), flooring for integers.
//
// Checks and their order are PyTorch's: dtypes, shapes, the reduce name, then the indices' bounds, which
// the first kernel call reads back once; the calls after it trust the indices.
//
// Autograd: ScatterReduceBackward0 with PyTorch's formulas: amax and amin split the gradient evenly
// among ties, prod divides out each factor and handles zeros apart. scatter with reduce has no
// derivative in PyTorch, and backward through it fails with PyTorch's message.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "autograd/record.h"
#include "tensor/indexing_support.h"

namespace ember {

namespace {

using detail::wrap_dim;

enum class Reduction { Sum, Prod, Mean, Amax, Amin };

Reduction parse_reduction(std::string_view reduce) {
  if (reduce == "sum") return Reduction::Sum;
  if (reduce == "prod") return Reduction::Prod;
  if (reduce == "mean") return Reduction::Mean;
  if (reduce == "amax") return Reduction::Amax;
  if (reduce == "amin") return Reduction::Amin;
  throw Error("reduce argument must be either sum, prod, mean, amax or amin.");
}

// scatter's older reduce argument.
ScatterMode parse_scatter_reduce(std::string_view reduce) {
  if (reduce == "add") return ScatterMode::Add;
  if (reduce == "multiply") return ScatterMode::Multiply;
  throw Error("reduce argument must be either add or multiply.");
}

ScatterMode mode_of(Reduction reduction) {
  switch (reduction) {
    case Reduction::Sum:
    case Reduction::Mean: return ScatterMode::Add;
    case Reduction::Prod: return ScatterMode::Multiply;
    case Reduction::Amax: return ScatterMode::Amax;
    case Reduction::Amin: return ScatterMode::Amin;
  }
  return ScatterMode::Add;
}

template <class T>
Scalar lowest_or_highest(bool lowest) {
  return Scalar(static_cast<int64_t>(lowest ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max()));
}

// The value that leaves any other unchanged under the reduction, in `dtype`: PyTorch's initial value for
// include_self = false (infinities for floating types, the dtype's extremes for integers and bool).
Scalar identity(Reduction reduction, DType dtype) {
  switch (reduction) {
    case Reduction::Sum:
    case Reduction::Mean: return Scalar(int64_t{0});
    case Reduction::Prod: return Scalar(int64_t{1});
    case Reduction::Amax:
    case Reduction::Amin: break;
  }
  const bool lowest = reduction == Reduction::Amax;
  switch (dtype) {
    case DType::Float32:
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float64: return Scalar(lowest ? -std::numeric_limits<double>::infinity()
                                              : std::numeric_limits<double>::infinity());
    case DType::Int8: return lowest_or_highest<int8_t>(lowest);
    case DType::UInt8: return lowest_or_highest<uint8_t>(lowest);
    case DType::Int16: return lowest_or_highest<int16_t>(lowest);
    case DType::Int32: return lowest_or_highest<int32_t>(lowest);
    case DType::Int64: return lowest_or_highest<int64_t>(lowest);
    case DType::Bool: return Scalar(!lowest);
  }
  return Scalar(int64_t{0});
}

// scatter_reduce_ without recording: the checks, then the kernel calls.
Tensor& scatter_reduce_into(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                            bool include_self) {
  dim = wrap_dim(dim, self.dim());
  detail::check_scatter_args(self, dim, index, &src);
  const Reduction reduction = parse_reduction(reduce);
  if (reduction == Reduction::Mean && self.dtype() == DType::Bool) {
    // The CPU kernel PyTorch dispatches to first, which it skips for an empty index.
    throw Error(std::string(index.numel() > 0 ? "\"scatter_gather_tensor_cpu_reduce_mean\"" : "\"div_floor_cpu\"") +
                " not implemented for 'Bool'");
  }
  {
    // The first call checks the indices' bounds; the one after it trusts them.
    std::optional<detail::TrustedIndices> trusted;
    if (!include_self) {
      detail::scatter_checked(self, ScatterMode::Assign, dim, index, nullptr, identity(reduction, self.dtype()));
      trusted.emplace();
    }
    detail::scatter_checked(self, mode_of(reduction), dim, index, &src, std::nullopt);
  }
  if (reduction != Reduction::Mean) return self;
  detail::TrustedIndices trusted;
  Tensor count = include_self ? ones_like(self) : zeros_like(self);
  count.scatter_add_(dim, index, ones_like(src));
  count.masked_fill_(count == 0, 1);
  if (self.is_floating_point()) return self.div_(count);
  return self.copy_(self.div(count, "floor"));
}

// grad_fn of a value whose backward PyTorch refuses: a node that throws `message` when reached.
Tensor delayed_error(const Tensor& t, const char* message) {
  autograd::Record rec("torch::autograd::Error", {&t});
  if (!rec) return t;
  return rec.finish(t.detach(), [message](autograd::FunctionNode&, const autograd::tensor_list&) -> autograd::tensor_list {
    throw Error(message);
  });
}

// PyTorch's scatter_reduce_backward: the gradients of self and src, given the output gradient and the
// forward's inputs and result.
autograd::tensor_list scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& index,
                                              const Tensor& src, Reduction reduction, bool include_self,
                                              const Tensor& result) {
  Tensor grad_self, grad_src;
  switch (reduction) {
    case Reduction::Sum:
      grad_self = grad;
      grad_src = grad.gather(dim, index);
      break;
    case Reduction::Prod: {
      // Each factor's gradient is the product of the others. Dividing the product by the factor fails
      // for zeros: self's zeros are replaced by one in a second product, and a src zero that is alone
      // at its position gets the product with it replaced by one.
      const Tensor masked_self = self.masked_fill(self == 0, 1);
      const Tensor masked_self_result = masked_self.scatter_reduce(dim, index, src, "prod", include_self);
      grad_self = grad * masked_self_result / masked_self;
      const Tensor src_zero = src == 0;
      const Tensor src_num_zeros =
          zeros_like(self).scatter_add(dim, index, src_zero.to(self.dtype())).gather(dim, index);
      const Tensor src_single_zero = src_zero.bitwise_and(src_num_zeros == 1);
      const Tensor masked_src = src.masked_fill(src_single_zero, 1);
      const Tensor masked_src_result = self.scatter_reduce(dim, index, masked_src, "prod", include_self);
      grad_src = (grad * masked_src_result)
                     .gather(dim, index)
                     .where(src_single_zero, (grad * result).gather(dim, index) / src.masked_fill(src_zero, 1));
      // With several zeros at one position this gradient is zero whatever the values, so its own
      // gradient is refused, as PyTorch does. Only a graph being built can reach it: the read-back
      // happens only then.
      if (autograd::GradMode::is_enabled() && (src_num_zeros > 1).any().item<bool>()) {
        grad_src = delayed_error(grad_src,
                                 "scatter_reduce(): Double backward is unsupported for src when >1 zeros in src are "
                                 "scattered to the same position in self");
      }
      break;
    }
    case Reduction::Mean: {
      Tensor count = include_self ? ones_like(grad) : zeros_like(grad);
      count = count.scatter_add(dim, index, ones_like(src));
      count.masked_fill_(count == 0, 1);
      grad_self = grad / count;
      grad_src = grad.gather(dim, index) / count.gather(dim, index);
      break;
    }
    case Reduction::Amax:
    case Reduction::Amin: {
      // Every value equal to the result shares its gradient evenly.
      const Tensor value = result.gather(dim, index);
      const Tensor self_is_result = self == result;
      const Tensor src_is_result = src == value;
      const Tensor ties = self_is_result.to(self.dtype()).scatter_add(dim, index, src_is_result.to(self.dtype()));
      const Tensor grad_distributed = grad / ties;
      grad_self = self_is_result * grad_distributed;
      grad_src = src_is_result * grad_distributed.gather(dim, index);
      break;
    }
  }
  if (!include_self) {
    grad_self = grad_self.masked_fill(zeros_like(grad_self, TensorOptions().dtype(DType::Bool)).scatter(dim, index, true), 0);
  }
  return {grad_self, grad_src};
}

// index_reduce's checks of the index and source, in PyTorch's order and with its messages, for a wrapped
// dim.
void check_index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  if (index.dim() > 1) {
    throw IndexError("index_reduce_(): Index is supposed to be a vector, but got dim: " + std::to_string(index.dim()) +
                     " with type: " + scalar_type_name(index.dtype()) + " and size: " + to_string(index.sizes()));
  }
  if (index.dtype() != DType::Int64 && index.dtype() != DType::Int32) {
    throw Error("index_reduce_(): Expected dtype int32/int64 for index but got: " + scalar_type_name(index.dtype()));
  }
  if (source.dtype() != self.dtype()) {
    throw Error("index_reduce_(): self (" + scalar_type_name(self.dtype()) + ") and source (" +
                scalar_type_name(source.dtype()) + ") must have the same scalar type");
  }
  if (dim != 0 && dim >= source.dim()) {
    throw Error("index_reduce_(): Indexing dim " + std::to_string(dim) +
                " is out of bounds of the source tensor with dim " + std::to_string(source.dim()));
  }
  const int64_t source_size = source.dim() == 0 ? 1 : source.size(dim);
  if (index.numel() != source_size) {
    throw Error("index_reduce_(): Number of indices (" + std::to_string(index.numel()) +
                ") should be equal to source.size(dim): (" + std::to_string(source_size) + "), for dim: " +
                std::to_string(dim));
  }
  detail::check_same_device({&self, &index, &source});
}

// `sizes` without dim `dim` (none for a 0-dim tensor's).
std::vector<int64_t> slice_sizes(IntArrayRef sizes, int64_t dim) {
  std::vector<int64_t> slice = sizes.vec();
  if (!slice.empty()) slice.erase(slice.begin() + dim);
  return slice;
}

// index_reduce as a scatter_reduce: PyTorch reduces source's slice i into self's slice index[i],
// broadcasting the former to the latter. So source is spread over [n, self's slice] (its indexed dim
// first, then ones before its own slice, as right-aligned broadcasting wants), then moved to `dim`; the
// index is spread along `dim` to the same sizes.
struct IndexReduceOperands {
  int64_t dim = 0;                   // wrapped
  std::vector<int64_t> front_sizes;  // [n, self's slice]
  Tensor index;                      // spread: self's sizes (at least one dim) with n at dim
};

// source spread as above, by views only, so that a gradient recorded through it reaches source.
Tensor spread(const Tensor& source, int64_t dim, IntArrayRef front_sizes) {
  Tensor aligned = source.dim() == 0 ? source.reshape({1}) : source.movedim(dim, 0);
  while (aligned.dim() < static_cast<int64_t>(front_sizes.size())) aligned = aligned.unsqueeze(1);
  return aligned.expand(front_sizes).movedim(0, dim);
}

// The gradient of the spread source back to source's sizes: sums over what the spread broadcast.
Tensor unspread(const Tensor& grad, int64_t dim, IntArrayRef source_sizes) {
  const Tensor front = grad.movedim(dim, 0);
  std::vector<int64_t> source_front = slice_sizes(source_sizes, dim);
  source_front.insert(source_front.begin(), front.size(0));
  std::vector<int64_t> aligned = source_front;
  aligned.insert(aligned.begin() + 1, front.dim() - static_cast<int64_t>(source_front.size()), 1);
  const Tensor summed = autograd::sum_to(front, aligned).reshape(source_front);
  return source_sizes.empty() ? summed.reshape({}) : summed.movedim(0, dim);
}

// index_reduce's checks, in PyTorch's order and with its messages (the index's bounds last but one: a
// read-back), and its operands.
IndexReduceOperands checked_index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                                         std::string_view reduce, bool include_self) {
  if (reduce != "prod" && reduce != "mean" && reduce != "amax" && reduce != "amin") {
    throw Error("index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got " +
                std::string(reduce) + ".");
  }
  dim = wrap_dim(dim, self.dim());
  check_index_reduce(self, dim, index, source);
  if (!include_self && self.dtype() == DType::Bool) {
    throw Error("\"index_reduce_func_exclude_input_init\" not implemented for 'Bool'");
  }
  const std::vector<int64_t> self_slice = slice_sizes(detail::at_least_1d(self).sizes(), dim);
  const std::vector<int64_t> slice = broadcast_shapes(self_slice, slice_sizes(source.sizes(), dim));
  if (!(IntArrayRef(slice) == IntArrayRef(self_slice))) {
    throw Error("output with shape " + to_string(self_slice) + " doesn't match the broadcast shape " +
                to_string(slice));
  }
  // Unlike scatter's, negative indices are out of range.
  if (detail::breaks_bounds(detail::index_range(index), detail::at_least_1d(self).size(dim), false)) {
    throw IndexError("index out of range in self");
  }
  if (reduce == "mean" && self.dtype() == DType::Bool) throw Error("\"div_floor_cpu\" not implemented for 'Bool'");
  std::vector<int64_t> front_sizes = {index.numel()};
  front_sizes.insert(front_sizes.end(), self_slice.begin(), self_slice.end());
  std::vector<int64_t> spread_sizes(front_sizes.begin() + 1, front_sizes.end());
  spread_sizes.insert(spread_sizes.begin() + dim, index.numel());
  const Tensor spread_index = detail::along_dim(index.to(DType::Int64), dim, front_sizes.size()).expand(spread_sizes);
  return {dim, front_sizes, spread_index};
}

// Reduces source, spread, into target (self or its copy).
void apply_index_reduce(Tensor& target, const IndexReduceOperands& operands, const Tensor& source,
                        std::string_view reduce, bool include_self) {
  detail::TrustedIndices trusted;
  Tensor target_1d = detail::at_least_1d(target);
  scatter_reduce_into(target_1d, operands.dim, operands.index, spread(source, operands.dim, operands.front_sizes),
                      reduce, include_self);
}

}  // namespace

Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                              bool include_self) const {
  autograd::Record rec("ScatterReduceBackward0", {this, &src});
  Tensor out = clone();
  scatter_reduce_into(out, dim, index, src, reduce, include_self);
  if (!rec) return out;
  rec.save(*this);
  rec.save(index);
  rec.save(src);
  rec.save_output(out);
  return rec.finish(out, [dim = wrap_dim(dim, this->dim()), reduction = parse_reduction(reduce), include_self](
                             autograd::FunctionNode& node, const autograd::tensor_list& g) {
    detail::TrustedIndices trusted;
    autograd::tensor_list grads = scatter_reduce_backward(g[0], node.saved(0), dim, node.saved(1), node.saved(2),
                                                          reduction, include_self, node.saved(3));
    if (!node.needs_input_grad(0)) grads[0] = Tensor();
    if (!node.needs_input_grad(1)) grads[1] = Tensor();
    return grads;
  });
}

Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                                bool include_self) {
  if (autograd::inplace_needs_record(*this, {&src})) {
    return autograd::record_inplace(
        *this, [&](const Tensor& old) { return old.scatter_reduce(dim, index, src, reduce, include_self); });
  }
  return scatter_reduce_into(*this, dim, index, src, reduce, include_self);
}

Tensor Tensor::index_reduce(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                            bool include_self) const {
  autograd::Record rec("IndexReduceBackward0", {this, &source});
  const IndexReduceOperands operands = checked_index_reduce(*this, dim, index, source, reduce, include_self);
  Tensor out = clone();
  apply_index_reduce(out, operands, source, reduce, include_self);
  if (!rec) return out;
  rec.save(*this);
  rec.save(operands.index);
  rec.save(source);
  rec.save_output(out);
  // The spread index is saved with the node, so the backward captures only the sizes.
  return rec.finish(out, [dim = operands.dim, front_sizes = operands.front_sizes,
                          reduction = parse_reduction(reduce), include_self](autograd::FunctionNode& node,
                                                                             const autograd::tensor_list& g) {
    detail::TrustedIndices trusted;
    const Tensor self = node.saved(0), source = node.saved(2);
    // The source is spread again from the saved one, so that under create_graph its gradient reaches it.
    const Tensor spread_source = spread(source, dim, front_sizes);
    autograd::tensor_list grads =
        scatter_reduce_backward(detail::at_least_1d(g[0]), detail::at_least_1d(self), dim, node.saved(1),
                                spread_source, reduction, include_self, detail::at_least_1d(node.saved(3)));
    grads[0] = node.needs_input_grad(0) ? grads[0].reshape(self.sizes()) : Tensor();
    grads[1] = node.needs_input_grad(1) ? unspread(grads[1], dim, source.sizes()) : Tensor();
    return grads;
  });
}

Tensor& Tensor::index_reduce_(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                              bool include_self) {
  if (autograd::inplace_needs_record(*this, {&source})) {
    return autograd::record_inplace(
        *this, [&](const Tensor& old) { return old.index_reduce(dim, index, source, reduce, include_self); });
  }
  apply_index_reduce(*this, checked_index_reduce(*this, dim, index, source, reduce, include_self), source, reduce,
                     include_self);
  return *this;
}

Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) const {
  autograd::Record rec("torch::autograd::NotImplemented", {this, &src});
  Tensor out = clone().scatter_(dim, index, src, reduce);
  return rec ? rec.finish(out, autograd::not_implemented_backward("scatter")) : out;
}

Tensor Tensor::scatter(int64_t dim, const Tensor& index, Scalar value, std::string_view reduce) const {
  autograd::Record rec("torch::autograd::NotImplemented", {this});
  Tensor out = clone().scatter_(dim, index, value, reduce);
  return rec ? rec.finish(out, autograd::not_implemented_backward("scatter")) : out;
}

Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  if (autograd::inplace_needs_record(*this, {&src})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) { return old.scatter(dim, index, src, reduce); });
  }
  dim = wrap_dim(dim, this->dim());
  detail::check_scatter_args(*this, dim, index, &src);
  return detail::scatter_checked(*this, parse_scatter_reduce(reduce), dim, index, &src, std::nullopt);
}

Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, Scalar value, std::string_view reduce) {
  if (autograd::inplace_needs_record(*this, {})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) { return old.scatter(dim, index, value, reduce); });
  }
  dim = wrap_dim(dim, this->dim());
  detail::check_scatter_args(*this, dim, index, nullptr);
  return detail::scatter_checked(*this, parse_scatter_reduce(reduce), dim, index, nullptr, value);
}

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                      bool include_self) {
  return self.scatter_reduce(dim, index, src, reduce, include_self);
}
Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                    bool include_self) {
  return self.index_reduce(dim, index, source, reduce, include_self);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  return self.scatter(dim, index, src, reduce);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, Scalar value, std::string_view reduce) {
  return self.scatter(dim, index, value, reduce);
}

}  // namespace ember
