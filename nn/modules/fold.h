#pragma once
// Fold and Unfold (https://pytorch.org/docs/1.13/generated/torch.nn.Unfold.html): sliding blocks of an
// image as columns, and columns summed back into an image, over F::unfold and F::fold.
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/fold.h"

namespace ember::nn {

// Sums (N, C·kh·kw, L) columns into (N, C, H, W) (https://pytorch.org/docs/1.13/generated/torch.nn.Fold.html).
//   nn::Fold fold(nn::FoldOptions({4, 5}, {2, 2}));  fold(columns)  // (1, 12, 12) -> (1, 3, 4, 5)
class FoldImpl : public Cloneable<FoldImpl> {
 public:
  FoldImpl(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : FoldImpl(FoldOptions(output_size, kernel_size)) {}
  explicit FoldImpl(const FoldOptions& options) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  FoldOptions options;
};
EMBER_MODULE(Fold);

// Extracts sliding blocks of (N, C, H, W) as (N, C·kh·kw, L) columns.
//   nn::Unfold unfold(nn::UnfoldOptions({2, 3}).stride(2));  unfold(x)
class UnfoldImpl : public Cloneable<UnfoldImpl> {
 public:
  UnfoldImpl(ExpandingArray<2> kernel_size) : UnfoldImpl(UnfoldOptions(kernel_size)) {}
  explicit UnfoldImpl(const UnfoldOptions& options) : options(options) {}
  void reset() override {}
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input);

  UnfoldOptions options;
};
EMBER_MODULE(Unfold);

}  // namespace ember::nn
