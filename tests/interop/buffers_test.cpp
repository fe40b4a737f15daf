// An application's buffers as tensors, and tensors' buffers in the application's hands, under validation:
// each side writes with its own commands, the other reads, ordered by semaphores on the GPU.
#include <cstring>

#include "ember.h"
#include "ember/vulkan.h"
#include "tests/interop/application.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class InteropBuffersTest : public DeviceTest {
 protected:
  Application app;
  std::shared_ptr<Device> device = vulkan::adopt_device(app.external());
  Stream& stream = *device->default_stream();
};

uint32_t bits_of(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

TEST_F(InteropBuffersTest, ApplicationFillsABufferAndEmberReadsItAsATensor) {
  constexpr int64_t n = 1000;
  constexpr VkDeviceSize offset = 256;  // the tensor starts inside the buffer
  AppBuffer buffer = app.create_buffer(offset + n * 4, vulkan::tensor_buffer_usage(), false);
  VkSemaphore written = app.create_timeline();
  // The application's fill runs before ember's reads only because ember waits for its semaphore.
  app.submit([&](VkCommandBuffer commands) {
    vkCmdFillBuffer(commands, buffer.buffer, 0, offset, bits_of(-1.0f));
    vkCmdFillBuffer(commands, buffer.buffer, offset, n * 4, bits_of(1.5f));
  }, {}, {{written, 1}}, false);
  {
    Tensor tensor = vulkan::from_buffer(device, buffer.buffer, offset, n * 4, kFloat32, {n / 2, 2});
    vulkan::wait_semaphore(stream, written, 1);
    EXPECT_EQ(tensor.sizes(), IntArrayRef({n / 2, 2}));
    EXPECT_EQ(tensor.sum().item<float>(), 1.5f * n);
    // A strided view of the same memory: every other element of the second column.
    Tensor strided = vulkan::from_buffer(device, buffer.buffer, offset, n * 4, kFloat32, {n / 4}, {4});
    EXPECT_EQ(strided.to_vector<float>(), std::vector<float>(n / 4, 1.5f));
  }
  app.destroy(buffer);
}

TEST_F(InteropBuffersTest, EmberWritesAnApplicationBufferInPlace) {
  constexpr int64_t n = 300;
  AppBuffer buffer = app.create_buffer(n * 4, vulkan::tensor_buffer_usage(), true);
  std::memset(buffer.mapped, 0, n * 4);
  VkSemaphore done = app.create_timeline();
  {
    Tensor tensor = vulkan::from_buffer(device, buffer.buffer, 0, n * 4, kInt32, {n});
    tensor.copy_(arange(n, dtype(kInt32).device(device)).mul(3));
    vulkan::signal_semaphore(stream, done, 1);
    const uint64_t value = 1;
    VkSemaphoreWaitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    wait.semaphoreCount = 1;
    wait.pSemaphores = &done;
    wait.pValues = &value;
    ASSERT_EQ(vkWaitSemaphores(app.device, &wait, 10'000'000'000ull), VK_SUCCESS);
  }
  std::vector<int32_t> values(n);
  std::memcpy(values.data(), buffer.mapped, n * 4);
  for (int32_t i = 0; i < n; ++i) ASSERT_EQ(values[i], 3 * i) << "at " << i;
  app.destroy(buffer);
}

TEST_F(InteropBuffersTest, ApplicationCopiesAnExportedTensorWithoutAHostWaitInEmber) {
  constexpr int64_t n = 777;
  Tensor source = arange(2 * n, dtype(kFloat32).device(device)).reshape({2, n});
  Tensor row = source.select(0, 1);  // a view: the export names the view's own bytes
  const vulkan::BufferView view = vulkan::export_buffer(row);
  EXPECT_EQ(view.range, static_cast<VkDeviceSize>(n * 4));
  EXPECT_TRUE(view.usage & VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  EXPECT_TRUE(view.usage & VK_BUFFER_USAGE_VERTEX_BUFFER_BIT) << "tensors can be drawn from as they are";
  AppBuffer readback = app.create_buffer(n * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  VkSemaphore timeline = app.create_timeline();
  const uint64_t waits_before = stream.stats().host_waits;
  vulkan::signal_semaphore(stream, timeline, 5);
  app.submit([&](VkCommandBuffer commands) {
    const VkBufferCopy region{view.offset, 0, view.range};
    vkCmdCopyBuffer(commands, view.buffer, readback.buffer, 1, &region);
  }, {{timeline, 5}});
  EXPECT_EQ(stream.stats().host_waits, waits_before);
  std::vector<float> values(n);
  std::memcpy(values.data(), readback.mapped, n * 4);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(values[i], static_cast<float>(n + i));
  app.destroy(readback);
}

TEST_F(InteropBuffersTest, GraphicsEmptyMakesItsOwnBufferWithTheUsageAsked) {
  Tensor tensor = vulkan::graphics_empty(device, {64, 3}, kFloat32,
                                         {.extra_usage = VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT, .dedicated = true});
  tensor.fill_(2.0f);
  EXPECT_EQ(tensor.sum().item<float>(), 384.0f);
  const vulkan::BufferView view = vulkan::export_buffer(tensor);
  EXPECT_EQ(view.offset, 0u);
  EXPECT_EQ(view.range, 64u * 3 * 4);
  EXPECT_TRUE(view.usage & VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT);
  EXPECT_TRUE(view.usage & VK_BUFFER_USAGE_INDEX_BUFFER_BIT);
}

TEST_F(InteropBuffersTest, BadImportsAreErrorsThatNameTheProblem) {
  AppBuffer buffer = app.create_buffer(1024, vulkan::tensor_buffer_usage(), false);
  expect_error_containing([&] { vulkan::from_buffer(device, VK_NULL_HANDLE, 0, 64, kFloat32, {16}); },
                          "VK_NULL_HANDLE");
  expect_error_containing([&] { vulkan::from_buffer(device, buffer.buffer, 2, 64, kFloat32, {16}); },
                          "multiples of 4");
  expect_error_containing([&] { vulkan::from_buffer(device, buffer.buffer, 0, 64, kFloat32, {17}); },
                          "past the 64 bytes given");
  expect_error_containing([&] { vulkan::from_buffer(device, buffer.buffer, 0, 64, kFloat32, {4, 4}, {1}); },
                          "1 strides for 2 sizes");
  expect_error_containing([&] { vulkan::from_buffer(device, buffer.buffer, 0, 64, kFloat32, {-1}); },
                          "negative size");
  expect_error_containing([&] { vulkan::export_memory_fd(zeros({4}, TensorOptions().device(device)), nullptr); }, "not exportable");
  app.destroy(buffer);
}

}  // namespace
}  // namespace ember::test
