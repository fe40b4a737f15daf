#pragma once
// Embedding tables (https://pytorch.org/docs/1.13/nn.html#sparse-layers).
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/embedding.h"

namespace ember::nn {

// A table of num_embeddings vectors looked up by index (https://pytorch.org/docs/1.13/generated/torch.nn.Embedding.html).
//   nn::Embedding table(10, 3);  table(indices)  // (2, 4) int64 -> (2, 4, 3)
class EmbeddingImpl : public Cloneable<EmbeddingImpl> {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options);
  void reset() override;
  // PyTorch's default: N(0, 1), the padding_idx row zero.
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor forward(const Tensor& indices);

  EmbeddingOptions options;
  Tensor weight;  // (num_embeddings, embedding_dim)
};

class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  // A table holding `embeddings` (2-d), frozen (no gradient) unless options.freeze(false).
  static Embedding from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options = {});
};

// Sums, means or maxima of bags of embeddings (https://pytorch.org/docs/1.13/generated/torch.nn.EmbeddingBag.html).
//   nn::EmbeddingBag bags(nn::EmbeddingBagOptions(10, 3).mode(ember::kSum));  bags(indices, offsets)
class EmbeddingBagImpl : public Cloneable<EmbeddingBagImpl> {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(EmbeddingBagOptions options);
  void reset() override;
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor forward(const Tensor& input, const Tensor& offsets = {}, const Tensor& per_sample_weights = {});

  EmbeddingBagOptions options;
  Tensor weight;
};

class EmbeddingBag : public ModuleHolder<EmbeddingBagImpl> {
 public:
  using ModuleHolder<EmbeddingBagImpl>::ModuleHolder;
  static EmbeddingBag from_pretrained(const Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& options = {});
};

}  // namespace ember::nn
