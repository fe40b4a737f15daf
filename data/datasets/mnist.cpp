#include "data/datasets/mnist.h"

#include <array>
#include <filesystem>
#include <numeric>

#include "data/batch_rows.h"
#include "data/detail/idx_file.h"
#include "runtime/error.h"
#include "tensor/functions.h"

namespace ember::data::datasets {

namespace {

constexpr uint32_t kSide = 28;
constexpr size_t kPixels = kSide * kSide;
constexpr uint32_t kTrainSize = 60000;
constexpr uint32_t kTestSize = 10000;
constexpr uint32_t kClasses = 10;

// The file itself, gzip-compressed where a .gz of that name exists.
std::string find_file(const std::string& root, const std::string& name) {
  const std::filesystem::path plain = std::filesystem::path(root) / name;
  std::filesystem::path gz = plain;
  gz += ".gz";
  std::error_code error;
  if (std::filesystem::exists(gz, error) || !std::filesystem::exists(plain, error)) return gz.string();
  return plain.string();
}

struct Split {
  std::vector<uint8_t> pixels, labels;
};

Split read_split(const std::string& root, bool train, const char* name) {
  const std::string prefix = train ? "train" : "t10k";
  const uint32_t expected = train ? kTrainSize : kTestSize;
  const std::string split = train ? "train" : "test";
  Split out;
  {
    ember::data::detail::IdxReader images(find_file(root, prefix + "-images-idx3-ubyte"), name);
    const std::vector<uint32_t> dims = images.read_ubyte_header(3);
    if (dims[0] != expected) {
      images.fail("wrong count: it holds " + std::to_string(dims[0]) + " images, the " + split +
                  " split has " + std::to_string(expected));
    }
    if (dims[1] != kSide || dims[2] != kSide) {
      images.fail("wrong image size: " + std::to_string(dims[1]) + "x" + std::to_string(dims[2]) +
                  ", expected 28x28");
    }
    out.pixels = images.read(uint64_t{dims[0]} * kPixels,
                             "the pixels of " + std::to_string(dims[0]) + " images");
    images.expect_end();
  }
  ember::data::detail::IdxReader labels(find_file(root, prefix + "-labels-idx1-ubyte"), name);
  const uint32_t count = labels.read_ubyte_header(1)[0];
  if (count != expected) {
    labels.fail("wrong count: it holds " + std::to_string(count) + " labels, the " + split + " split has " +
                std::to_string(expected));
  }
  out.labels = labels.read(count, std::to_string(count) + " labels");
  labels.expect_end();
  for (size_t i = 0; i < out.labels.size(); ++i) {
    if (out.labels[i] >= kClasses) {
      labels.fail("corrupt: label " + std::to_string(i) + " is " + std::to_string(out.labels[i]) +
                  ", outside 0..9");
    }
  }
  return out;
}

// byte / 255 in float32, as LibTorch's MNIST divides.
const std::array<float, 256>& unit_floats() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> values{};
    for (int i = 0; i < 256; ++i) values[i] = static_cast<float>(i) / 255.0f;
    return values;
  }();
  return table;
}

}  // namespace

MNIST::MNIST(const std::string& root, Mode mode, std::shared_ptr<Device> device)
    : MNIST(root, mode, std::move(device), "MNIST") {}

MNIST::MNIST(const std::string& root, Mode mode, std::shared_ptr<Device> device, const char* name)
    : train_(mode == Mode::kTrain), device_(device ? std::move(device) : default_device()) {
  Split split = read_split(root, train_, name);
  pixels_ = std::make_shared<const std::vector<uint8_t>>(std::move(split.pixels));
  labels_ = std::make_shared<const std::vector<uint8_t>>(std::move(split.labels));
}

FashionMNIST::FashionMNIST(const std::string& root, Mode mode, std::shared_ptr<Device> device)
    : MNIST(root, mode, std::move(device), "FashionMNIST") {}

std::optional<size_t> MNIST::size() const { return labels_->size(); }

void MNIST::check_index(size_t index) const {
  if (index >= labels_->size()) {
    throw IndexError("index " + std::to_string(index) + " is out of bounds for dimension 0 with size " +
                     std::to_string(labels_->size()));
  }
}

Tensor MNIST::upload_images(ArrayRef<size_t> indices) const {
  for (const size_t index : indices) check_index(index);
  const std::array<float, 256>& unit = unit_floats();
  std::vector<float> host(indices.size() * kPixels);
  for (size_t i = 0; i < indices.size(); ++i) {
    const uint8_t* from = pixels_->data() + indices[i] * kPixels;
    float* to = host.data() + i * kPixels;
    for (size_t p = 0; p < kPixels; ++p) to[p] = unit[from[p]];
  }
  return from_blob(host.data(), {static_cast<int64_t>(indices.size()), 1, kSide, kSide},
                   TensorOptions(kFloat32).device(device_));
}

Tensor MNIST::upload_targets(ArrayRef<size_t> indices) const {
  for (const size_t index : indices) check_index(index);
  std::vector<int64_t> host(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) host[i] = (*labels_)[indices[i]];
  return from_blob(host.data(), {static_cast<int64_t>(indices.size())},
                   TensorOptions(kInt64).device(device_));
}

Example<> MNIST::get(size_t index) {
  const size_t indices[] = {index};
  return {upload_images(indices)[0], upload_targets(indices)[0]};
}

std::vector<Example<>> MNIST::get_batch(ArrayRef<size_t> indices) {
  std::vector<Tensor> images = ember::data::detail::rows_of(upload_images(indices));
  std::vector<Tensor> targets = ember::data::detail::rows_of(upload_targets(indices));
  std::vector<Example<>> batch;
  batch.reserve(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) batch.emplace_back(std::move(images[i]), std::move(targets[i]));
  return batch;
}

Tensor MNIST::images() const {
  std::vector<size_t> all(labels_->size());
  std::iota(all.begin(), all.end(), size_t{0});
  return upload_images(all);
}

Tensor MNIST::targets() const {
  std::vector<size_t> all(labels_->size());
  std::iota(all.begin(), all.end(), size_t{0});
  return upload_targets(all);
}

}  // namespace ember::data::datasets
