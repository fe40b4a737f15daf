#include "nn/modules/transformer.h"

#include <limits>

#include "nn/init.h"

namespace ember::nn {

namespace {

// The same kind of module as `norm`, with parameters of its own.
AnyModule cloned(const AnyModule& norm) {
  return norm.is_empty() ? norm : norm.with_module(norm.ptr()->clone());
}

void check_layers(const void* layer, int64_t num_layers, const char* kind) {
  if (!layer) throw Error(std::string(kind) + " needs a layer to copy");
  if (num_layers < 0) throw Error(std::string(kind) + ": num_layers must be non-negative, got " + std::to_string(num_layers));
}

}  // namespace

TransformerEncoderImpl::TransformerEncoderImpl(TransformerEncoderOptions options) : options(std::move(options)) {
  reset();
}

void TransformerEncoderImpl::reset() {
  check_layers(options.encoder_layer().get(), options.num_layers(), "TransformerEncoder");
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i) layers->push_back(options.encoder_layer()->clone());
  norm = cloned(options.norm());
  if (!norm.is_empty()) register_module("norm", norm.ptr());
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask) {
  Tensor x = src;
  for (size_t i = 0; i < layers->size(); ++i) {
    x = detail::call_forward(layers->at<TransformerEncoderLayerImpl>(i), x, src_mask, src_key_padding_mask);
  }
  return norm.is_empty() ? x : norm.forward(x);
}

TransformerDecoderImpl::TransformerDecoderImpl(TransformerDecoderOptions options) : options(std::move(options)) {
  reset();
}

void TransformerDecoderImpl::reset() {
  check_layers(options.decoder_layer().get(), options.num_layers(), "TransformerDecoder");
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i) layers->push_back(options.decoder_layer()->clone());
  norm = cloned(options.norm());
  if (!norm.is_empty()) register_module("norm", norm.ptr());
}

Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                       const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                       const Tensor& memory_key_padding_mask) {
  Tensor x = tgt;
  for (size_t i = 0; i < layers->size(); ++i) {
    x = detail::call_forward(layers->at<TransformerDecoderLayerImpl>(i), x, memory, tgt_mask, memory_mask,
                             tgt_key_padding_mask, memory_key_padding_mask);
  }
  return norm.is_empty() ? x : norm.forward(x);
}

TransformerImpl::TransformerImpl(TransformerOptions options) : options(std::move(options)) { reset(); }

void TransformerImpl::reset() {
  const auto layer_options = TransformerEncoderLayerOptions(options.d_model(), options.nhead())
                                 .dim_feedforward(options.dim_feedforward())
                                 .dropout(options.dropout())
                                 .activation(options.activation())
                                 .layer_norm_eps(options.layer_norm_eps())
                                 .batch_first(options.batch_first())
                                 .norm_first(options.norm_first());
  const auto norm_options = LayerNormOptions({options.d_model()}).eps(options.layer_norm_eps());
  encoder = register_module(
      "encoder", TransformerEncoder(TransformerEncoderOptions(TransformerEncoderLayer(layer_options),
                                                              options.num_encoder_layers())
                                        .norm(AnyModule(LayerNorm(norm_options)))));
  decoder = register_module(
      "decoder", TransformerDecoder(TransformerDecoderOptions(TransformerDecoderLayer(layer_options),
                                                              options.num_decoder_layers())
                                        .norm(AnyModule(LayerNorm(norm_options)))));
  reset_parameters();
}

void TransformerImpl::reset_parameters() {
  for (const Tensor& p : parameters()) {
    if (p.dim() > 1) init::xavier_uniform_(p);
  }
}

Tensor TransformerImpl::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask, const Tensor& tgt_mask,
                                const Tensor& memory_mask, const Tensor& src_key_padding_mask,
                                const Tensor& tgt_key_padding_mask, const Tensor& memory_key_padding_mask) {
  const int64_t batch_dim = options.batch_first() ? 0 : 1;
  if (src.dim() == 3 && (tgt.dim() != 3 || src.size(batch_dim) != tgt.size(batch_dim))) {
    throw Error("the batch number of src and tgt must be equal");
  }
  if (src.size(-1) != options.d_model() || tgt.size(-1) != options.d_model()) {
    throw Error("the feature number of src and tgt must be equal to d_model");
  }
  const Tensor memory = encoder(src, src_mask, src_key_padding_mask);
  return decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
}

Tensor TransformerImpl::generate_square_subsequent_mask(int64_t sz, const std::shared_ptr<Device>& device) {
  return full({sz, sz}, -std::numeric_limits<double>::infinity(),
              TensorOptions().dtype(DType::Float32).device(device ? device : default_device()))
      .triu(1);
}

}  // namespace ember::nn
