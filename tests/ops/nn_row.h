#pragma once
// Rows of nn::functional ops, written once in LibTorch's spelling: `F::` and the option tags
// (kSum, kMean, kBatchMean, ...) resolve to ember's on one side and LibTorch's on the other.
//
//   EMBER_NN_OP("mse_loss sum", 2, F::mse_loss(x[0], x[1], F::MSELossFuncOptions(kSum)))
//
// Where the spellings differ (ATen's op on LibTorch's side), EMBER_NN_OP_PAIR takes both; each uses x:
//
//   EMBER_NN_OP_PAIR("cdist p=1", 2, F::cdist(x[0], x[1], 1), at::cdist(x[0], x[1], 1))
#include <torch/torch.h>

#include "ember.h"
#include "tests/op_registry.h"

namespace ember::test {

namespace ember_spelling {
namespace F = ::ember::nn::functional;
using ::ember::kBatchMean, ::ember::kMax, ::ember::kMean, ::ember::kNone, ::ember::kSum;
}  // namespace ember_spelling

namespace torch_spelling {
namespace F = ::torch::nn::functional;
using ::torch::kBatchMean, ::torch::kMax, ::torch::kMean, ::torch::kNone, ::torch::kSum;
}  // namespace torch_spelling

template <class EmberCall, class TorchCall>
OpRow op_pair(std::string name, size_t arity, EmberCall ember_call, TorchCall torch_call) {
  OpRow row;
  row.name = std::move(name);
  row.arity = arity;
  row.ember = EmberFn(ember_call);
  row.torch = TorchFn(torch_call);
  return row;
}

}  // namespace ember::test

#define EMBER_NN_OP(name, arity, ...)                                 \
  ::ember::test::op_pair(                                             \
      name, arity,                                                    \
      [](const std::vector<::ember::Tensor>& x) -> ::ember::Tensor {  \
        using namespace ::ember::test::ember_spelling;                \
        return __VA_ARGS__;                                           \
      },                                                              \
      [](const std::vector<at::Tensor>& x) -> at::Tensor {            \
        using namespace ::ember::test::torch_spelling;                \
        return __VA_ARGS__;                                           \
      })

#define EMBER_NN_OP_PAIR(name, arity, ember_call, torch_call)                     \
  ::ember::test::op_pair(                                                        \
      name, arity, [](const std::vector<::ember::Tensor>& x) { return ember_call; }, \
      [](const std::vector<at::Tensor>& x) { return torch_call; })
