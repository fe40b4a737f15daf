#include "tests/same_error.h"

#include <gtest/gtest.h>
#include <torch/csrc/autograd/function.h>

#include <exception>

#include "autograd/node.h"
#include "tests/oracle.h"

namespace ember::test {

void expect_same_error(const std::function<void()>& ember_call, const std::function<void()>& torch_call,
                       const std::string& what) {
  const std::string expected = torch_error(torch_call);
  try {
    ember_call();
    ADD_FAILURE() << what << ": ember threw nothing; LibTorch: " << expected;
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()), expected) << what;
  }
}

void expect_same_backward_error(const Tensor& ember_out, const at::Tensor& torch_out) {
  ASSERT_TRUE(ember_out.grad_fn());
  EXPECT_EQ(ember_out.grad_fn()->name(), torch_out.grad_fn()->name());
  try {
    ember_out.sum().backward();
    ADD_FAILURE() << "backward through " << ember_out.grad_fn()->name() << " did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), torch_error([&] { torch_out.sum().backward(); }));
  }
}

}  // namespace ember::test
