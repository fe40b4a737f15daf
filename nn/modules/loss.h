#pragma once
// Loss modules (https://pytorch.org/docs/1.13/nn.html#loss-functions): each holds its options (and
// weights as buffers, as Python registers them) and calls its nn::functional loss.
#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/cross_entropy.h"
#include "nn/options/loss.h"

namespace ember::nn {

// Mean absolute error |x - y| (https://pytorch.org/docs/1.13/generated/torch.nn.L1Loss.html).
//   nn::L1Loss loss;  loss(prediction, target)
class L1LossImpl : public Cloneable<L1LossImpl> {
 public:
  explicit L1LossImpl(L1LossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);

  L1LossOptions options;
};
EMBER_MODULE(L1Loss);

// Mean squared error (x - y)^2 (https://pytorch.org/docs/1.13/generated/torch.nn.MSELoss.html).
//   nn::MSELoss loss(ember::kSum);  loss(prediction, target)
class MSELossImpl : public Cloneable<MSELossImpl> {
 public:
  explicit MSELossImpl(MSELossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);

  MSELossOptions options;
};
EMBER_MODULE(MSELoss);

// Squared error below beta, absolute error above (https://pytorch.org/docs/1.13/generated/torch.nn.SmoothL1Loss.html).
//   nn::SmoothL1Loss loss(nn::SmoothL1LossOptions().beta(0.5));
class SmoothL1LossImpl : public Cloneable<SmoothL1LossImpl> {
 public:
  explicit SmoothL1LossImpl(SmoothL1LossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);

  SmoothL1LossOptions options;
};
EMBER_MODULE(SmoothL1Loss);

// Squared error below delta, delta-scaled absolute error above (https://pytorch.org/docs/1.13/generated/torch.nn.HuberLoss.html).
//   nn::HuberLoss loss(nn::HuberLossOptions().delta(2));
class HuberLossImpl : public Cloneable<HuberLossImpl> {
 public:
  explicit HuberLossImpl(HuberLossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);

  HuberLossOptions options;
};
EMBER_MODULE(HuberLoss);

// Binary cross-entropy of probabilities (https://pytorch.org/docs/1.13/generated/torch.nn.BCELoss.html).
//   nn::BCELoss loss;  loss(probabilities, target)
class BCELossImpl : public Cloneable<BCELossImpl> {
 public:
  explicit BCELossImpl(BCELossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);

  BCELossOptions options;
  Tensor weight;
};
EMBER_MODULE(BCELoss);

// Binary cross-entropy of logits (sigmoid fused, stable) (https://pytorch.org/docs/1.13/generated/torch.nn.BCEWithLogitsLoss.html).
//   nn::BCEWithLogitsLoss loss(nn::BCEWithLogitsLossOptions().pos_weight(w));
class BCEWithLogitsLossImpl : public Cloneable<BCEWithLogitsLossImpl> {
 public:
  explicit BCEWithLogitsLossImpl(BCEWithLogitsLossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);

  BCEWithLogitsLossOptions options;
  Tensor weight;
  Tensor pos_weight;
};
EMBER_MODULE(BCEWithLogitsLoss);

// Kullback-Leibler divergence of log-probabilities from a target (https://pytorch.org/docs/1.13/generated/torch.nn.KLDivLoss.html).
//   nn::KLDivLoss loss(nn::KLDivLossOptions(ember::kBatchMean));
class KLDivLossImpl : public Cloneable<KLDivLossImpl> {
 public:
  explicit KLDivLossImpl(KLDivLossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);

  KLDivLossOptions options;
};
EMBER_MODULE(KLDivLoss);

// Two-class logistic loss log(1 + exp(-y x)) (https://pytorch.org/docs/1.13/generated/torch.nn.SoftMarginLoss.html).
//   nn::SoftMarginLoss loss;  loss(scores, labels_plus_minus_one)
class SoftMarginLossImpl : public Cloneable<SoftMarginLossImpl> {
 public:
  explicit SoftMarginLossImpl(SoftMarginLossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);

  SoftMarginLossOptions options;
};
EMBER_MODULE(SoftMarginLoss);

// Negative log-likelihood of a Poisson target (https://pytorch.org/docs/1.13/generated/torch.nn.PoissonNLLLoss.html).
//   nn::PoissonNLLLoss loss;  loss(log_rates, counts)
class PoissonNLLLossImpl : public Cloneable<PoissonNLLLossImpl> {
 public:
  explicit PoissonNLLLossImpl(PoissonNLLLossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);

  PoissonNLLLossOptions options;
};
EMBER_MODULE(PoissonNLLLoss);

// x where y = 1, max(0, margin - x) where y = -1 (https://pytorch.org/docs/1.13/generated/torch.nn.HingeEmbeddingLoss.html).
//   nn::HingeEmbeddingLoss loss;  loss(distances, labels)
class HingeEmbeddingLossImpl : public Cloneable<HingeEmbeddingLossImpl> {
 public:
  explicit HingeEmbeddingLossImpl(HingeEmbeddingLossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);

  HingeEmbeddingLossOptions options;
};
EMBER_MODULE(HingeEmbeddingLoss);

// Multi-class hinge loss (https://pytorch.org/docs/1.13/generated/torch.nn.MultiMarginLoss.html).
//   nn::MultiMarginLoss loss;  loss(scores, classes)
class MultiMarginLossImpl : public Cloneable<MultiMarginLossImpl> {
 public:
  explicit MultiMarginLossImpl(MultiMarginLossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);

  MultiMarginLossOptions options;
  Tensor weight;
};
EMBER_MODULE(MultiMarginLoss);

// Multi-label hinge loss over target class lists ended by -1 (https://pytorch.org/docs/1.13/generated/torch.nn.MultiLabelMarginLoss.html).
//   nn::MultiLabelMarginLoss loss;  loss(scores, targets)
class MultiLabelMarginLossImpl : public Cloneable<MultiLabelMarginLossImpl> {
 public:
  explicit MultiLabelMarginLossImpl(MultiLabelMarginLossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);

  MultiLabelMarginLossOptions options;
};
EMBER_MODULE(MultiLabelMarginLoss);

// max(0, -y (x1 - x2) + margin) (https://pytorch.org/docs/1.13/generated/torch.nn.MarginRankingLoss.html).
//   nn::MarginRankingLoss loss;  loss(x1, x2, y)
class MarginRankingLossImpl : public Cloneable<MarginRankingLossImpl> {
 public:
  explicit MarginRankingLossImpl(MarginRankingLossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target);

  MarginRankingLossOptions options;
};
EMBER_MODULE(MarginRankingLoss);

// 1 - cos(x1, x2) where y = 1, max(0, cos - margin) where y = -1 (https://pytorch.org/docs/1.13/generated/torch.nn.CosineEmbeddingLoss.html).
//   nn::CosineEmbeddingLoss loss;  loss(x1, x2, y)
class CosineEmbeddingLossImpl : public Cloneable<CosineEmbeddingLossImpl> {
 public:
  explicit CosineEmbeddingLossImpl(CosineEmbeddingLossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target);

  CosineEmbeddingLossOptions options;
};
EMBER_MODULE(CosineEmbeddingLoss);

// max(0, margin + d(a, p) - d(a, n)) with p-norm distances (https://pytorch.org/docs/1.13/generated/torch.nn.TripletMarginLoss.html).
//   nn::TripletMarginLoss loss;  loss(anchor, positive, negative)
class TripletMarginLossImpl : public Cloneable<TripletMarginLossImpl> {
 public:
  explicit TripletMarginLossImpl(TripletMarginLossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative);

  TripletMarginLossOptions options;
};
EMBER_MODULE(TripletMarginLoss);

// Negative log-likelihood of a Gaussian target with predicted variance (https://pytorch.org/docs/1.13/generated/torch.nn.GaussianNLLLoss.html).
//   nn::GaussianNLLLoss loss;  loss(mean, target, var)
class GaussianNLLLossImpl : public Cloneable<GaussianNLLLossImpl> {
 public:
  explicit GaussianNLLLossImpl(GaussianNLLLossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target, const Tensor& var);

  GaussianNLLLossOptions options;
};
EMBER_MODULE(GaussianNLLLoss);

// Log-softmax over the classes and negative log-likelihood of the targets, fused
// (https://pytorch.org/docs/1.13/generated/torch.nn.CrossEntropyLoss.html). Targets are class indices
// (N) or (N, d1, ...), or class probabilities shaped as the input.
//   nn::CrossEntropyLoss loss(nn::CrossEntropyLossOptions().label_smoothing(0.1));  loss(logits, labels)
class CrossEntropyLossImpl : public Cloneable<CrossEntropyLossImpl> {
 public:
  explicit CrossEntropyLossImpl(CrossEntropyLossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);

  CrossEntropyLossOptions options;
  Tensor weight;
};
EMBER_MODULE(CrossEntropyLoss);

// Negative log-likelihood of class-index targets under log-probabilities
// (https://pytorch.org/docs/1.13/generated/torch.nn.NLLLoss.html).
//   nn::NLLLoss loss;  loss(log_softmax(logits, 1), labels)
class NLLLossImpl : public Cloneable<NLLLossImpl> {
 public:
  explicit NLLLossImpl(NLLLossOptions options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);

  NLLLossOptions options;
  Tensor weight;
};
EMBER_MODULE(NLLLoss);

}  // namespace ember::nn
