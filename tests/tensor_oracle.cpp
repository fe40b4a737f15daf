#include "tensor_oracle.h"

#include <cmath>

namespace ember::test {

at::Tensor random_torch(std::vector<int64_t> sizes, DType dtype, uint64_t seed, double low, double high) {
  at::manual_seed(seed);
  if (dtype == DType::UInt8) low = std::max(low, 0.0);
  return random_tensor(sizes, dtype, low, high);
}

double tolerance(DType dtype) { return tolerance_for(dtype).rtol; }

void expect_tensor_eq(const Tensor& actual, const at::Tensor& expected, double rtol, double atol,
                      const std::string& context) {
  SCOPED_TRACE(context);
  if (rtol < 0) rtol = tolerance(actual.dtype());
  if (atol < 0) atol = rtol;
  expect_matches(actual, expected, {rtol, atol});
}

std::vector<Layouts> layouts_of(const at::Tensor& t, const std::shared_ptr<Device>& device) {
  std::vector<Layouts> result;
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

}  // namespace ember::test
