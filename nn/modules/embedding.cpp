#include "nn/modules/embedding.h"

#include "nn/functional/embedding.h"
#include "nn/init.h"
#include "nn/repr.h"

namespace ember::nn {

namespace {

// The table's initial values: `given` (checked against the sizes), or N(0, 1) with a zero padding row.
Tensor table_weight(const Tensor& given, int64_t rows, int64_t dim) {
  if (!given.defined()) return empty({rows, dim});
  if (!(given.sizes() == IntArrayRef{rows, dim})) {
    throw Error("Shape of _weight does not match num_embeddings and embedding_dim");
  }
  return given;
}

void zero_row(const Tensor& weight, std::optional<int64_t> row) {
  if (!row) return;
  NoGradGuard no_grad;
  weight.select(0, *row < 0 ? *row + weight.size(0) : *row).fill_(0);
}

// ", max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, sparse=True", as far as each differs from
// its default, in Python's order.
std::string optional_settings(const std::optional<double>& max_norm, double norm_type, bool scale_grad_by_freq) {
  std::string text;
  if (max_norm) text += ", max_norm=" + repr_float(*max_norm);
  if (norm_type != 2) text += ", norm_type=" + repr_float(norm_type);
  if (scale_grad_by_freq) text += ", scale_grad_by_freq=True";
  return text;
}

}  // namespace

EmbeddingImpl::EmbeddingImpl(EmbeddingOptions options) : options(std::move(options)) { reset(); }

void EmbeddingImpl::reset() {
  if (options.padding_idx()) {
    const int64_t rows = options.num_embeddings();
    if (*options.padding_idx() >= rows || *options.padding_idx() < -rows) {
      throw Error("Padding_idx must be within num_embeddings");
    }
    if (*options.padding_idx() < 0) options.padding_idx(*options.padding_idx() + rows);
  }
  const bool given = options._weight().defined();
  weight = register_parameter("weight", table_weight(options._weight(), options.num_embeddings(), options.embedding_dim()));
  if (!given) reset_parameters();
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  zero_row(weight, options.padding_idx());
}

std::string EmbeddingImpl::extra_repr() const {
  std::string text = std::to_string(options.num_embeddings()) + ", " + std::to_string(options.embedding_dim());
  if (options.padding_idx()) text += ", padding_idx=" + std::to_string(*options.padding_idx());
  text += optional_settings(options.max_norm(), options.norm_type(), options.scale_grad_by_freq());
  if (options.sparse()) text += ", sparse=True";
  return text;
}

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  return functional::embedding(indices, weight,
                               functional::EmbeddingFuncOptions()
                                   .padding_idx(options.padding_idx())
                                   .max_norm(options.max_norm())
                                   .norm_type(options.norm_type())
                                   .scale_grad_by_freq(options.scale_grad_by_freq())
                                   .sparse(options.sparse()));
}

Embedding Embedding::from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options) {
  if (embeddings.dim() != 2) throw Error("Embeddings parameter is expected to be 2-dimensional");
  Embedding table(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                      ._weight(embeddings)
                      .padding_idx(options.padding_idx())
                      .max_norm(options.max_norm())
                      .norm_type(options.norm_type())
                      .scale_grad_by_freq(options.scale_grad_by_freq())
                      .sparse(options.sparse()));
  table->weight.requires_grad_(!options.freeze());
  return table;
}

EmbeddingBagImpl::EmbeddingBagImpl(EmbeddingBagOptions options) : options(std::move(options)) { reset(); }

void EmbeddingBagImpl::reset() {
  if (options.padding_idx()) {
    const int64_t rows = options.num_embeddings();
    if (*options.padding_idx() >= rows || *options.padding_idx() < -rows) {
      throw Error("padding_idx must be within num_embeddings");
    }
    if (*options.padding_idx() < 0) options.padding_idx(*options.padding_idx() + rows);
  }
  const bool given = options._weight().defined();
  weight = register_parameter("weight", table_weight(options._weight(), options.num_embeddings(), options.embedding_dim()));
  if (!given) reset_parameters();
}

void EmbeddingBagImpl::reset_parameters() {
  init::normal_(weight);
  zero_row(weight, options.padding_idx());
}

std::string EmbeddingBagImpl::extra_repr() const {
  std::string text = std::to_string(options.num_embeddings()) + ", " + std::to_string(options.embedding_dim());
  text += optional_settings(options.max_norm(), options.norm_type(), options.scale_grad_by_freq());
  text += ", mode=" + std::string(enum_name(options.mode()));
  if (options.padding_idx()) text += ", padding_idx=" + std::to_string(*options.padding_idx());
  return text;
}

Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights) {
  return functional::embedding_bag(input, weight,
                                   functional::EmbeddingBagFuncOptions()
                                       .offsets(offsets)
                                       .max_norm(options.max_norm())
                                       .norm_type(options.norm_type())
                                       .scale_grad_by_freq(options.scale_grad_by_freq())
                                       .mode(options.mode())
                                       .sparse(options.sparse())
                                       .per_sample_weights(per_sample_weights)
                                       .include_last_offset(options.include_last_offset())
                                       .padding_idx(options.padding_idx()));
}

EmbeddingBag EmbeddingBag::from_pretrained(const Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& options) {
  if (embeddings.dim() != 2) throw Error("Embeddings parameter is expected to be 2-dimensional");
  EmbeddingBag bags(EmbeddingBagOptions(embeddings.size(0), embeddings.size(1))
                        ._weight(embeddings)
                        .max_norm(options.max_norm())
                        .norm_type(options.norm_type())
                        .scale_grad_by_freq(options.scale_grad_by_freq())
                        .mode(options.mode())
                        .sparse(options.sparse())
                        .include_last_offset(options.include_last_offset())
                        .padding_idx(options.padding_idx()));
  bags->weight.requires_grad_(!options.freeze());
  return bags;
}

}  // namespace ember::nn
