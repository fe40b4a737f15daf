// Test entry point: validation layers are always on, and a validation message anywhere fails the run.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "runtime/vulkan/context.h"
#include "tensor/functions.h"

namespace {

// LibTorch seeds its default generator at random per process, so a LibTorch module built with its
// default initialisation drew new weights on every run. Comparisons through ReLU and max pooling are
// discontinuous: 9 of 600 seeds of the porting test's float32 CNN put a pre-activation within rounding of
// zero, or two pooled values within rounding of each other, and its gradients then differed from
// LibTorch's by up to 670 tolerances (in float64 all 9 passed). Each test starts from the same seed instead,
// whatever ran before it; ember's default generator from its start-up seed, so that a test run alone
// (--gtest_filter) draws what it drew in its ctest batch.
class SeedGeneratorsPerTest : public testing::EmptyTestEventListener {
  void OnTestStart(const testing::TestInfo&) override {
    at::manual_seed(0);
    ember::manual_seed(ember::Generator().initial_seed());
  }
};

}  // namespace

int main(int argc, char** argv) {
  setenv("EMBER_VALIDATION", "1", /*overwrite=*/1);
  testing::InitGoogleTest(&argc, argv);
  testing::UnitTest::GetInstance()->listeners().Append(new SeedGeneratorsPerTest);
  int result = RUN_ALL_TESTS();
  // Messages raised outside any test (for example while devices are destroyed at exit) still fail.
  for (const auto& message : ember::vulkan::take_validation_messages()) {
    std::fprintf(stderr, "Vulkan validation outside a test: %s\n", message.c_str());
    result = 1;
  }
  // Leave without static destructors. Devices are never destroyed (runtime/device.cpp), so their stream
  // threads still run while LibTorch's and the tests' statics are torn down; under parallel ctest that
  // race crashed 2 of 1,270 processes after their tests had passed ("double free or corruption").
  std::fflush(nullptr);
  std::_Exit(result);
}
