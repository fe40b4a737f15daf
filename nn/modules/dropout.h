#pragma once
// Dropout layers (https://pytorch.org/docs/1.13/nn.html#dropout-layers): in training each element (or
// channel) is zeroed with probability p and the rest scaled by 1/(1-p); in eval they pass unchanged.
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/dropout.h"

namespace ember::nn {

// Zeroes elements (https://pytorch.org/docs/1.13/generated/torch.nn.Dropout.html).
//   nn::Dropout drop(0.25);  drop(x)
class DropoutImpl : public Cloneable<DropoutImpl> {
 public:
  explicit DropoutImpl(const DropoutOptions& options = {});
  void reset() override;
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);
  DropoutOptions options;
};
EMBER_MODULE(Dropout);

// Zeroes whole channels of (N, C, L) or (C, L) input (https://pytorch.org/docs/1.13/generated/torch.nn.Dropout1d.html).
//   nn::Dropout1d drop(0.1);  drop(x)
class Dropout1dImpl : public Cloneable<Dropout1dImpl> {
 public:
  explicit Dropout1dImpl(const Dropout1dOptions& options = {});
  void reset() override;
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);
  Dropout1dOptions options;
};
EMBER_MODULE(Dropout1d);

// Zeroes whole channels of (N, C, H, W) or (C, H, W) input (https://pytorch.org/docs/1.13/generated/torch.nn.Dropout2d.html).
//   nn::Dropout2d drop(0.1);  drop(x)
class Dropout2dImpl : public Cloneable<Dropout2dImpl> {
 public:
  explicit Dropout2dImpl(const Dropout2dOptions& options = {});
  void reset() override;
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);
  Dropout2dOptions options;
};
EMBER_MODULE(Dropout2d);

}  // namespace ember::nn
