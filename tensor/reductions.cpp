// Reductions and scans: which dims reduce (wrapped, deduplicated, none listed = all), the result dtype
// (PyTorch's: integral sums widen to int64, mean needs a floating dtype, all/any give bool), PyTorch's
// errors for empty inputs, and one ReduceKernels::reduce or ::scan call. The kernel writes a contiguous
// result holding the kept dims in order; keepdim is a view of it with the reduced dims as size 1.
// softmax, log_softmax are composed of amax, sub, exp, sum and log. Each differentiable op records one
// node named as PyTorch's (SumBackward1, MaxBackward0, ...); the formulas follow the kernels' section.
#include <cmath>
#include <limits>

#include "runtime/kernels/norm.h"
#include "runtime/kernels/reduce.h"
#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "tensor/autocast.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

using detail::wrap_dim;

struct ReductionDims {
  uint32_t mask = 0;
  std::vector<int64_t> kept;     // the kernel's output sizes: the dims that remain
  std::vector<int64_t> keepdim;  // the same with reduced dims as size 1
  std::vector<int64_t> listed;   // the reduced dims, wrapped, in the order given (all dims: 0..n-1)
};

// `dims` empty reduces every dim, as PyTorch's dim=[] does.
ReductionDims reduction_dims(const Tensor& x, IntArrayRef dims) {
  ReductionDims rd;
  const int64_t ndim = x.dim();
  std::vector<bool> reduce(ndim, dims.empty());
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, ndim);
    if (ndim == 0) continue;  // a 0-dim tensor takes dim 0 or -1 and reduces its one element
    if (reduce[w]) throw Error("dim " + std::to_string(w) + " appears multiple times in the list of dims");
    reduce[w] = true;
    rd.listed.push_back(w);
  }
  for (int64_t d = 0; d < ndim; ++d) {
    if (reduce[d]) {
      rd.mask |= 1u << d;
      if (dims.empty()) rd.listed.push_back(d);
      rd.keepdim.push_back(1);
    } else {
      rd.kept.push_back(x.size(d));
      rd.keepdim.push_back(x.size(d));
    }
  }
  return rd;
}

ReductionDims one_dim(const Tensor& x, int64_t dim) { return reduction_dims(x, IntArrayRef(dim)); }

int64_t reduced_numel(const Tensor& x, const ReductionDims& rd) {
  int64_t n = 1;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (rd.mask & (1u << d)) n *= x.size(d);
  }
  return n;
}

struct Reduced {
  Tensor values, indices;
};

// One reduce launch. `out_dtype` empty: indices only (argmax, argmin).
Reduced run_reduce(ReduceOp op, const Tensor& x, const ReductionDims& rd, bool keepdim,
                   std::optional<DType> out_dtype, DType compute, bool with_indices, double param = 0) {
  const auto& device = x.device();
  // Kernels load and store float64 only when they compute in float64; an integral result of a float64
  // input (sum(dtype=int32)) converts the input first, as PyTorch does.
  if (compute != DType::Float64 && (x.dtype() == DType::Float64 || out_dtype == DType::Float64)) {
    if (is_floating_point(compute)) {
      compute = DType::Float64;
    } else if (x.dtype() == DType::Float64) {
      return run_reduce(op, x.to(compute), rd, keepdim, out_dtype, compute, with_indices, param);
    }
  }
  Reduced r;
  if (out_dtype) r.values = detail::empty_on(rd.kept, *out_dtype, device);
  if (with_indices) r.indices = detail::empty_on(rd.kept, DType::Int64, device);
  const int64_t outputs = detail::product(rd.kept);
  if (outputs > 0) {
    if (reduced_numel(x, rd) == 0 && op == ReduceOp::Norm) {
      r.values.fill_(0);  // every p-norm of nothing is 0; the kernel knows no identity for inf-norms
    } else {
      ReduceArgs args{.op = op, .in = x.ref(), .reduce_mask = rd.mask, .compute = compute};
      if (r.values.defined()) args.out = r.values.ref();
      if (r.indices.defined()) args.indices = r.indices.ref();
      // `param` is Var's and Std's correction, or Norm's p.
      args.correction = args.p = param;
      detail::kernels_for<ReduceKernels>(*device).reduce(*detail::stream_for(*device), args);
    }
  }
  if (keepdim) {
    if (r.values.defined()) r.values = r.values.view(rd.keepdim);
    if (r.indices.defined()) r.indices = r.indices.view(rd.keepdim);
  }
  return r;
}

Tensor reduce_values(ReduceOp op, const Tensor& x, const ReductionDims& rd, bool keepdim, DType out_dtype,
                     DType compute, double param = 0) {
  return run_reduce(op, x, rd, keepdim, out_dtype, compute, false, param).values;
}

bool integral_or_bool(DType dtype) { return !is_floating_point(dtype); }

// sum and prod: integral and bool inputs accumulate into int64 unless a dtype is given.
DType widened_dtype(const Tensor& x, std::optional<DType> dtype) {
  if (dtype) return *dtype;
  return integral_or_bool(x.dtype()) ? DType::Int64 : x.dtype();
}

DType mean_dtype(const Tensor& x, std::optional<DType> dtype) {
  if (dtype) {
    if (!is_floating_point(*dtype)) {
      throw Error("mean(): could not infer output dtype. Optional dtype must be either a floating point or "
                  "complex dtype. Got: " + scalar_type_name(*dtype));
    }
    return *dtype;
  }
  if (!x.is_floating_point()) {
    throw Error("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                "complex dtype. Got: " + scalar_type_name(x.dtype()));
  }
  return x.dtype();
}

// PyTorch's errors for max/min-like reductions that have no identity.
void check_nonempty_all(const Tensor& x, const char* name) {
  if (x.numel() == 0) {
    throw Error(std::string(name) + "(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument.");
  }
}

void check_nonempty_dims(const Tensor& x, const ReductionDims& rd, const char* name) {
  for (int64_t d : rd.listed) {
    if (x.size(d) == 0) {
      throw IndexError(std::string(name) + "(): Expected reduction dim " + std::to_string(d) +
                       " to have non-zero size.");
    }
  }
}

void check_floating(const Tensor& x, const std::string& message) {
  if (!x.is_floating_point()) throw Error(message);
}

// ---- backward formulas ----
// They use the public ops, so under create_graph they record their own graph, and none reads a value
// back to the host (the engine must not synchronise). Ties and zeros are told apart with masks.

// `g` (a reduction's output gradient) with the reduced dims as size 1, so it broadcasts over the input.
Tensor unreduced(const Tensor& g, IntArrayRef keepdim_sizes) { return g.reshape(keepdim_sizes); }

// num / den, and 0 where den is 0 (a zero norm or std has subgradient 0, as in PyTorch). The division
// never sees a zero, so no NaN reaches a higher-order gradient through the unselected branch.
Tensor div_or_zero(const Tensor& num, const Tensor& den) {
  const Tensor zero = den.eq(0);
  return where(zero, 0, num / where(zero, 1, den));
}

// The gradient of an extreme value (max, amax, the inf-norms) split evenly among the elements that
// attain it, as PyTorch does.
Tensor evenly_to_ties(const Tensor& g_kept, const Tensor& attains, IntArrayRef dims) {
  return g_kept / attains.sum(dims, /*keepdim=*/true) * attains;
}

// max(dim)/min(dim): the whole gradient goes to the element at the saved index, through a one-hot mask
// (positions along `dim` compared with the index) rather than a scatter, which would check the indices
// on the host. No `dim`: a 0-dim input, whose one element takes it all.
Tensor to_index(const Tensor& g, const Tensor& indices, IntArrayRef sizes, IntArrayRef keepdim_sizes,
                std::optional<int64_t> dim) {
  if (!dim) return g;
  std::vector<int64_t> along(sizes.size(), 1);
  along[*dim] = sizes[*dim];
  const Tensor positions = arange(sizes[*dim], TensorOptions(DType::Int64).device(g.device())).view(along);
  return positions.eq(unreduced(indices, keepdim_sizes)) * unreduced(g, keepdim_sizes);
}

// prod's gradient, exact at zeros: the product of the other elements of a reduced group is out / x where
// x != 0 (which keeps its derivative in a zero through out); for the one zero of a group that has
// exactly one, the product of the group's nonzero elements; 0 otherwise. Second order is exact for
// groups with at most one zero (the cross term of two zeros is not reproduced).
Tensor prod_backward(const Tensor& g, const Tensor& x, const Tensor& out, std::optional<int64_t> dim,
                     IntArrayRef keepdim_sizes) {
  const Tensor is_zero = x.eq(0);
  const IntArrayRef dims = dim ? IntArrayRef(*dim) : IntArrayRef{};
  const Tensor x_safe = where(is_zero, 1, x);
  const Tensor nonzero_prod = dim ? x_safe.prod(*dim, true) : x_safe.prod().reshape(keepdim_sizes);
  const Tensor single_zero = is_zero.sum(dims, true).eq(1);
  const Tensor others = where(is_zero, where(single_zero, nonzero_prod, 0), unreduced(out, keepdim_sizes) / x_safe);
  return unreduced(g, keepdim_sizes) * others;
}

// `t` reversed along `dim`. The descending positions are in range by construction, so the gather
// skips the bounds check (which would wait on the device).
Tensor flip_dim(const Tensor& t, int64_t dim) {
  if (t.dim() == 0) return t;
  const Tensor descending = arange(t.size(dim) - 1, -1, -1, TensorOptions().dtype(DType::Int64).device(t.device()));
  detail::TrustedIndices trusted;
  return t.index_select(dim, descending);
}

// sum_{j >= i} t_j along `dim`: a cumsum of the reversed tensor, exact where total - cumsum would cancel.
Tensor reverse_cumsum(const Tensor& t, int64_t dim) { return flip_dim(flip_dim(t, dim).cumsum(dim), dim); }

// cumprod's gradient: d out_j / d x_i is the product of x_k for k <= j, k != i. Before a row's first zero
// that sums to reverse_cumsum(g out)_i / x_i. From the first zero z on, it is written with y', the
// cumprod with x_z taken as 1: at z, reverse_cumsum(g y')_z; after z, x_z reverse_cumsum(g y')_i / x_i,
// which is 0 but keeps its derivative in x_z, so second order is exact for rows with at most one zero
// (a later zero's cross term with the first is not reproduced).
Tensor cumprod_backward(const Tensor& g, const Tensor& x, const Tensor& out, int64_t dim) {
  const Tensor is_zero = x.eq(0);
  const Tensor zeros_so_far = is_zero.cumsum(dim);
  const Tensor first_zero = is_zero.logical_and(zeros_so_far.eq(1));
  const Tensor x_safe = where(is_zero, 1, x);
  const Tensor before = reverse_cumsum(g * out, dim) / x_safe;
  const Tensor from_first = reverse_cumsum(g * where(first_zero, 1, x).cumprod(dim), dim);
  const Tensor first_value = where(first_zero, x, 0).sum(IntArrayRef(dim), true);
  return where(zeros_so_far.eq(0), before, where(first_zero, from_first, first_value * from_first / x_safe));
}

Tensor extreme(ReduceOp op, const char* name, const char* node_name, const Tensor& x, IntArrayRef dims,
               bool keepdim) {
  const ReductionDims rd = reduction_dims(x, dims);
  if (dims.empty()) check_nonempty_all(x, name);
  check_nonempty_dims(x, rd, name);
  autograd::Record rec(node_name, {&x});
  Tensor out = reduce_values(op, x, rd, keepdim, x.dtype(), x.dtype());
  if (!rec) return out;
  rec.save(x);
  rec.save_output(out);
  return rec.finish(out, [kept = rd.keepdim, dims = rd.listed](autograd::FunctionNode& node,
                                                              const autograd::tensor_list& g) {
    const Tensor attains = node.saved(0).eq(unreduced(node.saved(1), kept));
    return autograd::tensor_list{evenly_to_ties(unreduced(g[0], kept), attains, dims)};
  });
}

// max(dim), min(dim): the gradient goes to the element the index names; the indices have none.
std::tuple<Tensor, Tensor> max_min_dim(ReduceOp op, const char* name, const char* node_name, const Tensor& x,
                                       int64_t dim, bool keepdim) {
  const ReductionDims rd = one_dim(x, dim);
  check_nonempty_dims(x, rd, name);
  autograd::Record rec(node_name, {&x});
  Reduced r = run_reduce(op, x, rd, keepdim, x.dtype(), x.dtype(), true);
  if (!rec) return {r.values, r.indices};
  rec.save_output(r.indices, 1);
  // A 0-dim input lists no dim: its one element takes the whole gradient.
  const std::optional<int64_t> along = rd.listed.empty() ? std::nullopt : std::optional<int64_t>(rd.listed[0]);
  autograd::tensor_list outs = rec.finish(
      {r.values, r.indices}, [sizes = x.sizes().vec(), kept = rd.keepdim, along](autograd::FunctionNode& node,
                                                                                const autograd::tensor_list& g) {
        return autograd::tensor_list{to_index(g[0], node.saved(0), sizes, kept, along)};
      });
  return {outs[0], outs[1]};
}

Tensor arg_reduce(ReduceOp op, const char* name, const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  ReductionDims rd;
  if (dim) {
    rd = one_dim(x, *dim);
    check_nonempty_dims(x, rd, name);
  } else {
    if (x.numel() == 0) {
      throw IndexError(std::string(name) + "(): Expected reduction dim to be specified for input.numel() == 0.");
    }
    rd = reduction_dims(x, {});
  }
  if (x.dtype() == DType::Bool) {
    // PyTorch has no bool kernel, and runs it only where there is something to compare: not over a dim
    // of size 1 (the indices are zeros) nor into an empty result.
    const bool trivial = dim && x.dim() > 0 && (x.size(wrap_dim(*dim, x.dim())) == 1 || x.numel() == 0);
    if (!trivial) throw Error("\"" + std::string(name) + "_cpu\" not implemented for 'Bool'");
    return run_reduce(op, x.to(DType::UInt8), rd, keepdim, std::nullopt, DType::UInt8, true).indices;
  }
  return run_reduce(op, x, rd, keepdim, std::nullopt, x.dtype(), true).indices;
}

Tensor var_std(ReduceOp op, const Tensor& x, IntArrayRef dims, int64_t correction, bool keepdim) {
  check_floating(x, "std and var only support floating point and complex dtypes");
  const ReductionDims rd = reduction_dims(x, dims);
  const bool is_std = op == ReduceOp::Std;
  autograd::Record rec(is_std ? "StdBackward0" : "VarBackward0", {&x});
  Tensor out = reduce_values(op, x, rd, keepdim, x.dtype(), x.dtype(), static_cast<double>(correction));
  if (!rec) return out;
  rec.save(x);
  if (is_std) rec.save_output(out);
  const double divisor = static_cast<double>(reduced_numel(x, rd) - correction);
  return rec.finish(out, [is_std, divisor, kept = rd.keepdim, dims = rd.listed](autograd::FunctionNode& node,
                                                                               const autograd::tensor_list& g) {
    // d var / dx = 2 (x - mean) / (N - correction); std = sqrt(var) adds 1 / (2 std), 0 where std is 0.
    Tensor grad = unreduced(g[0], kept);
    if (is_std) grad = div_or_zero(grad, unreduced(node.saved(1), kept) * 2);
    const Tensor x = node.saved(0);
    return autograd::tensor_list{grad * (2.0 / divisor) * (x - x.mean(dims, true))};
  });
}

Tensor all_any(ReduceOp op, const Tensor& x, const ReductionDims& rd, bool keepdim) {
  // The kernel writes bool; uint8 inputs give uint8, as in PyTorch.
  const Tensor result = reduce_values(op, x, rd, keepdim, DType::Bool, x.dtype());
  return x.dtype() == DType::UInt8 ? result.to(DType::UInt8) : result;
}

// `indices` (cummax, cummin) receives where each running extreme was found, as int64.
Tensor scan(ScanOp op, const char* name, const Tensor& x, int64_t dim, std::optional<DType> dtype,
            Tensor* indices = nullptr) {
  wrap_dim(dim, x.dim());
  if (dtype == DType::Bool) throw Error("\"" + std::string(name) + "_out_cpu\" not implemented for 'Bool'");
  const DType out_dtype = widened_dtype(x, dtype);
  Tensor out = detail::empty_on(x.sizes(), out_dtype, x.device());
  if (indices) *indices = detail::empty_on(x.sizes(), DType::Int64, x.device());
  if (x.numel() == 0) return out;
  // A 0-dim tensor scans as one element. Float64 loads and stores need float64 compute (see run_reduce).
  Tensor in = x.dim() == 0 ? x.reshape({1}) : x;
  DType compute = out_dtype;
  if (in.dtype() == DType::Float64 && compute != DType::Float64) {
    if (is_floating_point(compute)) {
      compute = DType::Float64;
    } else {
      in = in.to(compute);
    }
  }
  const Tensor target = x.dim() == 0 ? out.reshape({1}) : out;
  ScanArgs args{.op = op, .out = target.ref(), .in = in.ref(), .dim = static_cast<int>(wrap_dim(dim, in.dim())),
                .compute = compute};
  if (indices) args.indices = (x.dim() == 0 ? indices->reshape({1}) : *indices).ref();
  detail::kernels_for<ReduceKernels>(*x.device()).scan(*detail::stream_for(*x.device()), args);
  return out;
}

// softmax and log_softmax take floating inputs (or a floating dtype to convert to first); PyTorch's
// kernel, which checks the dtype, is not reached for an empty input. float16 and bfloat16 compute in
// float32 and round once at the end, as PyTorch's accumulation type does.
Tensor softmax_input(const Tensor& x, int64_t dim, std::optional<DType> dtype, const char* name) {
  const int64_t d = wrap_dim(dim, x.dim());
  const Tensor in = dtype ? x.to(*dtype) : x;
  if (!in.is_floating_point() && in.numel() > 0) {
    const bool last = x.dim() == 0 || d == x.dim() - 1;
    throw Error("\"" + std::string(name) + (last ? "_lastdim_kernel_impl" : "_kernel_impl") +
                "\" not implemented for '" + scalar_type_name(in.dtype()) + "'");
  }
  return in;
}

DType softmax_compute(DType dtype) {
  return dtype == DType::Float16 || dtype == DType::BFloat16 ? DType::Float32 : dtype;
}

// The length of the rows along `dim` when the norm family's softmax row kernel takes them: `dim` is the
// last one and its rows are no longer than the kernel's limit; 0 otherwise.
int64_t softmax_row_length(const Tensor& t, int64_t dim) {
  const int64_t length = t.dim() == 0 ? 1 : t.size(dim);
  const bool last = t.dim() == 0 || wrap_dim(dim, t.dim()) == t.dim() - 1;
  return last && length <= SoftmaxArgs::kMaxLength ? length : 0;
}

// Softmax (or log-softmax) of a floating, non-empty `in` along `dim`: along the last dim, the norm
// family's row kernel, one launch where the composition below takes five (on lavapipe, 12 against 30 ms
// over 4096 × 1000); along another dim, or over rows longer than the kernel takes, that composition.
Tensor softmax_of(const Tensor& in, int64_t dim, bool log) {
  if (const int64_t length = softmax_row_length(in, dim); length > 0) {
    const Tensor x = in.contiguous();
    Tensor out = empty_like(x);
    detail::kernels_for<NormKernels>(*x.device())
        .softmax(*detail::stream_for(*x.device()),
                 {.out = out.ref(), .in = x.ref(), .rows = x.numel() / length, .length = length, .log = log});
    return out;
  }
  const Tensor x = in.to(softmax_compute(in.dtype()));
  const Tensor shifted = x.sub(x.amax(IntArrayRef(dim), true));
  if (log) return shifted.sub(shifted.exp().sum(IntArrayRef(dim), true).log()).to(in.dtype());
  const Tensor shifted_exp = shifted.exp();
  return shifted_exp.div(shifted_exp.sum(IntArrayRef(dim), true)).to(in.dtype());
}

// The gradient of softmax (or log-softmax) from its output y: the norm family's row kernel along the last
// dim, else y (g - Σ g y) (or g - exp(y) Σ g) composed, which is also what records under create_graph.
Tensor softmax_backward_of(const Tensor& g, const Tensor& y, int64_t dim, bool log) {
  const int64_t length = softmax_row_length(y, dim);
  if (!autograd::GradMode::is_enabled() && y.numel() > 0 && g.dtype() == y.dtype() && length > 0) {
    const Tensor out = y.contiguous(), grad_out = g.contiguous();
    Tensor grad_in = empty_like(out);
    detail::kernels_for<NormKernels>(*out.device())
        .softmax_backward(*detail::stream_for(*out.device()),
                          {.grad_in = grad_in.ref(), .grad_out = grad_out.ref(), .out = out.ref(),
                           .rows = out.numel() / length, .length = length, .log = log});
    return grad_in;
  }
  if (log) return g - y.exp() * g.sum(IntArrayRef(dim), true);
  return (g - (g * y).sum(IntArrayRef(dim), true)) * y;
}

// norm's gradient for each p (PyTorch's subgradients: 0 where the norm is 0, and for p = 0).
Tensor norm_backward(const Tensor& g, const Tensor& x, const Tensor& out, double p, IntArrayRef kept,
                     IntArrayRef dims) {
  const Tensor g_kept = unreduced(g, kept);
  const Tensor norm = unreduced(out, kept);
  if (p == 0) return Tensor();
  if (p == 1) return g_kept * x.sign();
  if (p == 2) return g_kept * div_or_zero(x, norm);
  if (std::isinf(p)) return evenly_to_ties(g_kept, x.abs().eq(norm), dims) * x.sign();
  // d/dx_i (sum |x|^p)^(1/p) = x_i |x_i|^(p-2) / norm^(p-1).
  return x * x.abs().pow(p - 2) * div_or_zero(g_kept, norm.pow(p - 1));
}

Tensor norm_of(const Tensor& x, Scalar p, IntArrayRef dims, bool keepdim, const char* node_name) {
  check_floating(x, "norm(): input dtype should be either floating point or complex. Got " + scalar_type_name(x.dtype()) +
                        " instead.");
  const ReductionDims rd = reduction_dims(x, dims);
  autograd::Record rec(node_name, {&x});
  Tensor out = reduce_values(ReduceOp::Norm, x, rd, keepdim, x.dtype(), x.dtype(), p.to_double());
  if (!rec) return out;
  rec.save(x);
  rec.save_output(out);
  return rec.finish(out, [p = p.to_double(), kept = rd.keepdim, dims = rd.listed](autograd::FunctionNode& node,
                                                                                const autograd::tensor_list& g) {
    return autograd::tensor_list{norm_backward(g[0], node.saved(0), node.saved(1), p, kept, dims)};
  });
}

}  // namespace


// ---- sums and means ----
Tensor Tensor::sum(std::optional<DType> dtype) const { return sum({}, false, dtype); }

Tensor Tensor::sum(IntArrayRef dims, bool keepdim, std::optional<DType> dtype) const {
  if (autocast::is_active()) {
    return autocast::suspended([&] { return sum(dims, keepdim, autocast::float32_dtype(*this, dtype)); });
  }
  autograd::Record rec(dims.empty() ? "SumBackward0" : "SumBackward1", {this});
  const DType out = widened_dtype(*this, dtype);
  const ReductionDims reduced = reduction_dims(*this, dims);
  Tensor result = reduce_values(ReduceOp::Sum, *this, reduced, keepdim, out, out);
  if (!rec) return result;
  return rec.finish(result, [sizes = sizes().vec(), kept = reduced.keepdim](autograd::FunctionNode&,
                                                                           const autograd::tensor_list& g) {
    return autograd::tensor_list{unreduced(g[0], kept).expand(sizes)};
  });
}

Tensor Tensor::nansum(IntArrayRef dims, bool keepdim) const {
  autograd::Record rec("NansumBackward0", {this});
  const DType out = widened_dtype(*this, std::nullopt);
  const ReductionDims reduced = reduction_dims(*this, dims);
  // Integers have no NaN: their nansum is the sum.
  const ReduceOp op = is_floating_point() ? ReduceOp::NanSum : ReduceOp::Sum;
  Tensor result = reduce_values(op, *this, reduced, keepdim, out, out);
  if (!rec) return result;
  rec.save(*this);
  return rec.finish(result, [kept = reduced.keepdim](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    return autograd::tensor_list{unreduced(g[0], kept) * node.saved(0).isnan().logical_not()};
  });
}

Tensor Tensor::mean(std::optional<DType> dtype) const { return mean({}, false, dtype); }

Tensor Tensor::mean(IntArrayRef dims, bool keepdim, std::optional<DType> dtype) const {
  const DType out = mean_dtype(*this, dtype);
  autograd::Record rec(dims.empty() ? "MeanBackward0" : "MeanBackward1", {this});
  const ReductionDims reduced = reduction_dims(*this, dims);
  Tensor result = reduce_values(ReduceOp::Mean, *this, reduced, keepdim, out, out);
  if (!rec) return result;
  return rec.finish(result, [sizes = sizes().vec(), kept = reduced.keepdim, n = reduced_numel(*this, reduced)](
                                autograd::FunctionNode&, const autograd::tensor_list& g) {
    return autograd::tensor_list{unreduced(g[0], kept).div(n).expand(sizes)};
  });
}

Tensor Tensor::nanmean(IntArrayRef dims, bool keepdim) const {
  check_floating(*this, "nanmean(): expected input to have floating point dtype but got " + scalar_type_name(dtype()));
  // PyTorch composes nanmean as nansum / (count of non-NaN), so its grad_fn is named DivBackward0.
  autograd::Record rec("DivBackward0", {this});
  const ReductionDims reduced = reduction_dims(*this, dims);
  Tensor result = reduce_values(ReduceOp::NanMean, *this, reduced, keepdim, dtype(), dtype());
  if (!rec) return result;
  rec.save(*this);
  return rec.finish(result, [kept = reduced.keepdim, dims = reduced.listed](autograd::FunctionNode& node,
                                                                           const autograd::tensor_list& g) {
    const Tensor counted = node.saved(0).isnan().logical_not();
    return autograd::tensor_list{unreduced(g[0], kept) / counted.sum(dims, true) * counted};
  });
}

Tensor Tensor::prod(std::optional<DType> dtype) const {
  if (autocast::is_active()) {
    return autocast::suspended([&] { return prod(autocast::float32_dtype(*this, dtype)); });
  }
  autograd::Record rec("ProdBackward0", {this});
  const DType out = widened_dtype(*this, dtype);
  const ReductionDims reduced = reduction_dims(*this, {});
  Tensor result = reduce_values(ReduceOp::Prod, *this, reduced, false, out, out);
  if (!rec) return result;
  rec.save(*this);
  rec.save_output(result);
  return rec.finish(result, [kept = reduced.keepdim](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    return autograd::tensor_list{prod_backward(g[0], node.saved(0), node.saved(1), std::nullopt, kept)};
  });
}

Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<DType> dtype) const {
  if (autocast::is_active()) {
    return autocast::suspended([&] { return prod(dim, keepdim, autocast::float32_dtype(*this, dtype)); });
  }
  autograd::Record rec("ProdBackward1", {this});
  const DType out = widened_dtype(*this, dtype);
  const ReductionDims reduced = one_dim(*this, dim);
  Tensor result = reduce_values(ReduceOp::Prod, *this, reduced, keepdim, out, out);
  if (!rec) return result;
  rec.save(*this);
  rec.save_output(result);
  // A 0-dim input reduces its one element, as the all-reduce does.
  const std::optional<int64_t> along = reduced.listed.empty() ? std::nullopt : std::optional<int64_t>(reduced.listed[0]);
  return rec.finish(result, [kept = reduced.keepdim, along](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    return autograd::tensor_list{prod_backward(g[0], node.saved(0), node.saved(1), along, kept)};
  });
}

// ---- extremes ----
Tensor Tensor::max() const { return extreme(ReduceOp::Amax, "max", "MaxBackward1", *this, {}, false); }
Tensor Tensor::min() const { return extreme(ReduceOp::Amin, "min", "MinBackward1", *this, {}, false); }

std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return max_min_dim(ReduceOp::Max, "max", "MaxBackward0", *this, dim, keepdim);
}

std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return max_min_dim(ReduceOp::Min, "min", "MinBackward0", *this, dim, keepdim);
}

Tensor Tensor::amax(IntArrayRef dims, bool keepdim) const {
  return extreme(ReduceOp::Amax, "amax", "AmaxBackward0", *this, dims, keepdim);
}

Tensor Tensor::amin(IntArrayRef dims, bool keepdim) const {
  return extreme(ReduceOp::Amin, "amin", "AminBackward0", *this, dims, keepdim);
}

Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return arg_reduce(ReduceOp::Argmax, "argmax", *this, dim, keepdim);
}

Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  return arg_reduce(ReduceOp::Argmin, "argmin", *this, dim, keepdim);
}

// ---- statistics and norms ----
Tensor Tensor::var(IntArrayRef dims, int64_t correction, bool keepdim) const {
  return var_std(ReduceOp::Var, *this, dims, correction, keepdim);
}

Tensor Tensor::std(IntArrayRef dims, int64_t correction, bool keepdim) const {
  return var_std(ReduceOp::Std, *this, dims, correction, keepdim);
}

namespace {

// torch.var_mean and std_mean: one node for both results (VarMeanBackward0, StdMeanBackward0), whose
// gradient is the sum of var's (std's) and mean's.
std::tuple<Tensor, Tensor> var_std_mean(ReduceOp op, const Tensor& x, IntArrayRef dims, int64_t correction,
                                        bool keepdim) {
  const bool is_std = op == ReduceOp::Std;
  check_floating(x, std::string(is_std ? "std_mean" : "var_mean") + " only support floating point and complex dtypes");
  const ReductionDims rd = reduction_dims(x, dims);
  autograd::Record rec(is_std ? "StdMeanBackward0" : "VarMeanBackward0", {&x});
  Tensor spread = reduce_values(op, x, rd, keepdim, x.dtype(), x.dtype(), static_cast<double>(correction));
  Tensor mean = reduce_values(ReduceOp::Mean, x, rd, keepdim, x.dtype(), x.dtype());
  if (!rec) return {spread, mean};
  // Where N <= correction the spread's factor is infinite, so an unused spread must add nothing, not 0 * inf.
  rec.leave_missing_grads_undefined();
  rec.save(x);
  if (is_std) rec.save_output(spread);
  const int64_t n = reduced_numel(x, rd);
  const autograd::tensor_list outs = rec.finish(
      autograd::tensor_list{spread, mean},
      [is_std, n, divisor = static_cast<double>(n - correction), kept = rd.keepdim, dims = rd.listed,
       sizes = x.sizes().vec()](autograd::FunctionNode& node, const autograd::tensor_list& g) {
        Tensor grad;
        if (g[0].defined()) {
          Tensor g_spread = unreduced(g[0], kept);
          if (is_std) g_spread = div_or_zero(g_spread, unreduced(node.saved(1), kept) * 2);
          const Tensor x = node.saved(0);
          grad = g_spread * (2.0 / divisor) * (x - x.mean(dims, true));
        }
        if (g.size() > 1 && g[1].defined()) {
          const Tensor g_mean = unreduced(g[1], kept).div(n).expand(sizes);
          grad = grad.defined() ? grad + g_mean : g_mean;
        }
        return autograd::tensor_list{grad};
      });
  return {outs[0], outs[1]};
}

}  // namespace

// LibTorch names norm(p) NormBackward0 and norm(p, dims) NormBackward1.
Tensor Tensor::norm(Scalar p) const {
  if (autocast::is_active()) return autocast::in_float32([p](const Tensor& x) { return x.norm(p); }, *this);
  return norm_of(*this, p, {}, false, "NormBackward0");
}

Tensor Tensor::norm(Scalar p, IntArrayRef dims, bool keepdim) const {
  if (autocast::is_active()) {
    return autocast::in_float32([&](const Tensor& x) { return x.norm(p, dims, keepdim); }, *this);
  }
  return norm_of(*this, p, dims, keepdim, "NormBackward1");
}

Tensor Tensor::logsumexp(IntArrayRef dims, bool keepdim) const {
  autograd::Record rec("LogsumexpBackward0", {this});
  // Integral inputs give the default float dtype.
  const DType out = is_floating_point() ? dtype() : get_default_dtype();
  const ReductionDims reduced = reduction_dims(*this, dims);
  Tensor result = reduce_values(ReduceOp::LogSumExp, *this, reduced, keepdim, out, out);
  if (!rec) return result;
  rec.save(*this);
  rec.save_output(result);
  return rec.finish(result, [kept = reduced.keepdim](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    // d/dx_i log sum exp(x) = exp(x_i - logsumexp(x)).
    return autograd::tensor_list{unreduced(g[0], kept) * (node.saved(0) - unreduced(node.saved(1), kept)).exp()};
  });
}

// ---- logic and counting ----
Tensor Tensor::all() const { return all_any(ReduceOp::All, *this, reduction_dims(*this, {}), false); }
Tensor Tensor::all(int64_t dim, bool keepdim) const {
  return all_any(ReduceOp::All, *this, one_dim(*this, dim), keepdim);
}
Tensor Tensor::any() const { return all_any(ReduceOp::Any, *this, reduction_dims(*this, {}), false); }
Tensor Tensor::any(int64_t dim, bool keepdim) const {
  return all_any(ReduceOp::Any, *this, one_dim(*this, dim), keepdim);
}

Tensor Tensor::count_nonzero(IntArrayRef dims) const {
  return reduce_values(ReduceOp::CountNonzero, *this, reduction_dims(*this, dims), false, DType::Int64,
                       dtype());
}

// ---- scans ----
Tensor Tensor::cumsum(int64_t dim, std::optional<DType> dtype) const {
  if (autocast::is_active()) {
    return autocast::suspended([&] { return cumsum(dim, autocast::float32_dtype(*this, dtype)); });
  }
  autograd::Record rec("CumsumBackward0", {this});
  Tensor out = scan(ScanOp::CumSum, "cumsum", *this, dim, dtype);
  if (!rec) return out;
  // Each input element reaches every output at or after it. A 0-dim input scans as one element.
  const std::optional<int64_t> along = this->dim() == 0 ? std::nullopt : std::optional<int64_t>(wrap_dim(dim, this->dim()));
  return rec.finish(out, [along](autograd::FunctionNode&, const autograd::tensor_list& g) {
    return autograd::tensor_list{along ? reverse_cumsum(g[0], *along) : g[0]};
  });
}

Tensor Tensor::cumprod(int64_t dim, std::optional<DType> dtype) const {
  if (autocast::is_active()) {
    return autocast::suspended([&] { return cumprod(dim, autocast::float32_dtype(*this, dtype)); });
  }
  autograd::Record rec("CumprodBackward0", {this});
  Tensor out = scan(ScanOp::CumProd, "cumprod", *this, dim, dtype);
  if (!rec) return out;
  rec.save(*this);
  rec.save_output(out);
  const std::optional<int64_t> along = this->dim() == 0 ? std::nullopt : std::optional<int64_t>(wrap_dim(dim, this->dim()));
  return rec.finish(out, [along](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    return autograd::tensor_list{along ? cumprod_backward(g[0], node.saved(0), node.saved(1), *along) : g[0]};
  });
}

namespace {

// cummax and cummin: the running extreme and where it was last reached; the gradient goes to that
// position.
std::tuple<Tensor, Tensor> running_extreme(ScanOp op, const char* name, const char* node, const Tensor& x,
                                           int64_t dim) {
  if (x.dtype() == DType::Bool) throw Error("\"" + std::string(name) + "_cpu\" not implemented for 'Bool'");
  autograd::Record rec(node, {&x});
  Tensor indices;
  Tensor values = scan(op, name, x, dim, x.dtype(), &indices);
  if (!rec) return {values, indices};
  rec.save(indices);
  const std::optional<int64_t> along = x.dim() == 0 ? std::nullopt : std::optional<int64_t>(wrap_dim(dim, x.dim()));
  values = rec.finish(values, [along](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    if (!along) return autograd::tensor_list{g[0]};
    return autograd::tensor_list{zeros_like(g[0]).scatter_add(*along, node.saved(0), g[0])};
  });
  return {values, indices};
}

}  // namespace

std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const {
  return running_extreme(ScanOp::CumMax, "cummax", "CummaxBackward0", *this, dim);
}

std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const {
  return running_extreme(ScanOp::CumMin, "cummin", "CumminBackward0", *this, dim);
}

Tensor Tensor::logcumsumexp(int64_t dim) const {
  if (!is_floating_point()) {
    throw Error("\"logcumsumexp_out_cpu\" not implemented for '" + scalar_type_name(dtype()) + "'");
  }
  autograd::Record rec("LogcumsumexpBackward0", {this});
  Tensor out = scan(ScanOp::LogCumSumExp, "logcumsumexp", *this, dim, dtype());
  if (!rec) return out;
  rec.save(*this);
  rec.save_output(out);
  const std::optional<int64_t> along = this->dim() == 0 ? std::nullopt : std::optional<int64_t>(wrap_dim(dim, this->dim()));
  return rec.finish(out, [along](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    if (!along) return autograd::tensor_list{g[0]};
    // d out_j / d x_i = exp(x_i - out_j) for j >= i. The sum over j is taken in log space, positive and
    // negative gradients apart, so that nothing overflows: exp(x_i + log sum_{j>=i} |g_j| exp(-out_j)).
    const Tensor x = node.saved(0), out = node.saved(1);
    const Tensor none = full_like(g[0], -std::numeric_limits<double>::infinity());
    const Tensor log_abs = g[0].abs().log();
    const auto part = [&](const Tensor& selected) {
      const Tensor logs = ember::where(selected, log_abs, none) - out;
      return (flip_dim(flip_dim(logs, *along).logcumsumexp(*along), *along) + x).exp();
    };
    return autograd::tensor_list{part(g[0] > 0) - part(g[0] < 0)};
  });
}

std::tuple<Tensor, Tensor> var_mean(const Tensor& x, IntArrayRef dims, int64_t correction, bool keepdim) {
  return var_std_mean(ReduceOp::Var, x, dims, correction, keepdim);
}

std::tuple<Tensor, Tensor> std_mean(const Tensor& x, IntArrayRef dims, int64_t correction, bool keepdim) {
  return var_std_mean(ReduceOp::Std, x, dims, correction, keepdim);
}

// amin and amax with aminmax's own checks; PyTorch 1.13 gives it no derivative.
std::tuple<Tensor, Tensor> Tensor::aminmax(std::optional<int64_t> dim, bool keepdim) const {
  if (!dim && numel() == 0) {
    throw Error("aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
  }
  if (dim) {
    const int64_t d = wrap_dim(*dim, this->dim());
    if (this->dim() > 0 && size(d) == 0) {
      throw IndexError("aminmax: Expected reduction dim " + std::to_string(d) + " to have non-zero size.");
    }
  }
  autograd::Record rec("torch::autograd::NotImplemented", {this});
  const IntArrayRef dims = dim ? IntArrayRef(*dim) : IntArrayRef();
  autograd::tensor_list out{amin(dims, keepdim), amax(dims, keepdim)};
  if (dim && keepdim && this->dim() == 0) {
    // PyTorch 1.13 resizes its 0-dim outputs to [1] here (with a deprecation warning).
    for (Tensor& t : out) t = t.reshape({1});
  }
  if (rec) out = rec.finish(out, autograd::not_implemented_backward("aminmax"));
  return {out[0], out[1]};
}

std::tuple<Tensor, Tensor> aminmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return x.aminmax(dim, keepdim);
}

// ---- softmax ----
Tensor Tensor::softmax(int64_t dim, std::optional<DType> dtype) const {
  if (autocast::is_active()) {
    return autocast::suspended([&] { return softmax(dim, autocast::float32_dtype(*this, dtype)); });
  }
  autograd::Record rec("SoftmaxBackward0", {this});
  const Tensor in = softmax_input(*this, dim, dtype, "softmax");
  const Tensor out = in.numel() == 0 ? empty_like(in) : softmax_of(in, dim, false);
  if (!rec) return out;
  rec.save_output(out);
  return rec.finish(out, [dim](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    return autograd::tensor_list{softmax_backward_of(g[0], node.saved(0), dim, false)};
  });
}

Tensor Tensor::log_softmax(int64_t dim, std::optional<DType> dtype) const {
  if (autocast::is_active()) {
    return autocast::suspended([&] { return log_softmax(dim, autocast::float32_dtype(*this, dtype)); });
  }
  autograd::Record rec("LogSoftmaxBackward0", {this});
  const Tensor in = softmax_input(*this, dim, dtype, "log_softmax");
  const Tensor out = in.numel() == 0 ? empty_like(in) : softmax_of(in, dim, true);
  if (!rec) return out;
  rec.save_output(out);
  return rec.finish(out, [dim](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    return autograd::tensor_list{softmax_backward_of(g[0], node.saved(0), dim, true)};
  });
}

}  // namespace ember
