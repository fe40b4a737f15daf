// Reductions and scans: which dims reduce (wrapped, deduplicated, none listed = all), the result dtype
// (PyTorch's: integral sums widen to int64, mean needs a floating dtype, all/any give bool), PyTorch's
// errors for empty inputs, and one Kernels::reduce or Kernels::scan call. The kernel writes a contiguous
// result holding the kept dims in order; keepdim is a view of it with the reduced dims as size 1.
// softmax, log_softmax are composed of amax, sub, exp, sum and log.
#include "autograd/record.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

using detail::type_name;
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
      const TensorRef values_ref = r.values.defined() ? r.values.ref() : TensorRef{};
      const TensorRef indices_ref = r.indices.defined() ? r.indices.ref() : TensorRef{};
      detail::kernels_for(*device).reduce(*detail::stream_for(*device), op,
                                          r.values.defined() ? &values_ref : nullptr,
                                          r.indices.defined() ? &indices_ref : nullptr, x.ref(), rd.mask,
                                          compute, param);
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
                  "complex dtype. Got: " + type_name(*dtype));
    }
    return *dtype;
  }
  if (!x.is_floating_point()) {
    throw Error("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                "complex dtype. Got: " + type_name(x.dtype()));
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

Tensor amax_amin(ReduceOp op, const char* name, const Tensor& x, IntArrayRef dims, bool keepdim) {
  const ReductionDims rd = reduction_dims(x, dims);
  if (dims.empty()) check_nonempty_all(x, name);
  check_nonempty_dims(x, rd, name);
  return reduce_values(op, x, rd, keepdim, x.dtype(), x.dtype());
}

std::tuple<Tensor, Tensor> max_min_dim(ReduceOp op, const char* name, const Tensor& x, int64_t dim,
                                       bool keepdim) {
  const ReductionDims rd = one_dim(x, dim);
  check_nonempty_dims(x, rd, name);
  Reduced r = run_reduce(op, x, rd, keepdim, x.dtype(), x.dtype(), true);
  return {r.values, r.indices};
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
  return run_reduce(op, x, rd, keepdim, std::nullopt, x.dtype(), true).indices;
}

Tensor var_std(ReduceOp op, const Tensor& x, IntArrayRef dims, int64_t correction, bool keepdim) {
  check_floating(x, "std and var only support floating point and complex dtypes");
  return reduce_values(op, x, reduction_dims(x, dims), keepdim, x.dtype(), x.dtype(),
                       static_cast<double>(correction));
}

Tensor all_any(ReduceOp op, const Tensor& x, const ReductionDims& rd, bool keepdim) {
  // The kernel writes bool; uint8 inputs give uint8, as in PyTorch.
  const Tensor result = reduce_values(op, x, rd, keepdim, DType::Bool, x.dtype());
  return x.dtype() == DType::UInt8 ? result.to(DType::UInt8) : result;
}

Tensor scan(ScanOp op, const char* name, const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  wrap_dim(dim, x.dim());
  if (dtype == DType::Bool) throw Error("\"" + std::string(name) + "_out_cpu\" not implemented for 'Bool'");
  const DType out_dtype = widened_dtype(x, dtype);
  Tensor out = detail::empty_on(x.sizes(), out_dtype, x.device());
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
  detail::kernels_for(*x.device())
      .scan(*detail::stream_for(*x.device()), op, target.ref(), nullptr, in.ref(),
            static_cast<int>(wrap_dim(dim, in.dim())), compute);
  return out;
}

// softmax and log_softmax take floating inputs (or a floating dtype to convert to first). float16 and
// bfloat16 compute in float32 and round once at the end, as PyTorch's accumulation type does.
Tensor softmax_input(const Tensor& x, int64_t dim, std::optional<DType> dtype, const char* name) {
  const int64_t d = wrap_dim(dim, x.dim());
  const Tensor in = dtype ? x.to(*dtype) : x;
  if (!in.is_floating_point()) {
    const bool last = x.dim() == 0 || d == x.dim() - 1;
    throw Error("\"" + std::string(name) + (last ? "_lastdim_kernel_impl" : "_kernel_impl") +
                "\" not implemented for '" + type_name(in.dtype()) + "'");
  }
  return in;
}

DType softmax_compute(DType dtype) {
  return dtype == DType::Float16 || dtype == DType::BFloat16 ? DType::Float32 : dtype;
}

}  // namespace

// ---- sums and means ----
Tensor Tensor::sum(std::optional<DType> dtype) const { return sum({}, false, dtype); }

Tensor Tensor::sum(IntArrayRef dims, bool keepdim, std::optional<DType> dtype) const {
  autograd::Record rec(dims.empty() ? "SumBackward0" : "SumBackward1", {this});
  const DType out = widened_dtype(*this, dtype);
  const ReductionDims reduced = reduction_dims(*this, dims);
  Tensor result = reduce_values(ReduceOp::Sum, *this, reduced, keepdim, out, out);
  if (!rec) return result;
  return rec.finish(result, [sizes = sizes().vec(), kept = reduced.keepdim](autograd::FunctionNode&,
                                                                           const autograd::tensor_list& g) {
    return autograd::tensor_list{g[0].reshape(kept).expand(sizes)};
  });
}

Tensor Tensor::nansum(IntArrayRef dims, bool keepdim) const {
  const DType out = widened_dtype(*this, std::nullopt);
  // Integers have no NaN: their nansum is the sum.
  const ReduceOp op = is_floating_point() ? ReduceOp::NanSum : ReduceOp::Sum;
  return reduce_values(op, *this, reduction_dims(*this, dims), keepdim, out, out);
}

Tensor Tensor::mean(std::optional<DType> dtype) const { return mean({}, false, dtype); }

Tensor Tensor::mean(IntArrayRef dims, bool keepdim, std::optional<DType> dtype) const {
  const DType out = mean_dtype(*this, dtype);
  return reduce_values(ReduceOp::Mean, *this, reduction_dims(*this, dims), keepdim, out, out);
}

Tensor Tensor::nanmean(IntArrayRef dims, bool keepdim) const {
  check_floating(*this, "nanmean(): expected input to have floating point dtype but got " + type_name(dtype()));
  return reduce_values(ReduceOp::NanMean, *this, reduction_dims(*this, dims), keepdim, dtype(), dtype());
}

Tensor Tensor::prod(std::optional<DType> dtype) const {
  const DType out = widened_dtype(*this, dtype);
  return reduce_values(ReduceOp::Prod, *this, reduction_dims(*this, {}), false, out, out);
}

Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<DType> dtype) const {
  const DType out = widened_dtype(*this, dtype);
  return reduce_values(ReduceOp::Prod, *this, one_dim(*this, dim), keepdim, out, out);
}

// ---- extremes ----
Tensor Tensor::max() const {
  check_nonempty_all(*this, "max");
  return reduce_values(ReduceOp::Amax, *this, reduction_dims(*this, {}), false, dtype(), dtype());
}

Tensor Tensor::min() const {
  check_nonempty_all(*this, "min");
  return reduce_values(ReduceOp::Amin, *this, reduction_dims(*this, {}), false, dtype(), dtype());
}

std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return max_min_dim(ReduceOp::Max, "max", *this, dim, keepdim);
}

std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return max_min_dim(ReduceOp::Min, "min", *this, dim, keepdim);
}

Tensor Tensor::amax(IntArrayRef dims, bool keepdim) const {
  return amax_amin(ReduceOp::Amax, "amax", *this, dims, keepdim);
}

Tensor Tensor::amin(IntArrayRef dims, bool keepdim) const {
  return amax_amin(ReduceOp::Amin, "amin", *this, dims, keepdim);
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

Tensor Tensor::norm(Scalar p) const { return norm(p, {}, false); }

Tensor Tensor::norm(Scalar p, IntArrayRef dims, bool keepdim) const {
  check_floating(*this, "norm(): input dtype should be either floating point or complex. Got " +
                            type_name(dtype()) + " instead.");
  return reduce_values(ReduceOp::Norm, *this, reduction_dims(*this, dims), keepdim, dtype(), dtype(),
                       p.to_double());
}

Tensor Tensor::logsumexp(IntArrayRef dims, bool keepdim) const {
  // Integral inputs give the default float dtype.
  const DType out = is_floating_point() ? dtype() : get_default_dtype();
  return reduce_values(ReduceOp::LogSumExp, *this, reduction_dims(*this, dims), keepdim, out, out);
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
  return scan(ScanOp::CumSum, "cumsum", *this, dim, dtype);
}

Tensor Tensor::cumprod(int64_t dim, std::optional<DType> dtype) const {
  return scan(ScanOp::CumProd, "cumprod", *this, dim, dtype);
}

// ---- softmax ----
Tensor Tensor::softmax(int64_t dim, std::optional<DType> dtype) const {
  const Tensor in = softmax_input(*this, dim, dtype, "softmax");
  if (in.numel() == 0) return empty_like(in);
  const DType compute = softmax_compute(in.dtype());
  const Tensor x = in.to(compute);
  const Tensor shifted_exp = x.sub(x.amax(IntArrayRef(dim), true)).exp();
  return shifted_exp.div(shifted_exp.sum(IntArrayRef(dim), true)).to(in.dtype());
}

Tensor Tensor::log_softmax(int64_t dim, std::optional<DType> dtype) const {
  const Tensor in = softmax_input(*this, dim, dtype, "log_softmax");
  if (in.numel() == 0) return empty_like(in);
  const DType compute = softmax_compute(in.dtype());
  const Tensor x = in.to(compute);
  const Tensor shifted = x.sub(x.amax(IntArrayRef(dim), true));
  return shifted.sub(shifted.exp().sum(IntArrayRef(dim), true).log()).to(in.dtype());
}

}  // namespace ember
