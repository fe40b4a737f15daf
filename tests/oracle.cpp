#include "tests/oracle.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <cmath>

namespace ember::test {

at::ScalarType torch_dtype(DType dtype) {
  switch (dtype) {
    case DType::Float32: return at::kFloat;
    case DType::Float16: return at::kHalf;
    case DType::BFloat16: return at::kBFloat16;
    case DType::Float64: return at::kDouble;
    case DType::Int8: return at::kChar;
    case DType::UInt8: return at::kByte;
    case DType::Int16: return at::kShort;
    case DType::Int32: return at::kInt;
    case DType::Int64: return at::kLong;
    case DType::Bool: return at::kBool;
  }
  return at::kFloat;
}

DType ember_dtype(at::ScalarType type) {
  for (DType d : kAllDTypes) {
    if (torch_dtype(d) == type) return d;
  }
  throw Error("no ember dtype for torch type " + std::string(c10::toString(type)));
}

at::Tensor to_torch(const Tensor& t) {
  const Tensor c = t.contiguous();
  at::Tensor host = at::empty(std::vector<int64_t>(c.sizes().begin(), c.sizes().end()),
                              at::TensorOptions().dtype(torch_dtype(c.dtype())));
  if (c.nbytes() > 0) {
    auto stream = c.device()->default_stream();
    const uint64_t offset = static_cast<uint64_t>(c.storage_offset()) * c.element_size();
    const std::vector<std::byte> bytes = stream->copy_to_host(c.storage()->allocation, offset, c.nbytes()).wait();
    std::memcpy(host.data_ptr(), bytes.data(), bytes.size());
  }
  return host;
}

Tensor from_torch(const at::Tensor& t, const std::shared_ptr<Device>& device) {
  const at::Tensor c = t.contiguous();
  return from_blob(c.data_ptr(), std::vector<int64_t>(c.sizes().begin(), c.sizes().end()),
                   TensorOptions().dtype(ember_dtype(c.scalar_type())).device(device));
}

at::Tensor random_torch(at::IntArrayRef sizes, DType dtype, at::Generator& generator,
                        std::optional<ValueRange> range) {
  const auto options = at::TensorOptions().dtype(at::kDouble);
  if (dtype == DType::Bool) return at::rand(sizes, generator, options).gt(0.5);
  if (!range) {
    range = is_floating_point(dtype) ? ValueRange{-4, 4} : dtype == DType::UInt8 ? ValueRange{0, 100} : ValueRange{-50, 50};
  }
  const double low = dtype == DType::UInt8 ? std::max(range->low, 0.0) : range->low;
  if (is_floating_point(dtype)) {
    return (at::rand(sizes, generator, options) * (range->high - low) + low).to(torch_dtype(dtype));
  }
  // Integers in the range's integer hull, at least one value wide.
  const int64_t first = static_cast<int64_t>(std::floor(low));
  const int64_t end = std::max(first + 1, static_cast<int64_t>(std::ceil(range->high)));
  return at::randint(first, end, sizes, generator, options).to(torch_dtype(dtype));
}

at::Tensor random_torch(at::IntArrayRef sizes, DType dtype, uint64_t seed, double low, double high) {
  at::Generator generator = at::detail::createCPUGenerator(seed);
  return random_torch(sizes, dtype, generator, ValueRange{low, high});
}

at::Tensor random_torch(at::IntArrayRef sizes, DType dtype, uint64_t seed) {
  at::Generator generator = at::detail::createCPUGenerator(seed);
  return random_torch(sizes, dtype, generator);
}

Pair pair_from(const at::Tensor& torch, const std::shared_ptr<Device>& device) {
  return {from_torch(torch, device), torch, "contiguous"};
}

std::vector<Pair> layouts(at::IntArrayRef sizes, DType dtype, const std::shared_ptr<Device>& device,
                          at::Generator& generator) {
  std::vector<Pair> pairs;
  pairs.push_back(pair_from(random_torch(sizes, dtype, generator), device));
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  if (ndim >= 2) {
    std::vector<int64_t> swapped(sizes.begin(), sizes.end());
    std::swap(swapped[ndim - 1], swapped[ndim - 2]);
    Pair base = pair_from(random_torch(swapped, dtype, generator), device);
    pairs.push_back({base.ember.transpose(-1, -2), base.torch.transpose(-1, -2), "transposed"});
  }
  if (ndim >= 1) {
    std::vector<int64_t> wide(sizes.begin(), sizes.end());
    wide[ndim - 1] = wide[ndim - 1] * 2 + 1;
    Pair base = pair_from(random_torch(wide, dtype, generator), device);
    pairs.push_back({base.ember.slice(-1, 1, std::nullopt, 2), base.torch.slice(-1, 1, c10::nullopt, 2),
                     "sliced with step 2"});
    std::vector<int64_t> one(sizes.begin(), sizes.end());
    one[0] = 1;
    Pair row = pair_from(random_torch(one, dtype, generator), device);
    pairs.push_back({row.ember.expand(std::vector<int64_t>(sizes.begin(), sizes.end())),
                     row.torch.expand(sizes), "broadcast along dim 0"});
  }
  return pairs;
}

std::vector<std::vector<int64_t>> test_shapes() {
  return {{}, {0}, {3, 0}, {1}, {7}, {257}, {5, 3}, {2, 3, 65}, {33, 17}};
}

Tolerance tolerance_for(DType dtype) {
  switch (dtype) {
    // atol covers cancellation: inputs are about 3 * randn, so one ulp of an input is the floor.
    case DType::Float32: return {2e-5, 1e-5};
    case DType::Float64: return {1e-12, 1e-13};
    case DType::Float16: return {2e-3, 8e-3};
    case DType::BFloat16: return {1.6e-2, 6e-2};
    default: return {0, 0};
  }
}

void expect_tensor_eq(const Tensor& actual, const at::Tensor& expected, double rtol, double atol,
                      const std::string& context) {
  SCOPED_TRACE(context);
  ASSERT_EQ(std::string(dtype_name(actual.dtype())),
            std::string(dtype_name(ember_dtype(expected.scalar_type()))));
  ASSERT_EQ(to_string(actual.sizes()),
            to_string(std::vector<int64_t>(expected.sizes().begin(), expected.sizes().end())));
  const Tolerance defaults = tolerance_for(actual.dtype());
  const Tolerance tolerance{rtol < 0 ? defaults.rtol : rtol, atol < 0 ? defaults.atol : atol};
  const at::Tensor got = to_torch(actual).to(at::kDouble).reshape(-1);
  const at::Tensor want = expected.to(at::kDouble).contiguous().reshape(-1);
  const double* g = got.data_ptr<double>();
  const double* w = want.data_ptr<double>();
  int reported = 0;
  for (int64_t i = 0; i < got.numel() && reported < 5; ++i) {
    const bool both_nan = std::isnan(g[i]) && std::isnan(w[i]);
    const bool same_inf = std::isinf(w[i]) && g[i] == w[i];
    const bool close = std::abs(g[i] - w[i]) <= tolerance.atol + tolerance.rtol * std::abs(w[i]);
    if (!(both_nan || same_inf || close)) {
      ADD_FAILURE() << "element " << i << ": got " << g[i] << ", expected " << w[i];
      ++reported;
    }
  }
}

std::vector<Layout> layouts_of(const at::Tensor& t, const std::shared_ptr<Device>& device) {
  std::vector<Layout> result;
  result.push_back({"contiguous", from_torch(t, device)});
  const int64_t ndim = t.dim();
  if (ndim >= 2) {
    // Stored with the dims reversed, seen in the original order.
    std::vector<int64_t> order(ndim);
    for (int64_t d = 0; d < ndim; ++d) order[d] = ndim - 1 - d;
    Tensor stored = from_torch(t.permute(order).contiguous(), device);
    result.push_back({"transposed", stored.permute(order)});
  }
  if (ndim >= 1) {
    // Every other element along the last dim, starting one element in.
    std::vector<int64_t> big = t.sizes().vec();
    big.back() = 2 * big.back() + 1;
    at::Tensor storage = at::zeros(big, t.options());
    storage.slice(-1, 1, c10::nullopt, 2).copy_(t);
    result.push_back({"stepped", from_torch(storage, device).slice(-1, 1, std::nullopt, 2)});
  }
  return result;
}

DeviceStorage::DeviceStorage(Device& device, Stream& stream, const at::Tensor& tensor)
    : storage_(tensor.storage()), dtype_(ember_dtype(tensor.scalar_type())) {
  const size_t bytes = storage_.nbytes();
  allocation_ = device.allocate(std::max<size_t>(bytes, 1), stream.shared_from_this());
  if (bytes > 0) stream.copy_from_host(*allocation_, 0, storage_.data_ptr().get(), bytes);
}

TensorRef DeviceStorage::ref(const at::Tensor& view) const {
  TensorRef ref;
  ref.allocation = allocation_.get();
  ref.dtype = dtype_;
  ref.byte_offset = static_cast<uint64_t>(view.storage_offset()) * element_size(dtype_);
  ref.ndim = static_cast<int>(view.dim());
  for (int d = 0; d < ref.ndim; ++d) {
    ref.sizes[d] = view.size(d);
    ref.strides[d] = view.stride(d);
  }
  return ref;
}

at::Tensor DeviceStorage::read(Stream& stream, const at::Tensor& view) const {
  const size_t bytes = storage_.nbytes();
  at::Tensor host = at::empty({static_cast<int64_t>(bytes / element_size(dtype_))},
                              at::TensorOptions(torch_dtype(dtype_)));
  if (bytes > 0) {
    std::vector<std::byte> data = stream.copy_to_host(allocation_, 0, bytes).wait();
    std::memcpy(host.data_ptr(), data.data(), bytes);
  }
  return host.as_strided(view.sizes(), view.strides(), view.storage_offset()).clone();
}

std::string torch_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  } catch (const std::exception& e) {  // a few checks (a scalar's range) throw plain runtime_errors
    return e.what();
  }
  ADD_FAILURE() << "LibTorch threw nothing";
  return "";
}

bool has_kernel(const std::function<void()>& probe, std::string& why) {
  try {
    probe();
    return true;
  } catch (const UnsupportedError& error) {
    why = error.what();
    return false;
  }
}

}  // namespace ember::test
