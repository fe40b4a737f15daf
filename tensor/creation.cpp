// Tensor creation: from host data, constant fills, sequences and identity matrices.
#include <cmath>
#include <cstring>

#include "runtime/kernels/elementwise.h"
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

Tensor arange(Scalar end, const TensorOptions& options) { return arange(0, end, 1, options); }
Tensor arange(Scalar start, Scalar end, const TensorOptions& options) { return arange(start, end, 1, options); }

Tensor arange(Scalar start, Scalar end, Scalar step, const TensorOptions& options) {
  const bool floating = start.is_floating_point() || end.is_floating_point() || step.is_floating_point();
  const DType dtype = options.dtype_or(floating ? get_default_dtype() : DType::Int64);
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  if (st == 0) throw Error("step must be nonzero");
  if (!std::isfinite(s) || !std::isfinite(e)) {
    throw Error("unsupported range: " + std::to_string(s) + " -> " + std::to_string(e));
  }
  if ((st > 0 && e < s) || (st < 0 && e > s)) {
    throw Error("upper bound and larger bound inconsistent with step sign");
  }
  const auto count = static_cast<int64_t>(std::ceil((e - s) / st));
  Tensor t = blank({count}, options.dtype(dtype));
  if (count > 0) {
    detail::kernels_for<ElementwiseKernels>(*t.device())
        .sequence(*detail::stream_for(*t.device()), {.out = t.ref(), .start = start, .step = step});
  }
  return finish(t, options);
}

Tensor linspace(Scalar start, Scalar end, int64_t steps, const TensorOptions& options) {
  if (steps < 0) throw Error("number of steps must be non-negative");
  Tensor t = blank({steps}, options.dtype(options.dtype_or(get_default_dtype())));
  if (steps == 1) {
    t.fill_(start);
  } else if (steps > 1) {
    const double step = (end.to_double() - start.to_double()) / static_cast<double>(steps - 1);
    detail::kernels_for<ElementwiseKernels>(*t.device())
        .sequence(*detail::stream_for(*t.device()),
                  {.out = t.ref(), .start = start.to_double(), .step = step, .end = end.to_double()});
  }
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
