// Reserved device memory stays flat over 1,000 training steps after the first: the Fashion-MNIST MLP
// (784-256-10) with Adam, a new batch uploaded every step as the loader does, and the loss kept for a
// read every 100 steps, as ember-train's progress bar reads it.
#include <cmath>

#include "ember.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

namespace F = nn::functional;

class TrainingMemoryTest : public BackendTest {};

TEST_P(TrainingMemoryTest, ReservedMemoryStaysFlatOverAThousandSteps) {
  manual_seed(0);
  nn::Sequential model(nn::Flatten(), nn::Linear(784, 256), nn::ReLU(), nn::Linear(256, 10));
  model->to(device);
  optim::Adam optimizer(model->parameters(), optim::AdamOptions(1e-3));
  std::vector<float> pixels(64 * 784);
  std::vector<int64_t> labels(64);
  std::vector<Tensor> unread_losses;
  auto step = [&](int k) {
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<float>((i * 7 + k) % 256) / 255.0f;
    for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int64_t>((i + k) % 10);
    const Tensor x = from_blob(pixels.data(), {64, 1, 28, 28}, TensorOptions(kFloat32).device(device));
    const Tensor y = from_blob(labels.data(), {64}, TensorOptions(kInt64).device(device));
    optimizer.zero_grad();
    const Tensor loss = F::cross_entropy(model->forward(x), y);
    loss.backward();
    optimizer.step();
    unread_losses.push_back(loss.detach());
    if (unread_losses.size() == 100) {
      EXPECT_TRUE(std::isfinite(stack(unread_losses).sum().item<double>()));
      unread_losses.clear();
    }
  };
  step(0);
  device->synchronize();
  const AllocatorStats first = device->allocator().stats();
  uint64_t peak_reserved = first.reserved_bytes;
  for (int k = 1; k <= 1000; ++k) {
    step(k);
    peak_reserved = std::max(peak_reserved, device->allocator().stats().reserved_bytes);
  }
  device->synchronize();
  const AllocatorStats last = device->allocator().stats();
  // The cache may grab a block or two more while steps are in flight at once, but nothing grows with
  // the step count: 1,000 steps allocate and free about 1.5 GB in all.
  EXPECT_LE(peak_reserved, first.reserved_bytes + (8u << 20)) << "reserved after step 1: " << first.reserved_bytes;
  EXPECT_LE(last.device_allocations - first.device_allocations, 4u);
  EXPECT_GE(last.cache_hits - first.cache_hits, 1000u * 10);
}

INSTANTIATE_TEST_SUITE_P(Backends, TrainingMemoryTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
