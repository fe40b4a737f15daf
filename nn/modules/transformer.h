#pragma once
// Transformer stacks (https://pytorch.org/docs/1.13/generated/torch.nn.TransformerEncoder.html,
// https://pytorch.org/docs/1.13/generated/torch.nn.TransformerDecoder.html and
// https://pytorch.org/docs/1.13/generated/torch.nn.Transformer.html).
#include <memory>
#include <string>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/modules/container/module_list.h"
#include "nn/options/transformer_coder.h"

namespace ember::nn {

// num_layers copies of an encoder layer, one after another, then norm when set.
//   nn::TransformerEncoder encoder(nn::TransformerEncoderOptions(nn::TransformerEncoderLayerOptions(512, 8), 6));
//   encoder(src)  // (S, N, 512)
class TransformerEncoderImpl : public Cloneable<TransformerEncoderImpl> {
 public:
  explicit TransformerEncoderImpl(TransformerEncoderOptions options);
  void reset() override;
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});

  TransformerEncoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
EMBER_MODULE(TransformerEncoder);

// num_layers copies of a decoder layer over the same memory, then norm when set.
//   nn::TransformerDecoder decoder(nn::TransformerDecoderOptions(nn::TransformerDecoderLayerOptions(512, 8), 6));
//   decoder(tgt, memory)  // (T, N, 512), (S, N, 512)
class TransformerDecoderImpl : public Cloneable<TransformerDecoderImpl> {
 public:
  explicit TransformerDecoderImpl(TransformerDecoderOptions options);
  void reset() override;
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});

  TransformerDecoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
EMBER_MODULE(TransformerDecoder);

// An encoder and a decoder stack, each ending in a LayerNorm; every matrix parameter xavier_uniform_.
//   nn::Transformer model(nn::TransformerOptions(512, 8));  model(src, tgt)  // (S, N, 512), (T, N, 512)
class TransformerImpl : public Cloneable<TransformerImpl> {
 public:
  explicit TransformerImpl(TransformerOptions options = {});
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {}, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& src_key_padding_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});
  // (sz, sz) float32: 0 where a position may attend (j <= i), -inf above the diagonal.
  static Tensor generate_square_subsequent_mask(int64_t sz, const std::shared_ptr<Device>& device = nullptr);

  TransformerOptions options;
  TransformerEncoder encoder = nullptr;
  TransformerDecoder decoder = nullptr;
};
EMBER_MODULE(Transformer);

}  // namespace ember::nn
