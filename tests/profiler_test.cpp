// profiler::Profile (runtime/profiler.h): it times the Vulkan kernels launched while it runs, on every
// stream, and nothing before or after; its table names them; profiles nest; and one that goes out of
// scope stops.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "runtime/kernels/memory.h"
#include "runtime/vulkan/kernel_profile.h"
#include "test_support.h"

namespace ember::test {
namespace {

class ProfilerTest : public VulkanTest {
 protected:
  // `count` fills of every other float of 1024 on `on`, not waited for: strided, so each is one fill_32
  // dispatch (a contiguous fill of repeating words is a buffer fill, which is no dispatch).
  void fill(Stream& on, int count) {
    memory_.push_back(device->allocate(4096, on.shared_from_this()));
    const TensorRef out = view(memory_.back().get(), DType::Float32, {512}, {2});
    for (int i = 0; i < count; ++i) device->kernels().get<MemoryKernels>().fill(on, FillArgs{out, 1.5 + i});
  }

  static uint64_t dispatches_of(const std::vector<profiler::KernelAverage>& kernels, const std::string& name) {
    auto it = std::find_if(kernels.begin(), kernels.end(), [&](const auto& k) { return k.name == name; });
    return it == kernels.end() ? 0 : it->count;
  }
  // fill_32's dispatches in the run's totals (EMBER_PROFILE's).
  static uint64_t fills_timed_in_the_run() {
    for (const vulkan::KernelTime& time : vulkan::kernel_times()) {
      if (time.shader == "fill_32") return time.dispatches;
    }
    return 0;
  }

  std::vector<std::shared_ptr<Allocation>> memory_;
};

TEST_F(ProfilerTest, TimesTheKernelsLaunchedWhileItRunsOnEveryStream) {
  Stream& main = *device->default_stream();
  const std::shared_ptr<Stream> side = device->create_stream();
  fill(main, 2);  // recorded before the profile, in a batch still open when it starts
  profiler::Profile profile;
  EXPECT_TRUE(profile.running());
  fill(main, 3);
  fill(*side, 4);
  profile.stop();  // waits: nothing was synchronized before
  EXPECT_FALSE(profile.running());
  const std::vector<profiler::KernelAverage> kernels = profile.key_averages();
  EXPECT_EQ(dispatches_of(kernels, "fill_32"), 7u) << profile.table();
  for (const profiler::KernelAverage& kernel : kernels) EXPECT_GT(kernel.device_time_total_ms, 0.0) << kernel.name;
  EXPECT_GT(profile.timestamp_overhead_ms(), 0.0);
  const std::string table = profile.table();
  EXPECT_NE(table.find("fill_32"), std::string::npos) << table;
  EXPECT_NE(table.find("all, net"), std::string::npos) << table;

  // After stop, nothing more is timed, and the profile keeps what it measured.
  const uint64_t timed_before = fills_timed_in_the_run();
  fill(main, 2);
  main.synchronize();
  EXPECT_EQ(dispatches_of(profile.key_averages(), "fill_32"), 7u);
  if (!vulkan::kernel_profiling()) {  // EMBER_PROFILE=1 times every batch of the run
    EXPECT_EQ(fills_timed_in_the_run(), timed_before);
  }
}

TEST_F(ProfilerTest, ProfilesNestAndStopWhenTheyGoOutOfScope) {
  Stream& main = *device->default_stream();
  profiler::Profile outer;
  fill(main, 1);
  {
    profiler::Profile inner;
    fill(main, 2);
    EXPECT_EQ(dispatches_of(inner.key_averages(), "fill_32"), 2u);
  }
  fill(main, 3);
  EXPECT_TRUE(vulkan::profile_running()) << "the outer profile still runs";
  EXPECT_EQ(dispatches_of(outer.key_averages(), "fill_32"), 6u);
  EXPECT_FALSE(vulkan::profile_running());
  {
    profiler::Profile unstopped;
    fill(main, 1);
  }
  EXPECT_FALSE(vulkan::profile_running()) << "a profile that goes out of scope stops";
  main.synchronize();
}

TEST_F(ProfilerTest, AProfileOfNothingIsEmpty) {
  profiler::Profile profile;
  EXPECT_TRUE(profile.key_averages().empty());
  EXPECT_EQ(profile.timestamp_overhead_ms(), 0.0);
  EXPECT_NE(profile.table().find("all, net"), std::string::npos);
}

// The profile counts tensor ops by the kernels they launch.
TEST_F(ProfilerTest, TensorOpsShowUpAsTheirKernels) {
  const Tensor a = ember::rand({64, 64}, TensorOptions().device(device));
  device->synchronize();
  profiler::Profile profile;
  const Tensor b = (a + a).exp().sum();
  (void)b.item<float>();
  profile.stop();
  uint64_t dispatches = 0;
  for (const profiler::KernelAverage& kernel : profile.key_averages()) dispatches += kernel.count;
  EXPECT_GE(dispatches, 2u) << profile.table();
}

}  // namespace
}  // namespace ember::test
