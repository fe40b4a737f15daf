#pragma once
// Linear layers and shape modules (https://pytorch.org/docs/1.13/nn.html#linear-layers).
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/linear.h"

namespace ember::nn {

// Its input unchanged (https://pytorch.org/docs/1.13/generated/torch.nn.Identity.html).
//   nn::Identity id;  id(x) is x
class IdentityImpl : public Cloneable<IdentityImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input) { return input; }
};
EMBER_MODULE(Identity);

// y = x Wᵀ + b (https://pytorch.org/docs/1.13/generated/torch.nn.Linear.html).
//   nn::Linear fc(784, 256);  fc(x)  // x: (*, 784) -> (*, 256)
class LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features) : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);
  void reset() override;
  // PyTorch's default: weight kaiming_uniform_(a=sqrt(5)), bias uniform(±1/sqrt(in_features)).
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  LinearOptions options;
  Tensor weight;  // (out_features, in_features)
  Tensor bias;    // (out_features), undefined without bias
};
EMBER_MODULE(Linear);

// y = x1ᵀ A x2 + b (https://pytorch.org/docs/1.13/generated/torch.nn.Bilinear.html).
//   nn::Bilinear bl(20, 30, 40);  bl(x1, x2)  // (N, 20), (N, 30) -> (N, 40)
class BilinearImpl : public Cloneable<BilinearImpl> {
 public:
  BilinearImpl(int64_t in1, int64_t in2, int64_t out) : BilinearImpl(BilinearOptions(in1, in2, out)) {}
  explicit BilinearImpl(const BilinearOptions& options);
  void reset() override;
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input1, const Tensor& input2);

  BilinearOptions options;
  Tensor weight;  // (out, in1, in2)
  Tensor bias;    // (out)
};
EMBER_MODULE(Bilinear);

// Flattens dims start_dim..end_dim into one (https://pytorch.org/docs/1.13/generated/torch.nn.Flatten.html).
//   nn::Flatten flat;  flat(x)  // (64, 1, 28, 28) -> (64, 784)
class FlattenImpl : public Cloneable<FlattenImpl> {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {}) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  FlattenOptions options;
};
EMBER_MODULE(Flatten);

// Splits dim into sizes (https://pytorch.org/docs/1.13/generated/torch.nn.Unflatten.html).
//   nn::Unflatten unflat(1, {2, 5});  unflat(x)  // (N, 10) -> (N, 2, 5)
class UnflattenImpl : public Cloneable<UnflattenImpl> {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes) : UnflattenImpl(UnflattenOptions(dim, std::move(sizes))) {}
  explicit UnflattenImpl(UnflattenOptions options) : options(std::move(options)) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  UnflattenOptions options;
};
EMBER_MODULE(Unflatten);

}  // namespace ember::nn
