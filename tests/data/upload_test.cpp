// A batch reaches the step without the step waiting: uploads made on worker threads, recorded on the
// stream with no host wait even while the device is busy with earlier steps whose memory the uploads
// reuse; batches built at once are neither stacked nor normalized row by row (dispatch counts); and a
// device dataset past one storage binding gathers its batches on the device, with no host round trip.
#include <mutex>
#include <set>
#include <thread>

#include "data/data.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

using data::DataLoader;
using data::DataLoaderOptions;
using data::Example;
using data::datasets::FashionMNIST;

class DataUploadTest : public BackendTest {
 protected:
  // The Fashion-MNIST test split, or a skip saying why it is absent.
  std::optional<FashionMNIST> fashion() {
    try {
      return FashionMNIST(FashionMNIST::Mode::kTest, device);
    } catch (const Error& e) {
      return std::nullopt;
    }
  }
};

// Fashion-MNIST that records the threads its batches were made and uploaded on.
struct ThreadRecording : data::datasets::Dataset<ThreadRecording> {
  ThreadRecording(FashionMNIST inner, std::shared_ptr<std::pair<std::mutex, std::set<std::thread::id>>> threads)
      : inner(std::move(inner)), threads(std::move(threads)) {}
  Example<> get(size_t index) override { return inner.get(index); }
  std::vector<Example<>> get_batch(data::ArrayRef<size_t> indices) override {
    {
      std::lock_guard lock(threads->first);
      threads->second.insert(std::this_thread::get_id());
    }
    return inner.get_batch(indices);
  }
  std::optional<size_t> size() const override { return inner.size(); }
  FashionMNIST inner;
  std::shared_ptr<std::pair<std::mutex, std::set<std::thread::id>>> threads;
};

TEST_P(DataUploadTest, WorkersUploadWhileTheDeviceIsBusyAndTheStepNeverWaits) {
  auto dataset = fashion();
  if (!dataset) GTEST_SKIP() << "Fashion-MNIST is absent (Debian's dataset-fashion-mnist)";
  const std::vector<uint8_t> pixels = dataset->pixels();
  auto threads = std::make_shared<std::pair<std::mutex, std::set<std::thread::id>>>();
  Generator generator(3);
  DataLoader loader(ThreadRecording(*dataset, threads),
                    DataLoaderOptions(64).workers(2).shuffle(true).generator(&generator));
  const Tensor big = ones({256, 256}, TensorOptions(kFloat32).device(device));
  Tensor busy = big;
  Tensor total = zeros({}, TensorOptions(kFloat32).device(device));
  std::vector<size_t> order;
  Generator replay(3);
  for (const int64_t i : randperm(10000, TensorOptions().device(device), &replay).to_vector<int64_t>()) {
    order.push_back(static_cast<size_t>(i));
  }
  stream->flush();
  const uint64_t waits = stream->stats().host_waits;
  int steps = 0;
  for (Example<>& batch : loader) {
    // A "step": device work that the loop never waits for, and a use of the batch's memory, which the
    // uploads of later batches reuse once the batch is dropped.
    busy = matmul(busy, big).mul(1.0 / 256);
    total = total + batch.data.sum();
    if (++steps == 40) break;
  }
  EXPECT_EQ(stream->stats().host_waits, waits);  // no upload, and no batch hand-over, waited
  {
    std::lock_guard lock(threads->first);
    EXPECT_EQ(threads->second.count(std::this_thread::get_id()), 0u);  // made on the workers
    EXPECT_GE(threads->second.size(), 1u);
  }
  // The uploads are right although they raced with the steps that used the memory before them.
  double expected = 0;
  for (size_t i = 0; i < 40 * 64; ++i) {
    for (size_t p = 0; p < 784; ++p) expected += pixels[order[i] * 784 + p] / 255.0f;
  }
  EXPECT_NEAR(total.item<double>(), expected, 1e-5 * expected);
}

TEST_P(DataUploadTest, ABatchBuiltAtOnceIsNeitherStackedNorNormalizedRowByRow) {
  auto dataset = fashion();
  if (!dataset) GTEST_SKIP() << "Fashion-MNIST is absent (Debian's dataset-fashion-mnist)";
  namespace transforms = data::transforms;
  const std::vector<uint8_t> pixels = dataset->pixels();
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      std::move(*dataset).map(transforms::Normalize<>(0.25, 0.5)).map(transforms::Stack<>()),
      DataLoaderOptions(16));
  const uint64_t before = stream->stats().dispatches;
  int batches = 0;
  for (auto& batch : *loader) {
    EXPECT_EQ(batch.data.sizes(), IntArrayRef({16, 1, 28, 28}));
    if (batches == 0) {
      const std::vector<float> values = batch.data.to_vector<float>();
      for (size_t p = 0; p < values.size(); ++p) {
        EXPECT_FLOAT_EQ(values[p], (pixels[p] / 255.0f - 0.25f) / 0.5f) << p;
      }
    }
    if (++batches == 5) break;
  }
  // Per batch: sub and div, and at most one staged copy per uploaded tensor. Row by row it would be
  // 32 ops and a stack of 16.
  EXPECT_LE(stream->stats().dispatches - before, 5u * 4 + 1);  // + the first batch's read back
}

TEST_P(DataUploadTest, ADeviceDatasetPastOneBindingGathersOnTheDevice) {
  // 60000 x 784 int32 (188 MB, past lavapipe's 128 MiB binding); element (i, j) = 784 i + j.
  const int64_t rows = 60000, cols = 784;
  Tensor values;
  try {
    values = arange(0, rows * cols, TensorOptions(kInt32).device(device)).view({rows, cols});
  } catch (const OutOfMemoryError& e) {
    GTEST_SKIP() << e.what();
  }
  data::datasets::TensorPairDataset dataset(values, arange(0, rows, TensorOptions(kInt64).device(device)));
  stream->synchronize();
  const uint64_t waits = stream->stats().host_waits;
  const uint64_t dispatches = stream->stats().dispatches;
  const std::vector<size_t> indices = {59999, 3, 4, 5, 40000, 0, 20000, 59998};
  const Example<> batch = data::transforms::Stack<>().apply_batch(dataset.get_batch(indices));
  EXPECT_EQ(stream->stats().host_waits, waits);
  // One copy per run of consecutive rows (3, 4, 5 is one), for data and for targets; no kernel.
  EXPECT_EQ(stream->stats().dispatches - dispatches, 2u * 6);
  const std::vector<int32_t> got = batch.data.to_vector<int32_t>();
  ASSERT_EQ(got.size(), indices.size() * cols);
  for (size_t r = 0; r < indices.size(); ++r) {
    for (int64_t j = 0; j < cols; j += 97) {
      EXPECT_EQ(got[r * cols + j], static_cast<int32_t>(indices[r] * cols + j)) << r << " " << j;
    }
    EXPECT_EQ(got[r * cols + cols - 1], static_cast<int32_t>(indices[r] * cols + cols - 1));
  }
  EXPECT_EQ(batch.target.to_vector<int64_t>(), std::vector<int64_t>(indices.begin(), indices.end()));
  expect_error<IndexError>([&] { dataset.get_batch(std::vector<size_t>{60000}); },
                           "index 60000 is out of bounds for dimension 0 with size 60000");
}

INSTANTIATE_TEST_SUITE_P(Backends, DataUploadTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
