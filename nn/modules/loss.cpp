#include "nn/modules/loss.h"

#include "nn/functional/cross_entropy.h"
#include "nn/functional/loss.h"

namespace ember::nn {

L1LossImpl::L1LossImpl(L1LossOptions options) : options(std::move(options)) { reset(); }

void L1LossImpl::reset() {}

Tensor L1LossImpl::forward(const Tensor& input, const Tensor& target) { return functional::l1_loss(input, target, options); }

MSELossImpl::MSELossImpl(MSELossOptions options) : options(std::move(options)) { reset(); }

void MSELossImpl::reset() {}

Tensor MSELossImpl::forward(const Tensor& input, const Tensor& target) { return functional::mse_loss(input, target, options); }

SmoothL1LossImpl::SmoothL1LossImpl(SmoothL1LossOptions options) : options(std::move(options)) { reset(); }

void SmoothL1LossImpl::reset() {}

Tensor SmoothL1LossImpl::forward(const Tensor& input, const Tensor& target) { return functional::smooth_l1_loss(input, target, options); }

HuberLossImpl::HuberLossImpl(HuberLossOptions options) : options(std::move(options)) { reset(); }

void HuberLossImpl::reset() {}

Tensor HuberLossImpl::forward(const Tensor& input, const Tensor& target) { return functional::huber_loss(input, target, options); }

BCELossImpl::BCELossImpl(BCELossOptions options) : options(std::move(options)) { reset(); }

void BCELossImpl::reset() {
  weight = register_buffer("weight", options.weight());
}

Tensor BCELossImpl::forward(const Tensor& input, const Tensor& target) {
  BCELossOptions current = options;
  current.weight(weight);
  return functional::binary_cross_entropy(input, target, current);
}

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(BCEWithLogitsLossOptions options) : options(std::move(options)) { reset(); }

void BCEWithLogitsLossImpl::reset() {
  weight = register_buffer("weight", options.weight());
  pos_weight = register_buffer("pos_weight", options.pos_weight());
}

Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) {
  BCEWithLogitsLossOptions current = options;
  current.weight(weight);
  current.pos_weight(pos_weight);
  return functional::binary_cross_entropy_with_logits(input, target, current);
}

KLDivLossImpl::KLDivLossImpl(KLDivLossOptions options) : options(std::move(options)) { reset(); }

void KLDivLossImpl::reset() {}

Tensor KLDivLossImpl::forward(const Tensor& input, const Tensor& target) { return functional::kl_div(input, target, options); }

SoftMarginLossImpl::SoftMarginLossImpl(SoftMarginLossOptions options) : options(std::move(options)) { reset(); }

void SoftMarginLossImpl::reset() {}

Tensor SoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) { return functional::soft_margin_loss(input, target, options); }

PoissonNLLLossImpl::PoissonNLLLossImpl(PoissonNLLLossOptions options) : options(std::move(options)) { reset(); }

void PoissonNLLLossImpl::reset() {}

Tensor PoissonNLLLossImpl::forward(const Tensor& input, const Tensor& target) { return functional::poisson_nll_loss(input, target, options); }

HingeEmbeddingLossImpl::HingeEmbeddingLossImpl(HingeEmbeddingLossOptions options) : options(std::move(options)) { reset(); }

void HingeEmbeddingLossImpl::reset() {}

Tensor HingeEmbeddingLossImpl::forward(const Tensor& input, const Tensor& target) { return functional::hinge_embedding_loss(input, target, options); }

MultiMarginLossImpl::MultiMarginLossImpl(MultiMarginLossOptions options) : options(std::move(options)) { reset(); }

void MultiMarginLossImpl::reset() {
  weight = register_buffer("weight", options.weight());
}

Tensor MultiMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  MultiMarginLossOptions current = options;
  current.weight(weight);
  return functional::multi_margin_loss(input, target, current);
}

MultiLabelMarginLossImpl::MultiLabelMarginLossImpl(MultiLabelMarginLossOptions options) : options(std::move(options)) { reset(); }

void MultiLabelMarginLossImpl::reset() {}

Tensor MultiLabelMarginLossImpl::forward(const Tensor& input, const Tensor& target) { return functional::multilabel_margin_loss(input, target, options); }

MarginRankingLossImpl::MarginRankingLossImpl(MarginRankingLossOptions options) : options(std::move(options)) { reset(); }

void MarginRankingLossImpl::reset() {}

Tensor MarginRankingLossImpl::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) { return functional::margin_ranking_loss(input1, input2, target, options); }

CosineEmbeddingLossImpl::CosineEmbeddingLossImpl(CosineEmbeddingLossOptions options) : options(std::move(options)) { reset(); }

void CosineEmbeddingLossImpl::reset() {}

Tensor CosineEmbeddingLossImpl::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) { return functional::cosine_embedding_loss(input1, input2, target, options); }

TripletMarginLossImpl::TripletMarginLossImpl(TripletMarginLossOptions options) : options(std::move(options)) { reset(); }

void TripletMarginLossImpl::reset() {}

Tensor TripletMarginLossImpl::forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) { return functional::triplet_margin_loss(anchor, positive, negative, options); }

GaussianNLLLossImpl::GaussianNLLLossImpl(GaussianNLLLossOptions options) : options(std::move(options)) { reset(); }

void GaussianNLLLossImpl::reset() {}

Tensor GaussianNLLLossImpl::forward(const Tensor& input, const Tensor& target, const Tensor& var) { return functional::gaussian_nll_loss(input, target, var, options); }

CrossEntropyLossImpl::CrossEntropyLossImpl(CrossEntropyLossOptions options) : options(std::move(options)) { reset(); }

void CrossEntropyLossImpl::reset() { weight = register_buffer("weight", options.weight()); }

Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  CrossEntropyLossOptions current = options;
  current.weight(weight);
  return functional::cross_entropy(input, target, current);
}

NLLLossImpl::NLLLossImpl(NLLLossOptions options) : options(std::move(options)) { reset(); }

void NLLLossImpl::reset() { weight = register_buffer("weight", options.weight()); }

Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  NLLLossOptions current = options;
  current.weight(weight);
  return functional::nll_loss(input, target, current);
}

}  // namespace ember::nn
