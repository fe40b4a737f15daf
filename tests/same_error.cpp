#include "tests/same_error.h"

#include <gtest/gtest.h>

#include <exception>

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

}  // namespace ember::test
