#pragma once
// One bad call checked against LibTorch: ember's message is LibTorch's, word for word.
#include <functional>
#include <string>

namespace at {
class Tensor;
}
namespace ember {
class Tensor;
}

namespace ember::test {

// For ops without a derivative: `ember_out` has `torch_out`'s grad_fn name, and backward through its sum
// fails with LibTorch's message.
void expect_same_backward_error(const Tensor& ember_out, const at::Tensor& torch_out);

// `ember_call` throws with the message LibTorch throws from `torch_call`; `what` names the case.
void expect_same_error(const std::function<void()>& ember_call, const std::function<void()>& torch_call,
                       const std::string& what);

}  // namespace ember::test

// One call spelled once for both libraries: `call` may use F (the functional namespace), K (the namespace
// of the option tags, ember:: or torch::) and `in` (the input, an ember or a LibTorch tensor).
#define EXPECT_SAME_ERROR(ember_in, torch_in, call) \
  ::ember::test::expect_same_error(                 \
      [&] {                                         \
        namespace F = ::ember::nn::functional;      \
        namespace K = ::ember;                      \
        const auto& in = ember_in;                  \
        (void)(call);                               \
      },                                            \
      [&] {                                         \
        namespace F = ::torch::nn::functional;      \
        namespace K = ::torch;                      \
        const auto& in = torch_in;                  \
        (void)(call);                               \
      },                                            \
      #call)
