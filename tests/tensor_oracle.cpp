#include "tensor_oracle.h"

#include <cmath>
#include <sstream>

namespace ember::test {

namespace {
template <class T>
at::Tensor host_copy(const Tensor& t, at::ScalarType type) {
  std::vector<T> values = t.to_vector<T>();
  return at::from_blob(values.data(), t.sizes().vec(), at::TensorOptions(type)).clone();
}
}  // namespace

at::Tensor to_torch(const Tensor& t) {
  switch (t.dtype()) {
    // float16 and bfloat16 values are exact in float32.
    case DType::Float32:
    case DType::Float16:
    case DType::BFloat16: return host_copy<float>(t, at::kFloat).to(to_at(t.dtype()));
    case DType::Float64: return host_copy<double>(t, at::kDouble);
    case DType::Int8: return host_copy<int8_t>(t, at::kChar);
    case DType::UInt8: return host_copy<uint8_t>(t, at::kByte);
    case DType::Int16: return host_copy<int16_t>(t, at::kShort);
    case DType::Int32: return host_copy<int32_t>(t, at::kInt);
    case DType::Int64: return host_copy<int64_t>(t, at::kLong);
    case DType::Bool: return host_copy<uint8_t>(t, at::kByte).to(at::kBool);
  }
  return {};
}

Tensor to_ember(const at::Tensor& t, const std::shared_ptr<Device>& device) {
  const at::Tensor c = t.contiguous();
  return from_blob(c.data_ptr(), c.sizes().vec(), TensorOptions().dtype(from_at(c.scalar_type())).device(device));
}

at::Tensor random_torch(std::vector<int64_t> sizes, DType dtype, uint64_t seed, double low, double high) {
  at::manual_seed(seed);
  if (dtype == DType::UInt8) low = std::max(low, 0.0);
  return random_tensor(sizes, dtype, low, high);
}

double tolerance(DType dtype) {
  switch (dtype) {
    case DType::Float16: return 2e-3;
    case DType::BFloat16: return 1.6e-2;
    case DType::Float32: return 2e-5;
    case DType::Float64: return 1e-12;
    default: return 0;
  }
}

void expect_tensor_eq(const Tensor& actual, const at::Tensor& expected, double rtol, double atol,
                      const std::string& context) {
  SCOPED_TRACE(context);
  ASSERT_EQ(to_at(actual.dtype()), expected.scalar_type()) << "dtype " << dtype_name(actual.dtype());
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  if (rtol < 0) rtol = tolerance(actual.dtype());
  if (atol < 0) atol = rtol;
  const at::Tensor a = to_torch(actual).to(at::kDouble).contiguous();
  const at::Tensor e = expected.to(at::kDouble).contiguous();
  const double* pa = a.data_ptr<double>();
  const double* pe = e.data_ptr<double>();
  int failures = 0;
  for (int64_t i = 0; i < a.numel() && failures < 5; ++i) {
    const double x = pa[i], y = pe[i];
    bool ok;
    if (std::isnan(y) || std::isnan(x)) {
      ok = std::isnan(x) && std::isnan(y);
    } else if (std::isinf(y) || std::isinf(x)) {
      ok = x == y;
    } else {
      ok = std::abs(x - y) <= atol + rtol * std::abs(y);
    }
    if (!ok) {
      ++failures;
      ADD_FAILURE() << "element " << i << ": got " << x << ", expected " << y;
    }
  }
}

std::vector<Layouts> layouts_of(const at::Tensor& t, const std::shared_ptr<Device>& device) {
  std::vector<Layouts> result;
  result.push_back({"contiguous", to_ember(t, device)});
  const int64_t ndim = t.dim();
  if (ndim >= 2) {
    // Stored with the dims reversed, seen in the original order.
    std::vector<int64_t> order(ndim);
    for (int64_t d = 0; d < ndim; ++d) order[d] = ndim - 1 - d;
    Tensor stored = to_ember(t.permute(order).contiguous(), device);
    result.push_back({"transposed", stored.permute(order)});
  }
  if (ndim >= 1) {
    // Every other element along the last dim, starting one element in.
    std::vector<int64_t> big = t.sizes().vec();
    big.back() = 2 * big.back() + 1;
    at::Tensor storage = at::zeros(big, t.options());
    storage.slice(-1, 1, c10::nullopt, 2).copy_(t);
    result.push_back({"stepped", to_ember(storage, device).slice(-1, 1, std::nullopt, 2)});
  }
  return result;
}

}  // namespace ember::test
