// Memory that one device exports as an opaque fd and another imports: an application's VkDevice, ember on
// an adopted device, and the CUDA backend. Cases the device cannot run skip, saying which extension or
// backend is missing.
#include <unistd.h>

#include <cstring>

#include "ember.h"
#include "ember/cuda.h"
#include "ember/vulkan.h"
#include "tests/interop/application.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class InteropExternalMemoryTest : public DeviceTest {
 protected:
  void SetUp() override {
    ember_device = get_device("vulkan");
    std::string why;
    if (!vulkan::supports_external_memory(*ember_device, &why)) GTEST_SKIP() << why;
    if (!app.has_external_memory) GTEST_SKIP() << app.external_memory_missing;
  }

  // A tensor in exportable memory on ember's own device, holding 0.5 * arange(n).
  Tensor exported_values(int64_t n) {
    Tensor tensor = vulkan::graphics_empty(ember_device, {n}, kFloat32, {.exportable = true});
    tensor.copy_(arange(n, TensorOptions().device(ember_device)).mul(0.5));
    // The importer is another VkDevice, which shares no semaphore with ember's: the host orders them.
    ember_device->synchronize();
    return tensor;
  }

  Application app{{.external_memory = true}};
  std::shared_ptr<Device> ember_device;
};

TEST_F(InteropExternalMemoryTest, TheApplicationsDeviceReadsWhatEmberExported) {
  constexpr int64_t n = 1000;
  Tensor tensor = exported_values(n);
  VkDeviceSize allocation_size = 0;
  const int fd = vulkan::export_memory_fd(tensor, &allocation_size);
  ASSERT_GE(fd, 0);
  EXPECT_GE(allocation_size, static_cast<VkDeviceSize>(n * 4));
  const vulkan::BufferView exported = vulkan::export_buffer(tensor);
  AppBuffer imported = app.import_buffer(fd, allocation_size, exported.range, exported.usage);  // takes the fd
  AppBuffer readback = app.create_buffer(n * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  app.submit([&](VkCommandBuffer commands) {
    const VkBufferCopy region{0, 0, n * 4};
    vkCmdCopyBuffer(commands, imported.buffer, readback.buffer, 1, &region);
  });
  std::vector<float> seen(n);
  std::memcpy(seen.data(), readback.mapped, n * 4);
  EXPECT_EQ(seen, tensor.to_vector<float>());
  app.destroy(readback);
  app.destroy(imported);
}

TEST_F(InteropExternalMemoryTest, EmberImportsTheSameMemoryOnAnAdoptedDevice) {
  constexpr int64_t n = 513;
  Tensor tensor = exported_values(n);
  std::shared_ptr<Device> adopted = vulkan::adopt_device(app.external());
  ASSERT_TRUE(vulkan::supports_external_memory(*adopted)) << "the application listed the extension";
  VkDeviceSize allocation_size = 0;
  const int fd = vulkan::export_memory_fd(tensor, &allocation_size);
  {
    Tensor same = vulkan::import_memory_fd(adopted, fd, allocation_size, kFloat32, {n});
    EXPECT_EQ(same.to_vector<float>(), tensor.to_vector<float>());
    // A write through the import is seen by the exporter once the host has ordered the two devices.
    same.mul_(2);
    adopted->synchronize();
    EXPECT_EQ(tensor.sum().item<float>(), 2 * 0.5f * n * (n - 1) / 2);
  }
  expect_error_containing([&] { vulkan::import_memory_fd(adopted, -1, allocation_size, kFloat32, {n}); },
                          "is not valid");
  const int second = vulkan::export_memory_fd(tensor, &allocation_size);
  expect_error_containing([&] { vulkan::import_memory_fd(adopted, second, 16, kFloat32, {n}); }, "the memory holds");
  close(second);  // a failed import leaves the descriptor with the caller
}

TEST_F(InteropExternalMemoryTest, CudaSeesTheSameBufferAsVulkan) {
  std::shared_ptr<Device> cuda;
  try {
    cuda = get_device("cuda");
  } catch (const Error& e) {
    GTEST_SKIP() << "no CUDA device: " << e.what();
  }
  constexpr int64_t n = 4096;
  Tensor tensor = exported_values(n);
  VkDeviceSize allocation_size = 0;
  const int fd = vulkan::export_memory_fd(tensor, &allocation_size);
  Tensor same = cuda::import_memory_fd(cuda, fd, allocation_size, kFloat32, {n});
  EXPECT_EQ(same.to_vector<float>(), tensor.to_vector<float>());
  same.add_(1);
  cuda->synchronize();
  EXPECT_EQ(tensor.to_vector<float>(), same.to_vector<float>());
}

class InteropExternalSemaphoreTest : public DeviceTest {};

TEST_F(InteropExternalSemaphoreTest, AnExportableTimelineOrdersTwoStreams) {
  std::shared_ptr<Device> device = get_device("vulkan");
  std::string why;
  if (!vulkan::supports_external_semaphores(*device, &why)) {
    expect_error_containing([&] { vulkan::ExportableTimeline timeline(device); }, "VK_KHR_external_semaphore_fd");
    GTEST_SKIP() << why;
  }
  vulkan::ExportableTimeline timeline(device);
  const int fd = timeline.export_fd();
  EXPECT_GE(fd, 0);
  close(fd);
  // One stream writes and signals; another waits for the value on the GPU before it reads.
  std::shared_ptr<Stream> writer = device->default_stream(), reader = device->create_stream();
  auto values = device->allocate(256 * sizeof(float), writer);
  auto total = device->allocate(sizeof(float), reader);
  device->kernels().get<MemoryKernels>().fill(*writer, {TensorRef::contiguous(*values, DType::Float32, {256}), 2.0});
  vulkan::signal_semaphore(*writer, timeline.semaphore(), 1);
  vulkan::wait_semaphore(*reader, timeline.semaphore(), 1);
  sum_all(*device, *reader, TensorRef::contiguous(*total, DType::Float32, {}),
          TensorRef::contiguous(*values, DType::Float32, {256}));
  EXPECT_EQ(download<float>(*reader, total, 1)[0], 512.0f);
}

TEST_F(InteropExternalSemaphoreTest, VulkanAndCudaOrderEachOtherThroughAnExportedTimeline) {
  std::shared_ptr<Device> vulkan_device = get_device("vulkan"), cuda_device;
  try {
    cuda_device = get_device("cuda");
  } catch (const Error& e) {
    GTEST_SKIP() << "no CUDA device: " << e.what();
  }
  std::string why;
  if (!vulkan::supports_external_memory(*vulkan_device, &why) ||
      !vulkan::supports_external_semaphores(*vulkan_device, &why)) {
    GTEST_SKIP() << why;
  }
  constexpr int64_t n = 1024;
  Tensor shared = vulkan::graphics_empty(vulkan_device, {n}, kFloat32, {.exportable = true});
  VkDeviceSize allocation_size = 0;
  // Apart: the export writes allocation_size, which one call's arguments could read first.
  const int fd = vulkan::export_memory_fd(shared, &allocation_size);
  Tensor same = cuda::import_memory_fd(cuda_device, fd, allocation_size, kFloat32, {n});
  vulkan::ExportableTimeline timeline(vulkan_device);
  cuda::ExternalSemaphore cuda_timeline(cuda_device, timeline.export_fd());
  Stream& vulkan_stream = *vulkan_device->default_stream();
  Stream& cuda_stream = *cuda_device->default_stream();
  shared.fill_(1.0f);
  vulkan::signal_semaphore(vulkan_stream, timeline.semaphore(), 1);
  cuda_timeline.wait(cuda_stream, 1);
  same.mul_(3);  // on CUDA, after Vulkan's fill
  cuda_timeline.signal(cuda_stream, 2);
  vulkan::wait_semaphore(vulkan_stream, timeline.semaphore(), 2);
  EXPECT_EQ(shared.sum().item<float>(), 3.0f * n);  // on Vulkan, after CUDA's multiply
}

class InteropNoCudaTest : public DeviceTest {};

TEST_F(InteropNoCudaTest, CudaImportSaysWhyWhenItCannotRun) {
  std::shared_ptr<Device> vulkan_device = get_device("vulkan");
  // A Vulkan device is no CUDA device; without the backend every call says so.
  expect_error_containing([&] { cuda::import_memory_fd(vulkan_device, 3, 16, kFloat32, {4}); }, "CUDA");
}

}  // namespace
}  // namespace ember::test
