#pragma once
// The application side of the interop tests: a graphics application's own instance (validation forwarded
// to ember's log), device, queues, buffers, images, semaphores and submits, written with plain Vulkan
// as an application would.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ember/vulkan.h"

namespace ember::test {

struct AppBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;  // when host-visible
  VkDeviceSize size = 0;
};

struct AppImage {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
};

using SemaphoreValues = std::vector<std::pair<VkSemaphore, uint64_t>>;

class Application {
 public:
  struct Options {
    bool external_memory = false;  // enable VK_KHR_external_memory_fd when the device has it
    bool two_queues = false;       // a second queue, when the device has one
    bool other_family = false;     // the second queue from another family with transfer, when there is one
  };
  Application();
  explicit Application(Options options);
  ~Application();
  Application(const Application&) = delete;
  Application& operator=(const Application&) = delete;

  // What ember gets to adopt the device with `queue` (0 or 1) as its queue.
  vulkan::ExternalDevice external(int queue = 0) const;

  AppBuffer create_buffer(VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible);
  // A buffer over memory another device exported as an opaque fd (dedicated, as ember exports it).
  // A dedicated import, into a buffer made as the exporter's: `size` and `usage` as export_buffer gives them.
  AppBuffer import_buffer(int fd, VkDeviceSize allocation_size, VkDeviceSize size, VkBufferUsageFlags usage);
  void destroy(AppBuffer& buffer);
  AppImage create_image(VkFormat format, uint32_t width, uint32_t height);
  void destroy(AppImage& image);
  VkSemaphore create_timeline();
  VkSemaphore create_binary();

  // Records commands, submits them to `queue` waiting for and signalling semaphore values (binary ones
  // take any value), and waits on the host for them when `wait` is true.
  void submit(const std::function<void(VkCommandBuffer)>& record, const SemaphoreValues& waits = {},
              const SemaphoreValues& signals = {}, bool wait = true, int queue = 0);
  void wait_idle();

  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  uint32_t family = 0;
  uint32_t families[2] = {0, 0};  // of each queue
  VkQueue queues[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
  bool has_second_queue = false;
  bool has_external_memory = false;
  std::string second_queue_missing;  // why, when there is none
  std::string external_memory_missing;

 private:
  uint32_t memory_type(uint32_t allowed, VkMemoryPropertyFlags required) const;

  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkCommandPool pools_[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
  std::vector<VkSemaphore> semaphores_;
  std::vector<std::string> enabled_extensions_;
};

}  // namespace ember::test
