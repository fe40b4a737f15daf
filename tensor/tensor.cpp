// Tensor's metadata, kernel descriptions, conversions and host access.
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/memory.h"
#include "tensor/tensor.h"

#include <cstring>

#include "autograd/record.h"
#include "runtime/half.h"
#include "tensor/known_values.h"
#include "tensor/ops_support.h"

namespace ember {

using detail::wrap_dim;

TensorImpl& Tensor::impl() const {
  if (!impl_) throw Error("the tensor is undefined");
  return *impl_;
}

namespace {

// The index of `dim` into a tensor's sizes and strides: wrap_dim lets ops take a 0-dim tensor's dim 0 as
// a 1-d one's, but a 0-dim tensor has no size or stride there.
size_t size_index(int64_t dim, int64_t ndim) {
  if (ndim == 0) throw IndexError("Dimension specified as " + std::to_string(dim) + " but tensor has no dimensions");
  return static_cast<size_t>(wrap_dim(dim, ndim));
}

}  // namespace

int64_t Tensor::size(int64_t dim) const { return impl().sizes[size_index(dim, this->dim())]; }
int64_t Tensor::stride(int64_t dim) const { return impl().strides[size_index(dim, this->dim())]; }
int64_t Tensor::numel() const { return detail::product(sizes()); }

int64_t Tensor::get_device() const { return device()->info().index; }

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (int64_t d = dim() - 1; d >= 0; --d) {
    if (size(d) == 1) continue;
    if (numel() == 0) return true;
    if (stride(d) != expected) return false;
    expected *= size(d);
  }
  return true;
}

bool Tensor::is_signed() const { return dtype() != DType::UInt8 && dtype() != DType::Bool; }

TensorRef Tensor::ref() const { return ref(sizes()); }

TensorRef Tensor::ref(IntArrayRef shape) const {
  const TensorImpl& t = impl();
  TensorRef r;
  r.allocation = t.storage->allocation.get();
  r.byte_offset = static_cast<uint64_t>(t.storage_offset) * ember::element_size(t.dtype);
  r.dtype = t.dtype;
  r.ndim = static_cast<int>(shape.size());
  if (shape.size() > static_cast<size_t>(kMaxDims)) throw Error("too many dims for a kernel");
  // Broadcast: align trailing dims; new or size-1 dims that grow read with stride 0.
  const int64_t lead = static_cast<int64_t>(shape.size()) - dim();
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    r.sizes[d] = shape[d];
    const int64_t src = d - lead;
    r.strides[d] = (src < 0 || t.sizes[src] != shape[d]) ? 0 : t.strides[src];
  }
  return r;
}

Tensor Tensor::to(DType dtype, bool non_blocking, bool copy) const { return to(device(), dtype, non_blocking, copy); }

Tensor Tensor::to(const TensorOptions& options, bool non_blocking, bool copy) const {
  return to(options.device_opt() ? options.device_opt() : device(), options.dtype_opt(), non_blocking, copy);
}

Tensor Tensor::to(const Tensor& other, bool non_blocking, bool copy) const {
  return to(other.device(), other.dtype(), non_blocking, copy);
}

Tensor Tensor::to(std::shared_ptr<Device> target, std::optional<DType> dtype, bool, bool copy) const {
  const DType out_dtype = dtype.value_or(this->dtype());
  if (!copy && target == device() && out_dtype == this->dtype()) return *this;
  autograd::Record rec("ToCopyBackward0", {this});
  Tensor out = detail::empty_on(sizes(), out_dtype, target);
  out.copy_(*this);
  detail::note_copied_values(out, *this);
  if (!rec) return out;
  // The gradient goes back to this tensor's dtype and device.
  return rec.finish(out, [dtype = this->dtype(), device = device()](autograd::FunctionNode&,
                                                                    const autograd::tensor_list& g) {
    return autograd::tensor_list{g[0].to(device, dtype)};
  });
}

Tensor Tensor::clone() const {
  autograd::Record rec("CloneBackward0", {this});
  Tensor out = detail::empty_on(sizes(), dtype(), device());
  out.copy_(*this);
  detail::note_copied_values(out, *this);
  if (!rec) return out;
  return rec.finish(out, [](autograd::FunctionNode&, const autograd::tensor_list& g) { return g; });
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

Tensor Tensor::alias() const {
  autograd::Record rec("AliasBackward0", {this});
  Tensor out = detail::make_view(*this, sizes().vec(), strides().vec(), storage_offset());
  if (!rec) return out;
  return rec.finish(out, [](autograd::FunctionNode&, const autograd::tensor_list& g) { return g; });
}

namespace {

// Bytes of a contiguous copy of `t`, read once the device has finished the work recorded so far.
std::vector<std::byte> host_bytes(const Tensor& t) {
  const Tensor c = t.contiguous();
  auto stream = detail::stream_for(*c.device());
  const uint64_t bytes = c.nbytes();
  if (bytes == 0) return {};
  const uint64_t offset = static_cast<uint64_t>(c.storage_offset()) * c.element_size();
  return stream->copy_to_host(c.storage()->allocation, offset, bytes).wait();
}

template <class T>
T decode(DType dtype, const std::byte* p) {
  auto load = [p]<class S>(S) {
    S v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (dtype) {
    case DType::Float32: return static_cast<T>(load(float{}));
    case DType::Float64: return static_cast<T>(load(double{}));
    case DType::Float16: return static_cast<T>(half_bits_to_float(load(uint16_t{})));
    case DType::BFloat16: return static_cast<T>(bfloat16_bits_to_float(load(uint16_t{})));
    case DType::Int8: return static_cast<T>(load(int8_t{}));
    case DType::UInt8: return static_cast<T>(load(uint8_t{}));
    case DType::Int16: return static_cast<T>(load(int16_t{}));
    case DType::Int32: return static_cast<T>(load(int32_t{}));
    case DType::Int64: return static_cast<T>(load(int64_t{}));
    case DType::Bool: return static_cast<T>(load(uint8_t{}) != 0);
  }
  return T{};
}

}  // namespace

template <class T>
std::vector<T> Tensor::to_vector() const {
  const std::vector<std::byte> bytes = host_bytes(*this);
  const size_t size = element_size();
  std::vector<T> values(static_cast<size_t>(numel()));
  for (size_t i = 0; i < values.size(); ++i) values[i] = decode<T>(dtype(), bytes.data() + i * size);
  return values;
}

template <class T>
T Tensor::item() const {
  if (numel() != 1) {
    throw Error("a Tensor with " + std::to_string(numel()) + " elements cannot be converted to Scalar");
  }
  return to_vector<T>()[0];
}

Scalar Tensor::item() const {
  if (is_floating_point()) return item<double>();
  if (dtype() == DType::Bool) return item<bool>();
  return item<int64_t>();
}

bool Tensor::is_nonzero() const {
  if (numel() == 0) throw Error("Boolean value of Tensor with no values is ambiguous");
  if (numel() > 1) throw Error("Boolean value of Tensor with more than one value is ambiguous");
  return item<double>() != 0;  // NaN is nonzero, as in PyTorch
}

#define EMBER_INSTANTIATE_HOST_ACCESS(T)                   \
  template std::vector<T> Tensor::to_vector<T>() const;    \
  template T Tensor::item<T>() const;
EMBER_INSTANTIATE_HOST_ACCESS(float)
EMBER_INSTANTIATE_HOST_ACCESS(double)
EMBER_INSTANTIATE_HOST_ACCESS(int8_t)
EMBER_INSTANTIATE_HOST_ACCESS(uint8_t)
EMBER_INSTANTIATE_HOST_ACCESS(int16_t)
EMBER_INSTANTIATE_HOST_ACCESS(int32_t)
EMBER_INSTANTIATE_HOST_ACCESS(int64_t)
EMBER_INSTANTIATE_HOST_ACCESS(bool)
#undef EMBER_INSTANTIATE_HOST_ACCESS

namespace {

// A new tensor like `like` holding `source` (a tensor that broadcasts to it) or else `value`, recorded
// as the node `name` of an in-place write that replaces `like`: the old values get a zero gradient, the
// source the gradient of where it went.
Tensor overwritten(const char* name, const Tensor& like, const Tensor* source, Scalar value = 0) {
  autograd::Record rec(name, {&like, source});
  Tensor out = detail::empty_on(like.sizes(), like.dtype(), like.device());
  if (source) {
    out.copy_(*source);
  } else {
    out.fill_(value);
  }
  if (!rec) return out;
  return rec.finish(out, [](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    // The engine sums the source's gradient down to its shape and casts it to its dtype and device.
    return autograd::tensor_list{node.needs_input_grad(0) ? zeros_like(g[0]) : Tensor(),
                                 node.needs_input_grad(1) ? g[0] : Tensor()};
  });
}

}  // namespace

Tensor& Tensor::copy_(const Tensor& src) {
  if (autograd::inplace_needs_record(*this, {&src})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) {
      return overwritten("torch::autograd::CopyBackwards", old, &src);
    });
  }
  Tensor source = src;
  if (src.device() != device()) {
    // Between devices the bytes travel through the host.
    const std::vector<std::byte> bytes = host_bytes(src);
    source = from_blob(bytes.data(), src.sizes(), TensorOptions().dtype(src.dtype()).device(device()));
  }
  const std::vector<int64_t> shape = broadcast_shapes(sizes(), source.sizes());
  if (!(IntArrayRef(shape) == sizes())) {
    throw Error("output with shape " + to_string(sizes()) + " doesn't match the broadcast shape " +
                to_string(shape));
  }
  detail::check_no_internal_overlap(*this);
  if (numel() == 0) return *this;
  ElementwiseKernels& kernels = detail::kernels_for<ElementwiseKernels>(*device());
  Stream& stream = *detail::stream_for(*device());
  if (source.dtype() == dtype()) {
    detail::kernels_for<MemoryKernels>(*device()).copy(stream, {ref(), source.ref(sizes())});
  } else {
    kernels.unary(stream, {.op = UnaryOp::Cast, .out = ref(), .in = source.ref(sizes()),
                           .compute = promote_types(source.dtype(), dtype())});
  }
  detail::bump_version(*this);
  return *this;
}

Tensor& Tensor::fill_(Scalar value) {
  detail::check_scalar_fits(value, dtype());
  if (autograd::inplace_needs_record(*this, {})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) {
      return overwritten("FillBackward2", old, nullptr, value);
    });
  }
  // No internal-overlap check: filling is idempotent, so PyTorch fills expanded tensors too.
  if (numel() > 0) detail::kernels_for<MemoryKernels>(*device()).fill(*detail::stream_for(*device()), {ref(), value});
  detail::bump_version(*this);
  return *this;
}

Tensor& Tensor::fill_(const Tensor& value) {
  if (value.dim() != 0) {
    throw Error("fill_ only supports 0-dimension value tensor but got tensor with " +
                std::to_string(value.dim()) + " dimensions.");
  }
  if (autograd::inplace_needs_record(*this, {&value})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) {
      return overwritten("FillBackward3", old, &value);
    });
  }
  return copy_(value);
}

Tensor& Tensor::zero_() {
  if (autograd::inplace_needs_record(*this, {})) {
    return autograd::record_inplace(*this, [](const Tensor& old) {
      return overwritten("ZeroBackward0", old, nullptr);
    });
  }
  return fill_(0);
}

}  // namespace ember
