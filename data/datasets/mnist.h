#pragma once
// MNIST and Fashion-MNIST, as LibTorch's torch::data::datasets::MNIST: the train (60000) or test (10000)
// split of the IDX files in `root` (train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte,
// t10k-labels-idx1-ubyte), each gzip-compressed (.gz, as Debian's dataset-fashion-mnist installs them)
// or not. An example is a float32 image of shape (1, 28, 28) with values in [0, 1] and an int64 label.
//
// The pixels stay on the host as bytes (47 MB for the train split), shared between copies of the dataset
// (the DataLoader copies it into each worker). get_batch converts a batch on the host and uploads it in
// one copy per tensor, which never waits for the device (Stream::copy_from_host stages it when the memory
// is in use); the rows it returns collate (Stack) into that upload without a copy.
// A missing, truncated or corrupt file throws Error naming the file and the problem.
#include <memory>
#include <string>
#include <vector>

#include "data/datasets/base.h"

namespace ember::data::datasets {

// Where Debian's dataset-fashion-mnist package puts the files.
inline constexpr const char* kFashionMNISTRoot = "/usr/share/datasets/fashion-mnist";

class MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };

  // `device`: where examples and batches are uploaded (nullptr: the default device).
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain, std::shared_ptr<Device> device = nullptr);

  Example<> get(size_t index) override;
  std::vector<Example<>> get_batch(ArrayRef<size_t> indices) override;
  std::optional<size_t> size() const override;

  bool is_train() const noexcept { return train_; }
  // The whole split on the device: images (N, 1, 28, 28) float32, targets (N) int64. Each call uploads.
  Tensor images() const;
  Tensor targets() const;
  // The split as read: N * 28 * 28 pixel bytes, row-major, and N labels.
  const std::vector<uint8_t>& pixels() const { return *pixels_; }
  const std::vector<uint8_t>& labels() const { return *labels_; }
  const std::shared_ptr<Device>& device() const { return device_; }

 protected:
  MNIST(const std::string& root, Mode mode, std::shared_ptr<Device> device, const char* name);

 private:
  Tensor upload_images(ArrayRef<size_t> indices) const;
  Tensor upload_targets(ArrayRef<size_t> indices) const;
  void check_index(size_t index) const;

  bool train_ = true;
  std::shared_ptr<Device> device_;
  std::shared_ptr<const std::vector<uint8_t>> pixels_;
  std::shared_ptr<const std::vector<uint8_t>> labels_;
};

// Fashion-MNIST: the same format and splits, found by default where Debian puts it.
class FashionMNIST : public MNIST {
 public:
  explicit FashionMNIST(const std::string& root = kFashionMNISTRoot, Mode mode = Mode::kTrain,
                        std::shared_ptr<Device> device = nullptr);
  explicit FashionMNIST(Mode mode, std::shared_ptr<Device> device = nullptr)
      : FashionMNIST(kFashionMNISTRoot, mode, std::move(device)) {}
};

}  // namespace ember::data::datasets
