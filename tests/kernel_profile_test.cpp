// EMBER_PROFILE (runtime/vulkan/kernel_profile.h): a stream made with it on times each dispatch under
// its shader's name; streams made without it add nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "runtime/kernels/memory.h"
#include "runtime/scoped_environment.h"
#include "runtime/vulkan/kernel_profile.h"
#include "test_support.h"

namespace ember::test {
namespace {

class KernelProfileTest : public VulkanTest {
 protected:
  // `count` fills of every other float of 1024 on `on`: strided, so each is a fill_32 dispatch (a
  // contiguous fill of repeating words is a buffer fill, which is no dispatch).
  void fill(Stream& on, int count) {
    auto memory = device->allocate(4096, on.shared_from_this());
    const TensorRef out = view(memory.get(), DType::Float32, {512}, {2});
    for (int i = 0; i < count; ++i) device->kernels().get<MemoryKernels>().fill(on, FillArgs{out, 1.5 + i});
    on.synchronize();
  }

  // A new stream, made while EMBER_PROFILE is `profile` ("" unsets it).
  std::shared_ptr<Stream> stream_made_with(const std::string& profile) {
    ScopedEnvironment environment("EMBER_PROFILE", profile);
    return device->create_stream();
  }

  static const vulkan::KernelTime* find(const std::vector<vulkan::KernelTime>& times, const std::string& shader) {
    auto it = std::find_if(times.begin(), times.end(), [&](const auto& t) { return t.shader == shader; });
    return it == times.end() ? nullptr : &*it;
  }
};

TEST_F(KernelProfileTest, AProfiledStreamTimesEachDispatchUnderItsShader) {
  const std::shared_ptr<Stream> profiled = stream_made_with("1");
  vulkan::reset_kernel_times();
  fill(*profiled, 3);
  const auto times = vulkan::kernel_times();
  const vulkan::KernelTime* fills = find(times, "fill_32");
  ASSERT_NE(fills, nullptr) << vulkan::kernel_profile_report();
  EXPECT_EQ(fills->dispatches, 3u);
  EXPECT_GT(fills->milliseconds, 0.0);
  const std::string report = vulkan::kernel_profile_report();
  EXPECT_NE(report.find("fill_32"), std::string::npos) << report;
}

// Each batch times a pair of timestamps around nothing, and the report takes that mean off each dispatch.
TEST_F(KernelProfileTest, ItMeasuresWhatTheTimestampsCostAlone) {
  const std::shared_ptr<Stream> profiled = stream_made_with("1");
  vulkan::reset_kernel_times();
  EXPECT_EQ(vulkan::empty_interval_nanoseconds(), 0.0);
  fill(*profiled, 2);
  fill(*profiled, 2);
  EXPECT_GT(vulkan::empty_interval_nanoseconds(), 0.0);
  const vulkan::KernelTime* fills = find(vulkan::kernel_times(), "fill_32");
  ASSERT_NE(fills, nullptr);
  EXPECT_EQ(fills->dispatches, 4u);
  const std::string report = vulkan::kernel_profile_report();
  EXPECT_NE(report.find("net us"), std::string::npos) << report;
  EXPECT_NE(report.find("all, net"), std::string::npos) << report;
  vulkan::reset_kernel_times();
  EXPECT_EQ(vulkan::empty_interval_nanoseconds(), 0.0);
}

TEST_F(KernelProfileTest, StreamsMadeWithoutItAreNotTimed) {
  const std::shared_ptr<Stream> plain = stream_made_with("");
  vulkan::reset_kernel_times();
  fill(*plain, 2);
  EXPECT_TRUE(vulkan::kernel_times().empty()) << vulkan::kernel_profile_report();
}

}  // namespace
}  // namespace ember::test
