#include <limits>

#include "examples/char_gpt/trainer.h"

namespace ember::char_gpt {

std::string sample(Gpt& model, const std::string& vocabulary, int64_t length, double temperature, int64_t top_k,
                   uint64_t seed) {
  NoGradGuard no_grad;
  const bool was_training = model->is_training();
  model->eval();
  const auto& device = model->parameters().front().device();
  const TensorOptions int64_on_device = TensorOptions().dtype(DType::Int64).device(device);
  Generator generator(seed);
  std::vector<int64_t> tokens{static_cast<int64_t>(vocabulary.find('\n'))};
  std::string text;
  for (int64_t i = 0; i < length; ++i) {
    const int64_t window = std::min<int64_t>(static_cast<int64_t>(tokens.size()), model->config.context);
    const Tensor input = from_blob(tokens.data() + tokens.size() - window, {1, window}, int64_on_device);
    Tensor logits = model(input).select(1, window - 1) / temperature;  // (1, vocabulary)
    if (top_k > 0 && top_k < logits.size(-1)) {
      const Tensor kth = std::get<0>(logits.topk(top_k)).narrow(-1, top_k - 1, 1);
      logits = logits.masked_fill(logits < kth, -std::numeric_limits<double>::infinity());
    }
    const int64_t next = multinomial(logits.softmax(-1), 1, false, &generator).item<int64_t>();
    tokens.push_back(next);
    text += vocabulary[static_cast<size_t>(next)];
  }
  model->train(was_training);
  return text;
}

}  // namespace ember::char_gpt
