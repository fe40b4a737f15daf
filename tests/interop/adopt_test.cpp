// A graphics application's own VkDevice handed to ember: ember runs work on it, is torn down, and the
// application's device keeps working.
#include <cstring>

#include "ember.h"
#include "ember/vulkan.h"
#include "tests/interop/application.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class InteropTest : public DeviceTest {};

TEST_F(InteropTest, AdoptedDeviceRunsWorkAndSurvivesEmberTeardown) {
  Application app;
  ASSERT_NE(app.device, VK_NULL_HANDLE);
  int queue_locks = 0;
  {
    vulkan::ExternalDevice external = app.external();
    external.lock_queue = [&] { ++queue_locks; };
    external.unlock_queue = [] {};
    std::shared_ptr<Device> device = vulkan::adopt_device(external);
    auto stream = device->default_stream();
    constexpr int64_t n = 5000;
    auto a = device->allocate(n * sizeof(float));
    auto total = device->allocate(sizeof(float));
    device->kernels().get<MemoryKernels>().fill(*stream, {TensorRef::contiguous(*a, DType::Float32, {n}), 0.5});
    sum_all(*device, *stream, TensorRef::contiguous(*total, DType::Float32, {}),
            TensorRef::contiguous(*a, DType::Float32, {n}));
    EXPECT_EQ(download<float>(*stream, total, 1)[0], 2500.0f);
  }  // every ember object is gone here; the application's handles must still be valid
  EXPECT_GT(queue_locks, 0) << "ember submitted under the application's queue lock";
  // The application's device still works on its own.
  AppBuffer buffer = app.create_buffer(256, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  app.submit([&](VkCommandBuffer commands) { vkCmdFillBuffer(commands, buffer.buffer, 0, 256, 0xdeadbeef); });
  uint32_t value;
  std::memcpy(&value, static_cast<char*>(buffer.mapped) + 128, sizeof value);
  EXPECT_EQ(value, 0xdeadbeefu);
  app.destroy(buffer);
}

TEST_F(InteropTest, AnAdoptedDeviceCanBeTheDefault) {
  Application app;
  std::shared_ptr<Device> device = vulkan::adopt_device(app.external());
  set_default_device(device);
  EXPECT_EQ(default_device(), device);
  EXPECT_EQ(zeros({3}).device(), device) << "factories given no device use the default";
  EXPECT_EQ(nn::Linear(2, 3)->weight.device(), device) << "so do module constructors";
  set_default_device(nullptr);
  EXPECT_NE(default_device(), device);
}

}  // namespace
}  // namespace ember::test
