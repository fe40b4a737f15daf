#include "nn/init.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "autograd/grad_mode.h"
#include "runtime/error.h"

namespace ember::nn::init {

namespace {

int64_t fan(const Tensor& tensor, FanModeType mode) {
  const auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  return std::holds_alternative<enumtype::kFanIn>(mode) ? fan_in : fan_out;
}

// The standard normal quantile: Abramowitz and Stegun's 26.2.23 as the first guess, refined by Newton
// steps on erfc to double precision.
double normal_quantile(double p) {
  const double t = std::sqrt(-2 * std::log(std::min(p, 1 - p)));
  double x = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
  if (p < 0.5) x = -x;
  for (int step = 0; step < 4; ++step) {
    const double density = std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
    if (density == 0) break;
    x -= (0.5 * std::erfc(-x / std::sqrt(2.0)) - p) / density;
  }
  return x;
}

// Householder QR of a rows x cols (rows >= cols) row-major matrix: returns Q's first cols columns with
// each column's sign chosen so that R's diagonal is positive, as PyTorch's orthogonal_ makes it.
std::vector<double> orthonormal_columns(std::vector<double> a, int64_t rows, int64_t cols) {
  std::vector<double> q(static_cast<size_t>(rows * cols), 0.0);
  for (int64_t i = 0; i < cols; ++i) q[static_cast<size_t>(i * cols + i)] = 1.0;
  std::vector<std::vector<double>> reflectors;
  for (int64_t k = 0; k < cols; ++k) {
    std::vector<double> v(static_cast<size_t>(rows - k));
    double norm = 0;
    for (int64_t i = k; i < rows; ++i) norm += a[i * cols + k] * a[i * cols + k];
    norm = std::sqrt(norm);
    const double alpha = a[k * cols + k] > 0 ? -norm : norm;
    for (int64_t i = k; i < rows; ++i) v[static_cast<size_t>(i - k)] = a[i * cols + k];
    v[0] -= alpha;
    double v_norm = 0;
    for (double x : v) v_norm += x * x;
    if (v_norm > 0) {
      for (int64_t j = k; j < cols; ++j) {
        double dot = 0;
        for (int64_t i = k; i < rows; ++i) dot += v[static_cast<size_t>(i - k)] * a[i * cols + j];
        for (int64_t i = k; i < rows; ++i) a[i * cols + j] -= 2 * dot / v_norm * v[static_cast<size_t>(i - k)];
      }
    }
    reflectors.push_back(v);
  }
  // Q = H_0 H_1 ... H_{cols-1} applied to the first cols columns of the identity, last reflector first.
  for (int64_t k = cols - 1; k >= 0; --k) {
    const std::vector<double>& v = reflectors[static_cast<size_t>(k)];
    double v_norm = 0;
    for (double x : v) v_norm += x * x;
    if (v_norm == 0) continue;
    for (int64_t j = 0; j < cols; ++j) {
      double dot = 0;
      for (int64_t i = k; i < rows; ++i) dot += v[static_cast<size_t>(i - k)] * q[i * cols + j];
      for (int64_t i = k; i < rows; ++i) q[i * cols + j] -= 2 * dot / v_norm * v[static_cast<size_t>(i - k)];
    }
  }
  for (int64_t j = 0; j < cols; ++j) {
    if (a[j * cols + j] < 0) {
      for (int64_t i = 0; i < rows; ++i) q[i * cols + j] = -q[i * cols + j];
    }
  }
  return q;
}

}  // namespace

double calculate_gain(NonlinearityType nonlinearity, double param) {
  return std::visit(
      [&](const auto& tag) -> double {
        using Tag = std::decay_t<decltype(tag)>;
        if constexpr (std::is_same_v<Tag, enumtype::kTanh>) return 5.0 / 3;
        if constexpr (std::is_same_v<Tag, enumtype::kReLU>) return std::sqrt(2.0);
        if constexpr (std::is_same_v<Tag, enumtype::kLeakyReLU>) return std::sqrt(2.0 / (1 + param * param));
        if constexpr (std::is_same_v<Tag, enumtype::kSELU>) return 3.0 / 4;
        return 1.0;
      },
      nonlinearity);
}

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor) {
  if (tensor.dim() < 2) {
    throw Error("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  }
  int64_t receptive_field = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive_field *= tensor.size(d);
  return {tensor.size(1) * receptive_field, tensor.size(0) * receptive_field};
}

Tensor uniform_(Tensor tensor, double low, double high) {
  autograd::NoGradGuard no_grad;
  tensor.uniform_(low, high);
  return tensor;
}

Tensor normal_(Tensor tensor, double mean, double std) {
  autograd::NoGradGuard no_grad;
  tensor.normal_(mean, std);
  return tensor;
}

Tensor constant_(Tensor tensor, Scalar value) {
  autograd::NoGradGuard no_grad;
  tensor.fill_(value);
  return tensor;
}

Tensor ones_(Tensor tensor) { return constant_(std::move(tensor), 1); }
Tensor zeros_(Tensor tensor) { return constant_(std::move(tensor), 0); }

Tensor eye_(Tensor matrix) {
  if (matrix.dim() != 2) throw Error("Only tensors with 2 dimensions are supported");
  autograd::NoGradGuard no_grad;
  matrix.copy_(eye(matrix.size(0), matrix.size(1), TensorOptions().dtype(matrix.dtype()).device(matrix.device())));
  return matrix;
}

Tensor dirac_(Tensor tensor, int64_t groups) {
  const int64_t dims = tensor.dim();
  if (dims < 3 || dims > 5) throw Error("Only tensors with 3, 4, or 5 dimensions are supported");
  if (groups <= 0 || tensor.size(0) % groups != 0) throw Error("dim 0 must be divisible by groups");
  const int64_t out_per_group = tensor.size(0) / groups;
  const int64_t identities = std::min(out_per_group, tensor.size(1));
  std::vector<double> values(static_cast<size_t>(tensor.numel()), 0.0);
  std::vector<int64_t> strides(static_cast<size_t>(dims), 1);
  for (int64_t d = dims - 2; d >= 0; --d) strides[d] = strides[d + 1] * tensor.size(d + 1);
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t c = 0; c < identities; ++c) {
      int64_t at = (g * out_per_group + c) * strides[0] + c * strides[1];
      for (int64_t d = 2; d < dims; ++d) at += tensor.size(d) / 2 * strides[d];
      values[static_cast<size_t>(at)] = 1.0;
    }
  }
  autograd::NoGradGuard no_grad;
  tensor.copy_(from_blob(values.data(), tensor.sizes(), TensorOptions().dtype(kFloat64).device(tensor.device())));
  return tensor;
}

Tensor xavier_uniform_(Tensor tensor, double gain) {
  const auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const double bound = std::sqrt(3.0) * gain * std::sqrt(2.0 / double(fan_in + fan_out));
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  const auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  return normal_(std::move(tensor), 0, gain * std::sqrt(2.0 / double(fan_in + fan_out)));
}

Tensor kaiming_uniform_(Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity) {
  if (tensor.numel() == 0) return tensor;  // PyTorch warns and leaves an empty tensor alone
  const double bound = std::sqrt(3.0) * calculate_gain(nonlinearity, a) / std::sqrt(double(fan(tensor, mode)));
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor kaiming_normal_(Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity) {
  if (tensor.numel() == 0) return tensor;
  return normal_(std::move(tensor), 0, calculate_gain(nonlinearity, a) / std::sqrt(double(fan(tensor, mode))));
}

Tensor orthogonal_(Tensor tensor, double gain) {
  if (tensor.dim() < 2) throw Error("Only tensors with 2 or more dimensions are supported");
  if (tensor.numel() == 0) return tensor;
  const int64_t rows = tensor.size(0), cols = tensor.numel() / rows;
  const bool wide = rows < cols;
  const int64_t tall_rows = wide ? cols : rows, tall_cols = wide ? rows : cols;
  autograd::NoGradGuard no_grad;
  // Drawn on the device with ember's generator, so seeds reproduce; the small QR runs on the host.
  const std::vector<double> drawn =
      randn({tall_rows, tall_cols}, TensorOptions().dtype(kFloat64).device(tensor.device())).to_vector<double>();
  const std::vector<double> q = orthonormal_columns(drawn, tall_rows, tall_cols);
  Tensor result = from_blob(q.data(), {tall_rows, tall_cols}, TensorOptions().dtype(kFloat64).device(tensor.device()));
  if (wide) result = result.t();
  tensor.copy_(result.reshape(tensor.sizes()).mul(gain));
  return tensor;
}

Tensor trunc_normal_(Tensor tensor, double mean, double std, double a, double b) {
  autograd::NoGradGuard no_grad;
  auto cdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  const double low = cdf((a - mean) / std), high = cdf((b - mean) / std);
  std::vector<double> values =
      rand({tensor.numel()}, TensorOptions().dtype(kFloat64).device(tensor.device())).to_vector<double>();
  for (double& v : values) {
    const double p = std::clamp(low + v * (high - low), 1e-300, 1 - 1e-16);
    v = std::clamp(mean + std * normal_quantile(p), a, b);
  }
  tensor.copy_(from_blob(values.data(), tensor.sizes(), TensorOptions().dtype(kFloat64).device(tensor.device())));
  return tensor;
}

}  // namespace ember::nn::init
