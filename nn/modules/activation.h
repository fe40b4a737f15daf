#pragma once
// Activation modules (https://pytorch.org/docs/1.13/nn.html#non-linear-activations-weighted-sum-nonlinearity
// and #non-linear-activations-other). Each wraps its nn::functional op; the ones with an `inplace`
// option write into their input when it is set.
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/activation.h"

namespace ember::nn {

// x > 0 ? x : alpha (exp(x) - 1) (https://pytorch.org/docs/1.13/generated/torch.nn.ELU.html).
//   nn::ELU elu(nn::ELUOptions().alpha(0.5));  elu(x)
class ELUImpl : public Cloneable<ELUImpl> {
 public:
  explicit ELUImpl(const ELUOptions& options = {}) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(Tensor input);

  ELUOptions options;
};
EMBER_MODULE(ELU);

// scale elu(x, alpha) with SELU's fixed constants (https://pytorch.org/docs/1.13/generated/torch.nn.SELU.html).
//   nn::SELU selu;  selu(x)
class SELUImpl : public Cloneable<SELUImpl> {
 public:
  explicit SELUImpl(const SELUOptions& options = {}) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(Tensor input);

  SELUOptions options;
};
EMBER_MODULE(SELU);

// max(0, x) + min(0, alpha (exp(x / alpha) - 1)) (https://pytorch.org/docs/1.13/generated/torch.nn.CELU.html).
//   nn::CELU celu(nn::CELUOptions().alpha(2.0));  celu(x)
class CELUImpl : public Cloneable<CELUImpl> {
 public:
  explicit CELUImpl(const CELUOptions& options = {}) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(Tensor input);

  CELUOptions options;
};
EMBER_MODULE(CELU);

// a sigmoid(b), a and b the halves of dim (https://pytorch.org/docs/1.13/generated/torch.nn.GLU.html).
//   nn::GLU glu(1);  glu(x)  // (N, 2C) -> (N, C)
class GLUImpl : public Cloneable<GLUImpl> {
 public:
  explicit GLUImpl(const GLUOptions& options = {}) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  GLUOptions options;
};
EMBER_MODULE(GLU);

// x Phi(x), or its tanh approximation (https://pytorch.org/docs/1.13/generated/torch.nn.GELU.html).
//   nn::GELU gelu(nn::GELUOptions().approximate("tanh"));  gelu(x)
class GELUImpl : public Cloneable<GELUImpl> {
 public:
  explicit GELUImpl(GELUOptions options = {}) : options(std::move(options)) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  GELUOptions options;
};
EMBER_MODULE(GELU);

// 0 on [-lambda, lambda], x elsewhere (https://pytorch.org/docs/1.13/generated/torch.nn.Hardshrink.html).
//   nn::Hardshrink shrink(0.3);  shrink(x)
class HardshrinkImpl : public Cloneable<HardshrinkImpl> {
 public:
  explicit HardshrinkImpl(const HardshrinkOptions& options = {}) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  HardshrinkOptions options;
};
EMBER_MODULE(Hardshrink);

// clamp(x, min_val, max_val) (https://pytorch.org/docs/1.13/generated/torch.nn.Hardtanh.html).
//   nn::Hardtanh hardtanh(nn::HardtanhOptions().min_val(-2).max_val(2));  hardtanh(x)
class HardtanhImpl : public Cloneable<HardtanhImpl> {
 public:
  explicit HardtanhImpl(const HardtanhOptions& options = {});
  void reset() override;  // checks max_val > min_val, as LibTorch's
  std::string extra_repr() const override;
  Tensor forward(Tensor input);

  HardtanhOptions options;
};
EMBER_MODULE(Hardtanh);

// x > 0 ? x : negative_slope x (https://pytorch.org/docs/1.13/generated/torch.nn.LeakyReLU.html).
//   nn::LeakyReLU leaky(nn::LeakyReLUOptions().negative_slope(0.2));  leaky(x)
class LeakyReLUImpl : public Cloneable<LeakyReLUImpl> {
 public:
  explicit LeakyReLUImpl(const LeakyReLUOptions& options = {}) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(Tensor input);

  LeakyReLUOptions options;
};
EMBER_MODULE(LeakyReLU);

// log(sigmoid(x)) (https://pytorch.org/docs/1.13/generated/torch.nn.LogSigmoid.html).
//   nn::LogSigmoid logsigmoid;  logsigmoid(x)
class LogSigmoidImpl : public Cloneable<LogSigmoidImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(LogSigmoid);

// x > 0 ? x : a x with a learned slope a, one or one per channel
// (https://pytorch.org/docs/1.13/generated/torch.nn.PReLU.html).
//   nn::PReLU prelu(nn::PReLUOptions().num_parameters(64));  prelu(x)  // x: (N, 64, ...)
class PReLUImpl : public Cloneable<PReLUImpl> {
 public:
  explicit PReLUImpl(const PReLUOptions& options = {});
  void reset() override;  // weight = init everywhere
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  PReLUOptions options;
  Tensor weight;  // (num_parameters)
};
EMBER_MODULE(PReLU);

// max(0, x) (https://pytorch.org/docs/1.13/generated/torch.nn.ReLU.html).
//   nn::ReLU relu;  relu(x)
class ReLUImpl : public Cloneable<ReLUImpl> {
 public:
  explicit ReLUImpl(const ReLUOptions& options = {}) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(Tensor input);

  ReLUOptions options;
};
EMBER_MODULE(ReLU);

// min(max(0, x), 6) (https://pytorch.org/docs/1.13/generated/torch.nn.ReLU6.html).
//   nn::ReLU6 relu6;  relu6(x)
class ReLU6Impl : public Cloneable<ReLU6Impl> {
 public:
  explicit ReLU6Impl(const ReLU6Options& options = {}) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(Tensor input);

  ReLU6Options options;
};
EMBER_MODULE(ReLU6);

// leaky relu with a slope drawn from U[lower, upper) per element in training, (lower + upper) / 2 in
// eval (https://pytorch.org/docs/1.13/generated/torch.nn.RReLU.html).
//   nn::RReLU rrelu;  rrelu(x)
class RReLUImpl : public Cloneable<RReLUImpl> {
 public:
  explicit RReLUImpl(const RReLUOptions& options = {}) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(Tensor input);

  RReLUOptions options;
};
EMBER_MODULE(RReLU);

// x sigmoid(x) (https://pytorch.org/docs/1.13/generated/torch.nn.SiLU.html).
//   nn::SiLU silu;  silu(x)
class SiLUImpl : public Cloneable<SiLUImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(SiLU);

// x tanh(softplus(x)) (https://pytorch.org/docs/1.13/generated/torch.nn.Mish.html).
//   nn::Mish mish;  mish(x)
class MishImpl : public Cloneable<MishImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Mish);

// 1 / (1 + exp(-x)) (https://pytorch.org/docs/1.13/generated/torch.nn.Sigmoid.html).
//   nn::Sigmoid sigmoid;  sigmoid(x)
class SigmoidImpl : public Cloneable<SigmoidImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Sigmoid);

// tanh(x) (https://pytorch.org/docs/1.13/generated/torch.nn.Tanh.html).
//   nn::Tanh tanh;  tanh(x)
class TanhImpl : public Cloneable<TanhImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Tanh);

// exp(x) / sum(exp(x)) along dim (https://pytorch.org/docs/1.13/generated/torch.nn.Softmax.html).
//   nn::Softmax softmax(1);  softmax(x)
class SoftmaxImpl : public Cloneable<SoftmaxImpl> {
 public:
  explicit SoftmaxImpl(int64_t dim) : SoftmaxImpl(SoftmaxOptions(dim)) {}
  explicit SoftmaxImpl(const SoftmaxOptions& options) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  SoftmaxOptions options;
};
EMBER_MODULE(Softmax);

// softmax(-x) along dim (https://pytorch.org/docs/1.13/generated/torch.nn.Softmin.html).
//   nn::Softmin softmin(1);  softmin(x)
class SoftminImpl : public Cloneable<SoftminImpl> {
 public:
  explicit SoftminImpl(int64_t dim) : SoftminImpl(SoftminOptions(dim)) {}
  explicit SoftminImpl(const SoftminOptions& options) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  SoftminOptions options;
};
EMBER_MODULE(Softmin);

// log(softmax(x)) along dim (https://pytorch.org/docs/1.13/generated/torch.nn.LogSoftmax.html).
//   nn::LogSoftmax log_softmax(1);  log_softmax(x)
class LogSoftmaxImpl : public Cloneable<LogSoftmaxImpl> {
 public:
  explicit LogSoftmaxImpl(int64_t dim) : LogSoftmaxImpl(LogSoftmaxOptions(dim)) {}
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  LogSoftmaxOptions options;
};
EMBER_MODULE(LogSoftmax);

// softmax over the channels of each position: dim -3 of a 3-d or 4-d input
// (https://pytorch.org/docs/1.13/generated/torch.nn.Softmax2d.html).
//   nn::Softmax2d softmax2d;  softmax2d(x)  // x: (N, C, H, W)
class Softmax2dImpl : public Cloneable<Softmax2dImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Softmax2d);

// log(1 + exp(beta x)) / beta, linear where beta x > threshold
// (https://pytorch.org/docs/1.13/generated/torch.nn.Softplus.html).
//   nn::Softplus softplus(nn::SoftplusOptions().beta(2));  softplus(x)
class SoftplusImpl : public Cloneable<SoftplusImpl> {
 public:
  explicit SoftplusImpl(const SoftplusOptions& options = {}) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  SoftplusOptions options;
};
EMBER_MODULE(Softplus);

// x -+ lambda outside [-lambda, lambda], 0 inside (https://pytorch.org/docs/1.13/generated/torch.nn.Softshrink.html).
//   nn::Softshrink shrink(0.3);  shrink(x)
class SoftshrinkImpl : public Cloneable<SoftshrinkImpl> {
 public:
  explicit SoftshrinkImpl(const SoftshrinkOptions& options = {}) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  SoftshrinkOptions options;
};
EMBER_MODULE(Softshrink);

// x / (1 + |x|) (https://pytorch.org/docs/1.13/generated/torch.nn.Softsign.html).
//   nn::Softsign softsign;  softsign(x)
class SoftsignImpl : public Cloneable<SoftsignImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Softsign);

// x - tanh(x) (https://pytorch.org/docs/1.13/generated/torch.nn.Tanhshrink.html).
//   nn::Tanhshrink tanhshrink;  tanhshrink(x)
class TanhshrinkImpl : public Cloneable<TanhshrinkImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Tanhshrink);

// x > threshold ? x : value (https://pytorch.org/docs/1.13/generated/torch.nn.Threshold.html).
//   nn::Threshold threshold(0.1, 20);  threshold(x)
class ThresholdImpl : public Cloneable<ThresholdImpl> {
 public:
  ThresholdImpl(double threshold, double value) : ThresholdImpl(ThresholdOptions(threshold, value)) {}
  explicit ThresholdImpl(const ThresholdOptions& options) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(Tensor input);

  ThresholdOptions options;
};
EMBER_MODULE(Threshold);

// min(max(x + 3, 0), 6) / 6 (https://pytorch.org/docs/1.13/generated/torch.nn.Hardsigmoid.html). Python's
// module; LibTorch 1.13 has none.
//   nn::Hardsigmoid hardsigmoid;  hardsigmoid(x)
class HardsigmoidImpl : public Cloneable<HardsigmoidImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Hardsigmoid);

// x hardsigmoid(x) (https://pytorch.org/docs/1.13/generated/torch.nn.Hardswish.html). Python's module;
// LibTorch 1.13 has none.
//   nn::Hardswish hardswish;  hardswish(x)
class HardswishImpl : public Cloneable<HardswishImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Hardswish);

}  // namespace ember::nn
