// Tensor creation: from host data, constant fills, sequences (linspace, logspace), identity matrices, and
// the new_* methods that take their dtype and device from a tensor.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/half.h"
#include "runtime/kernels/elementwise.h"
#include "tensor/known_values.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

DType dtype_of_value(Scalar value) {
  if (value.is_floating_point()) return get_default_dtype();
  if (value.is_bool()) return DType::Bool;
  return DType::Int64;
}

// Memory to fill before finish() applies requires_grad: writing into a leaf that already requires grad
// would be the in-place error.
Tensor blank(IntArrayRef sizes, const TensorOptions& options) { return empty(sizes, options.requires_grad(false)); }

Tensor finish(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

}  // namespace

Tensor empty(IntArrayRef sizes, const TensorOptions& options) {
  return finish(detail::empty_on(sizes, options.dtype_or(get_default_dtype()), options.device_or_default()),
                options);
}

Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options) {
  if (sizes.size() != strides.size()) throw Error("mismatch in length of strides and shape");
  for (int64_t s : sizes) {
    if (s < 0) throw Error("Trying to create tensor with negative dimension " + std::to_string(s) + ": " + to_string(sizes));
  }
  for (int64_t s : strides) {
    if (s < 0) throw Error("as_strided: Negative strides are not supported at the moment, got strides: " + to_string(strides));
  }
  const DType dtype = options.dtype_or(get_default_dtype());
  const auto extent = static_cast<int64_t>(detail::strided_nbytes(sizes, strides, dtype) / element_size(dtype));
  Tensor base = blank({extent}, options);
  return finish(base.as_strided(sizes, strides, 0), options);
}

Tensor zeros(IntArrayRef sizes, const TensorOptions& options) { return full(sizes, 0, options.dtype(options.dtype_or(get_default_dtype()))); }

Tensor ones(IntArrayRef sizes, const TensorOptions& options) { return full(sizes, 1, options.dtype(options.dtype_or(get_default_dtype()))); }

Tensor full(IntArrayRef sizes, Scalar value, const TensorOptions& options) {
  detail::check_scalar_fits(value, options.dtype_or(dtype_of_value(value)));
  Tensor t = blank(sizes, options.dtype(options.dtype_or(dtype_of_value(value))));
  t.fill_(value);
  return finish(t, options);
}

namespace {
TensorOptions like_options(const Tensor& like, const TensorOptions& options) {
  return TensorOptions()
      .dtype(options.dtype_or(like.dtype()))
      .device(options.device_opt() ? options.device_opt() : like.device())
      .requires_grad(options.requires_grad());
}
}  // namespace

Tensor empty_like(const Tensor& like, const TensorOptions& options) {
  return empty(like.sizes(), like_options(like, options));
}
Tensor zeros_like(const Tensor& like, const TensorOptions& options) {
  return full(like.sizes(), 0, like_options(like, options));
}
Tensor ones_like(const Tensor& like, const TensorOptions& options) {
  return full(like.sizes(), 1, like_options(like, options));
}
Tensor full_like(const Tensor& like, Scalar value, const TensorOptions& options) {
  return full(like.sizes(), value, like_options(like, options));
}

Tensor Tensor::new_empty(IntArrayRef size, const TensorOptions& options) const {
  return empty(size, like_options(*this, options));
}
Tensor Tensor::new_zeros(IntArrayRef size, const TensorOptions& options) const {
  return full(size, 0, like_options(*this, options));
}
Tensor Tensor::new_ones(IntArrayRef size, const TensorOptions& options) const {
  return full(size, 1, like_options(*this, options));
}
Tensor Tensor::new_full(IntArrayRef size, Scalar fill_value, const TensorOptions& options) const {
  return full(size, fill_value, like_options(*this, options));
}
// The data takes this tensor's dtype, not the one its values would infer: int8's new_tensor({1.5}) is [1].
Tensor Tensor::new_tensor(const TensorData& data, const TensorOptions& options) const {
  return tensor(data, like_options(*this, options));
}

Tensor arange(Scalar end, const TensorOptions& options) { return arange(0, end, 1, options); }
Tensor arange(Scalar start, Scalar end, const TensorOptions& options) { return arange(start, end, 1, options); }

Tensor arange(Scalar start, Scalar end, Scalar step, const TensorOptions& options) {
  const bool floating = start.is_floating_point() || end.is_floating_point() || step.is_floating_point();
  const DType dtype = options.dtype_or(floating ? get_default_dtype() : DType::Int64);
  if (dtype == DType::Bool) throw Error("\"arange_cpu\" not implemented for 'Bool'");
  // As PyTorch, the bounds and the step are first converted to the dtype's accumulate type, with its
  // overflow checks: int64 for integer dtypes (so a step of 0.5 is 0), float for float16 and bfloat16.
  const DType accumulate = is_integral(dtype)                                       ? DType::Int64
                           : dtype == DType::Float16 || dtype == DType::BFloat16 ? DType::Float32
                                                                                 : DType::Float64;
  for (const Scalar& value : {start, end, step}) detail::check_scalar_fits(value, accumulate);
  const bool integral = accumulate == DType::Int64;
  const Scalar first = integral ? Scalar(start.to_int64()) : start, last = integral ? Scalar(end.to_int64()) : end;
  const Scalar stride = integral ? Scalar(step.to_int64()) : step;
  const double s = first.to_double(), e = last.to_double(), st = stride.to_double();
  if (st == 0) throw Error("step must be nonzero");
  if (!std::isfinite(s) || !std::isfinite(e)) {
    throw Error("unsupported range: " + std::to_string(s) + " -> " + std::to_string(e));
  }
  if ((st > 0 && e < s) || (st < 0 && e > s)) {
    throw Error("upper bound and larger bound inconsistent with step sign");
  }
  // The count from the scalars as given in double, except for int64, whose converted bounds count
  // exactly (in 128 bits here, where PyTorch's int64 arithmetic could wrap).
  double count_d = std::ceil((end.to_double() - start.to_double()) / step.to_double());
  if (dtype == DType::Int64) {
    const __int128 a = first.to_int64(), b = last.to_int64(), c = stride.to_int64();
    count_d = static_cast<double>((b - a + c - (c > 0 ? 1 : -1)) / c);
  }
  // (< rather than PyTorch's <=: INT64_MAX rounds up to 2^63 in double, which no int64 holds)
  if (!(count_d >= 0 && count_d < static_cast<double>(std::numeric_limits<int64_t>::max()))) {
    throw Error("invalid size, possible overflow?");
  }
  const auto count = static_cast<int64_t>(count_d);
  Tensor t = blank({count}, options.dtype(dtype));
  if (count > 0) {
    // One element is start: its step may not even fit the compute dtype (0 * inf would be NaN).
    detail::kernels_for<ElementwiseKernels>(*t.device())
        .sequence(*detail::stream_for(*t.device()),
                  {.out = t.ref(), .start = first, .step = count == 1 ? Scalar(0) : stride});
    if (dtype == DType::Int64) {  // narrower integers may wrap
      const int64_t end_value = first.to_int64() + (count - 1) * stride.to_int64();
      detail::note_value_range(t, std::min(first.to_int64(), end_value), std::max(first.to_int64(), end_value), true);
    }
  }
  return finish(t, options);
}

namespace {

// t[i] = start + i * step, with the upper half counted back from end so that the last element is end.
void fill_linear(const Tensor& t, double start, double step, double end) {
  detail::kernels_for<ElementwiseKernels>(*t.device())
      .sequence(*detail::stream_for(*t.device()), {.out = t.ref(), .start = start, .step = step, .end = end});
}

// The value `v` keeps when stored as `dtype`: rounded to a floating type, truncated (and wrapped) into an
// integer type.
double stored_value(double v, DType dtype) {
  switch (dtype) {
    case DType::Float64: return v;
    case DType::Float32: return static_cast<float>(v);
    case DType::Float16: return half_bits_to_float(float_to_half_bits(static_cast<float>(v)));
    case DType::BFloat16: return bfloat16_bits_to_float(float_to_bfloat16_bits(static_cast<float>(v)));
    case DType::Int8: return static_cast<int8_t>(static_cast<int64_t>(v));
    case DType::UInt8: return static_cast<uint8_t>(static_cast<int64_t>(v));
    case DType::Int16: return static_cast<int16_t>(static_cast<int64_t>(v));
    case DType::Int32: return static_cast<int32_t>(static_cast<int64_t>(v));
    case DType::Int64: return static_cast<double>(static_cast<int64_t>(v));
    case DType::Bool: return v != 0 ? 1 : 0;
  }
  return v;
}

}  // namespace

Tensor linspace(Scalar start, Scalar end, int64_t steps, const TensorOptions& options) {
  if (steps < 0) throw Error("number of steps must be non-negative");
  Tensor t = blank({steps}, options.dtype(options.dtype_or(get_default_dtype())));
  if (steps == 1) {
    t.fill_(start);
  } else if (steps > 1) {
    // As PyTorch, which converts both bounds to the dtype first (one step converts only start, in fill_).
    detail::check_scalar_fits(start, t.dtype());
    detail::check_scalar_fits(end, t.dtype());
    const double step = (end.to_double() - start.to_double()) / static_cast<double>(steps - 1);
    fill_linear(t, start.to_double(), step, end.to_double());
  }
  return finish(t, options);
}

Tensor logspace(Scalar start, Scalar end, int64_t steps, double base, const TensorOptions& options) {
  if (steps < 0) throw Error("number of steps must be non-negative");
  const DType dtype = options.dtype_or(get_default_dtype());
  if (steps <= 1) {
    Tensor t = blank({steps}, options.dtype(dtype));
    if (steps == 1) t.fill_(std::pow(base, start.to_double()));
    return finish(t, options);
  }
  if (dtype == DType::Bool || dtype == DType::Float16) {
    throw Error("\"logspace_cpu\" not implemented for '" + scalar_type_name(dtype) + "'");
  }
  // As PyTorch: the bounds are first converted to the dtype, and their difference taken in it.
  detail::check_scalar_fits(start, dtype);
  detail::check_scalar_fits(end, dtype);
  const double first = stored_value(start.to_double(), dtype), last = stored_value(end.to_double(), dtype);
  const double span = is_floating_point(dtype) ? stored_value(last - first, dtype) : last - first;
  Tensor t = blank({steps}, options.dtype(dtype));
  // Exponents and powers in float64, as PyTorch computes them, where the device has it: integer results
  // truncate, so 10 ** 3 must not come out as 999.99994.
  const DType compute = t.device()->supports(DType::Float64) ? DType::Float64 : DType::Float32;
  const Tensor exponents = blank({steps}, TensorOptions(compute).device(t.device()));
  fill_linear(exponents, first, span / static_cast<double>(steps - 1), last);
  t.copy_(pow(Scalar(base), exponents));
  return finish(t, options);
}

Tensor eye(int64_t n, const TensorOptions& options) { return eye(n, n, options); }

Tensor eye(int64_t n, int64_t m, const TensorOptions& options) {
  if (n < 0) throw Error("n must be greater or equal to 0, got " + std::to_string(n));
  if (m < 0) throw Error("m must be greater or equal to 0, got " + std::to_string(m));
  Tensor t = zeros({n, m}, options);
  if (n > 0 && m > 0) t.diagonal().fill_(1);
  return finish(t, options);
}

Tensor from_blob(const void* data, IntArrayRef sizes, const TensorOptions& options) {
  if (!data && detail::product(sizes) != 0) {
    throw Error("from_blob: data is null, but sizes " + to_string(sizes) + " ask for " +
                std::to_string(detail::product(sizes)) + " elements");
  }
  Tensor t = blank(sizes, options);
  if (t.nbytes() > 0) {
    detail::stream_for(*t.device())->copy_from_host(*t.storage()->allocation, 0, data, t.nbytes());
    detail::note_uploaded_values(t, data);
  }
  return finish(t, options);
}

namespace {

struct Flattened {
  std::vector<int64_t> sizes;
  std::vector<Scalar> values;
  TensorData::Kind kind = TensorData::Kind::Boolean;
  bool any_value = false;
};

void flatten_data(const TensorData& data, size_t depth, Flattened& out) {
  if (!data.is_list()) {
    if (depth != out.sizes.size() && out.any_value) {
      throw Error("Expected all sub-lists of the nested data to have the same depth");
    }
    if (!out.any_value) out.sizes.resize(depth);
    out.any_value = true;
    out.values.push_back(data.scalar());
    if (static_cast<int>(data.kind()) > static_cast<int>(out.kind)) out.kind = data.kind();
    return;
  }
  const auto size = static_cast<int64_t>(data.list().size());
  if (depth >= out.sizes.size()) {
    if (out.any_value) throw Error("Expected all sub-lists of the nested data to have the same depth");
    out.sizes.push_back(size);
  } else if (out.sizes[depth] != size) {
    throw Error("Expected all sub-lists to have sizes: " + std::to_string(out.sizes[depth]) +
                ", but got a sub-list with size: " + std::to_string(size));
  }
  for (const TensorData& item : data.list()) flatten_data(item, depth + 1, out);
}

}  // namespace

Tensor tensor(const TensorData& data, const TensorOptions& options) {
  Flattened flat;
  flatten_data(data, 0, flat);
  DType dtype = get_default_dtype();  // an empty list is float, as torch.tensor([])
  if (flat.any_value) {
    dtype = flat.kind == TensorData::Kind::Floating  ? get_default_dtype()
            : flat.kind == TensorData::Kind::Integral ? DType::Int64
                                                      : DType::Bool;
  }
  dtype = options.dtype_or(dtype);
  const size_t size = element_size(dtype);
  std::vector<std::byte> bytes(flat.values.size() * size);
  for (size_t i = 0; i < flat.values.size(); ++i) {
    const uint64_t bits = flat.values[i].bits_as(dtype);
    std::memcpy(bytes.data() + i * size, &bits, size);  // little-endian: the low bytes
  }
  return from_blob(bytes.data(), flat.sizes, options.dtype(dtype));
}

}  // namespace ember
