// Semaphore handoffs between ember's stream and an application's submits, both ways, with the
// application's own work in between: on a shared queue, on two queues, with binary semaphores, and
// around training steps. Nothing here lets the host order the two sides.
#include <cstring>

#include "ember.h"
#include "ember/vulkan.h"
#include "tests/interop/application.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class InteropSyncTest : public DeviceTest {};

// Rounds of: ember adds 1 to every element of the application's buffer, then the application copies the
// buffer aside and doubles... by copying the first half onto the second. Each side waits for the other's
// semaphore value; the host waits only for the last round.
void ping_pong(Application& app, int ember_queue, int app_queue) {
  std::shared_ptr<Device> device = vulkan::adopt_device(app.external(ember_queue));
  Stream& stream = *device->default_stream();
  constexpr int64_t n = 512;
  constexpr int rounds = 4;
  AppBuffer shared = app.create_buffer(n * 4, vulkan::tensor_buffer_usage(), false);
  AppBuffer snapshots = app.create_buffer(rounds * n * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  VkSemaphore timeline = app.create_timeline();
  app.submit([&](VkCommandBuffer commands) { vkCmdFillBuffer(commands, shared.buffer, 0, n * 4, 0); }, {},
             {{timeline, 1}}, false, app_queue);
  const uint64_t host_waits = stream.stats().host_waits;
  uint64_t value = 1;
  {
    Tensor tensor = vulkan::from_buffer(device, shared.buffer, 0, n * 4, kInt32, {n});
    for (int round = 0; round < rounds; ++round) {
      vulkan::wait_semaphore(stream, timeline, value);
      tensor.add_(1);
      vulkan::signal_semaphore(stream, timeline, ++value);
      // The application's own work: keep what ember wrote, then overwrite the first element.
      app.submit([&](VkCommandBuffer commands) {
        const VkBufferCopy region{0, static_cast<VkDeviceSize>(round) * n * 4, n * 4};
        vkCmdCopyBuffer(commands, shared.buffer, snapshots.buffer, 1, &region);
        VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        barrier.srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
        barrier.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1,
                             &barrier, 0, nullptr, 0, nullptr);
        vkCmdFillBuffer(commands, shared.buffer, 0, 4, 100 * (round + 1));
      }, {{timeline, value}}, {{timeline, value + 1}}, round == rounds - 1, app_queue);
      ++value;
    }
    EXPECT_EQ(stream.stats().host_waits, host_waits) << "ember waited on the host between handoffs";
  }
  std::vector<int32_t> seen(rounds * n);
  std::memcpy(seen.data(), snapshots.mapped, seen.size() * 4);
  for (int round = 0; round < rounds; ++round) {
    // Element 0 carries the application's last write plus ember's add; the rest count ember's rounds.
    EXPECT_EQ(seen[round * n], round == 0 ? 1 : 100 * round + 1) << "round " << round;
    EXPECT_EQ(seen[round * n + n - 1], round + 1) << "round " << round;
  }
  app.destroy(shared);
  app.destroy(snapshots);
}

TEST_F(InteropSyncTest, HandoffsBothWaysOnASharedQueue) {
  Application app;
  ping_pong(app, 0, 0);
}

TEST_F(InteropSyncTest, HandoffsBothWaysOnTwoQueues) {
  Application app({.two_queues = true});
  if (!app.has_second_queue) GTEST_SKIP() << "two queues needed: " << app.second_queue_missing;
  ping_pong(app, 1, 0);
}

TEST_F(InteropSyncTest, BinarySemaphoresOrderBothWays) {
  Application app;
  std::shared_ptr<Device> device = vulkan::adopt_device(app.external());
  Stream& stream = *device->default_stream();
  constexpr int64_t n = 64;
  AppBuffer buffer = app.create_buffer(n * 4, vulkan::tensor_buffer_usage(), true);
  VkSemaphore to_ember = app.create_binary();
  VkSemaphore to_app = app.create_binary();
  app.submit([&](VkCommandBuffer commands) { vkCmdFillBuffer(commands, buffer.buffer, 0, n * 4, 7); }, {},
             {{to_ember, 0}}, false);
  {
    Tensor tensor = vulkan::from_buffer(device, buffer.buffer, 0, n * 4, kInt32, {n});
    vulkan::wait_binary_semaphore(stream, to_ember);
    tensor.mul_(6);
    vulkan::signal_binary_semaphore(stream, to_app);
    app.submit([](VkCommandBuffer) {}, {{to_app, 0}});
  }
  std::vector<int32_t> values(n);
  std::memcpy(values.data(), buffer.mapped, n * 4);
  EXPECT_EQ(values, std::vector<int32_t>(n, 42));
  app.destroy(buffer);
}

TEST_F(InteropSyncTest, AFutureNamesTheTimelinePointARenderPassWaitsOn) {
  Application app;
  std::shared_ptr<Device> device = vulkan::adopt_device(app.external());
  Stream& stream = *device->default_stream();
  Tensor values = arange(100, dtype(kFloat32).device(device)).sqrt();
  Future<void> done = stream.completion();
  const vulkan::TimelinePoint point = vulkan::timeline_point(done);
  EXPECT_NE(point.semaphore, VK_NULL_HANDLE);
  EXPECT_GT(point.value, 0u);
  const vulkan::BufferView view = vulkan::export_buffer(values);
  AppBuffer readback = app.create_buffer(view.range, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  app.submit([&](VkCommandBuffer commands) {
    const VkBufferCopy region{view.offset, 0, view.range};
    vkCmdCopyBuffer(commands, view.buffer, readback.buffer, 1, &region);
  }, {{point.semaphore, point.value}});
  std::vector<float> seen(100);
  std::memcpy(seen.data(), readback.mapped, 400);
  EXPECT_EQ(seen, values.to_vector<float>());
  EXPECT_TRUE(done.ready());
  expect_error_containing([] { vulkan::timeline_point(Future<int>::ready_value(1)); }, "no stream work");
  app.destroy(readback);
}

TEST_F(InteropSyncTest, TrainingStepsAndTheFramesThatDrawThemNeverWaitOnTheHost) {
  Application app;
  std::shared_ptr<Device> device = vulkan::adopt_device(app.external());
  Stream& stream = *device->default_stream();
  manual_seed(3);
  nn::Linear model(nn::LinearOptions(8, 4));
  model->to(device);
  optim::Adam optimizer(model->parameters(), optim::AdamOptions(1e-2));
  Tensor inputs = randn({32, 8}, TensorOptions().device(device));
  Tensor targets = randn({32, 4}, TensorOptions().device(device));
  Tensor shown = vulkan::graphics_empty(device, {32, 4}, kFloat32, {});
  const vulkan::BufferView view = vulkan::export_buffer(shown);
  AppBuffer frames = app.create_buffer(view.range * 3, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  VkSemaphore timeline = app.create_timeline();
  uint64_t value = 0;
  std::vector<Tensor> drawn;
  const uint64_t host_waits = stream.stats().host_waits;
  for (int step = 0; step < 3; ++step) {
    optimizer.zero_grad();
    Tensor loss = nn::functional::mse_loss(model->forward(inputs), targets);
    loss.backward();
    optimizer.step();
    // The frame reads `shown` while the next step trains: ember writes it only after the frame is done.
    if (value > 0) vulkan::wait_semaphore(stream, timeline, value);
    shown.copy_(model->forward(inputs).detach());
    drawn.push_back(shown.clone());
    vulkan::signal_semaphore(stream, timeline, ++value);
    app.submit([&](VkCommandBuffer commands) {
      const VkBufferCopy region{view.offset, static_cast<VkDeviceSize>(step) * view.range, view.range};
      vkCmdCopyBuffer(commands, view.buffer, frames.buffer, 1, &region);
    }, {{timeline, value}}, {{timeline, value + 1}}, false);
    ++value;
  }
  EXPECT_EQ(stream.stats().host_waits, host_waits) << "a training step or a frame waited on the host";
  app.wait_idle();
  for (int step = 0; step < 3; ++step) {
    std::vector<float> frame(32 * 4);
    std::memcpy(frame.data(), static_cast<char*>(frames.mapped) + step * view.range, view.range);
    EXPECT_EQ(frame, drawn[step].to_vector<float>()) << "frame " << step;
  }
  EXPECT_NE(drawn[0].to_vector<float>(), drawn[2].to_vector<float>()) << "the model trained";
  app.destroy(frames);
}

TEST_F(InteropSyncTest, OwnershipMovesBetweenQueueFamilies) {
  Application app({.other_family = true});
  std::shared_ptr<Device> device = vulkan::adopt_device(app.external());
  Stream& stream = *device->default_stream();
  constexpr int64_t n = 16;
  Tensor tensor = vulkan::graphics_empty(device, {n}, kFloat32, {});
  tensor.fill_(1.0f);
  // Within one family a transfer is no barrier at all, and stays valid.
  vulkan::release_buffer(stream, tensor, vulkan::queue_family(*device));
  vulkan::acquire_buffer(stream, tensor, vulkan::queue_family(*device));
  if (!app.has_second_queue) GTEST_SKIP() << "ownership transfer needs a second queue family: " << app.second_queue_missing;

  // ember releases the buffer to the other family; the application acquires it there, copies it out
  // and releases it back; ember acquires it and writes it again.
  const uint32_t ours = vulkan::queue_family(*device), theirs = app.families[1];
  const vulkan::BufferView view = vulkan::export_buffer(tensor);
  AppBuffer readback = app.create_buffer(view.range, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  VkSemaphore timeline = app.create_timeline();
  vulkan::release_buffer(stream, tensor, theirs);
  vulkan::signal_semaphore(stream, timeline, 1);
  app.submit([&](VkCommandBuffer commands) {
    VkBufferMemoryBarrier barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    barrier.srcQueueFamilyIndex = ours;
    barrier.dstQueueFamilyIndex = theirs;
    barrier.buffer = view.buffer;
    barrier.offset = view.offset;
    barrier.size = view.range;
    barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr,
                         1, &barrier, 0, nullptr);
    const VkBufferCopy region{view.offset, 0, view.range};
    vkCmdCopyBuffer(commands, view.buffer, readback.buffer, 1, &region);
    barrier.srcQueueFamilyIndex = theirs;
    barrier.dstQueueFamilyIndex = ours;
    barrier.srcAccessMask = 0;
    barrier.dstAccessMask = 0;
    vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0,
                         nullptr, 1, &barrier, 0, nullptr);
  }, {{timeline, 1}}, {{timeline, 2}}, false, 1);
  vulkan::wait_semaphore(stream, timeline, 2);
  vulkan::acquire_buffer(stream, tensor, theirs);
  tensor.add_(1);
  EXPECT_EQ(tensor.sum().item<float>(), 2.0f * n);
  std::vector<float> seen(n);
  std::memcpy(seen.data(), readback.mapped, view.range);
  EXPECT_EQ(seen, std::vector<float>(n, 1.0f));
  app.destroy(readback);
}

}  // namespace
}  // namespace ember::test
