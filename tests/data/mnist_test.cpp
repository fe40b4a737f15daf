// MNIST/Fashion-MNIST: the files Debian's dataset-fashion-mnist installs read as Python reads them
// (gzip and numpy: counts, pixels and labels of samples of both splits) and as LibTorch's datasets::MNIST
// reads them uncompressed (the whole test split, and batches through Normalize and Stack); missing,
// truncated and corrupt files are refused with a message naming the file and the problem.
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "data/data.h"
#include "tests/oracle.h"
#include "tests/python_oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

using data::datasets::FashionMNIST;
using data::datasets::MNIST;
namespace fs = std::filesystem;

const fs::path kRoot = data::datasets::kFashionMNISTRoot;

bool have_fashion_mnist() {
  for (const char* name : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                           "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}) {
    if (!fs::exists(kRoot / name)) return false;
  }
  return true;
}

// A scratch folder, removed at the end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    path_ = fs::temp_directory_path() / ("ember-mnist-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(counter_++));
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

// An uncompressed IDX file of unsigned bytes: magic, sizes, then `body`.
std::string idx(uint32_t magic, std::vector<uint32_t> sizes, const std::string& body) {
  std::string out = be32(magic);
  for (uint32_t s : sizes) out += be32(s);
  return out + body;
}

class DataMnistTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped()) return;
    if (!have_fashion_mnist()) GTEST_SKIP() << "Fashion-MNIST is absent from " << kRoot << " (dataset-fashion-mnist)";
  }
};

TEST_P(DataMnistTest, ReadsAsPythonsGzipAndNumpy) {
  const std::vector<size_t> train_samples = {0, 1, 2, 12345, 30000, 59999};
  const std::vector<size_t> test_samples = {0, 1, 4567, 9999};
  std::string script = "import gzip, numpy as np\nroot = '" + kRoot.string() + "'\n"
      "def load(prefix):\n"
      "    with gzip.open(f'{root}/{prefix}-images-idx3-ubyte.gz') as f: images = np.frombuffer(f.read(), np.uint8, offset=16)\n"
      "    with gzip.open(f'{root}/{prefix}-labels-idx1-ubyte.gz') as f: labels = np.frombuffer(f.read(), np.uint8, offset=8)\n"
      "    return images.reshape(-1, 784), labels\n";
  for (const auto& [prefix, samples] : {std::pair{std::string("train"), train_samples}, {"t10k", test_samples}}) {
    script += "images, labels = load('" + prefix + "')\nprint(len(images), len(labels))\nprint('@@END@@')\n";
    for (size_t i : samples) script += "print(int(labels[" + std::to_string(i) + "]), images[" + std::to_string(i) + "].tobytes().hex())\nprint('@@END@@')\n";
  }
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, 2 + train_samples.size() + test_samples.size());
  size_t a = 0;
  for (const MNIST::Mode mode : {MNIST::Mode::kTrain, MNIST::Mode::kTest}) {
    FashionMNIST dataset(mode, device);
    const auto& samples = mode == MNIST::Mode::kTrain ? train_samples : test_samples;
    const std::string count = std::to_string(mode == MNIST::Mode::kTrain ? 60000 : 10000);
    EXPECT_EQ(answers[a++], count + " " + count);
    EXPECT_EQ(dataset.size(), std::stoul(count));
    EXPECT_EQ(dataset.is_train(), mode == MNIST::Mode::kTrain);
    for (size_t i : samples) {
      SCOPED_TRACE(i);
      std::istringstream in(answers[a++]);
      int label = -1;
      std::string hex;
      in >> label >> hex;
      ASSERT_EQ(hex.size(), 2u * 784);
      const data::Example<> example = dataset.get(i);
      EXPECT_EQ(example.data.sizes(), IntArrayRef({1, 28, 28}));
      EXPECT_EQ(example.data.dtype(), kFloat32);
      EXPECT_EQ(example.target.dtype(), kInt64);
      EXPECT_EQ(example.target.dim(), 0);
      EXPECT_EQ(example.target.item<int64_t>(), label);
      const std::vector<float> pixels = example.data.to_vector<float>();
      for (size_t p = 0; p < 784; ++p) {
        const int byte = std::stoi(hex.substr(2 * p, 2), nullptr, 16);
        ASSERT_EQ(pixels[p], static_cast<float>(byte) / 255.0f) << p;  // numpy's uint8 / 255 in float32
      }
    }
  }
}

TEST_P(DataMnistTest, EqualsLibTorchsMnistOnTheUncompressedFiles) {
  ScratchDir dir;
  const std::string output = run_python(
      "import gzip, shutil\nfor name in ['t10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte']:\n"
      "    with gzip.open('" + kRoot.string() + "/' + name + '.gz') as f, open('" + dir.path().string() +
      "/' + name, 'wb') as g: shutil.copyfileobj(f, g)\nprint('ok')\n");
  if (output != "ok\n") GTEST_SKIP() << "Python cannot gunzip the files: " << output;
  // LibTorch reads the uncompressed files; ember reads those too, and the .gz files.
  torch::data::datasets::MNIST theirs(dir.path().string(), torch::data::datasets::MNIST::Mode::kTest);
  MNIST plain(dir.path().string(), MNIST::Mode::kTest, device);
  FashionMNIST ours(MNIST::Mode::kTest, device);
  EXPECT_TENSOR_EQ(ours.images(), theirs.images(), 0, 0);
  EXPECT_TENSOR_EQ(ours.targets(), theirs.targets(), 0, 0);
  EXPECT_EQ(plain.pixels(), ours.pixels());
  EXPECT_EQ(plain.labels(), ours.labels());
  // Batches through LibTorch's MNIST pipeline, with workers.
  namespace T = data::transforms;
  auto our_loader = data::make_data_loader<data::samplers::SequentialSampler>(
      ours.map(T::Normalize<>(0.2860, 0.3530)).map(T::Stack<>()), data::DataLoaderOptions(100).workers(2));
  auto their_loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      theirs.map(torch::data::transforms::Normalize<>(0.2860, 0.3530)).map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions(100));
  auto mine = our_loader->begin();
  int compared = 0;
  for (auto& batch : *their_loader) {
    EXPECT_TENSOR_EQ(mine->data, batch.data);
    EXPECT_TENSOR_EQ(mine->target, batch.target);
    ++mine;
    if (++compared == 3) break;
  }
}

TEST(DataMnistFilesTest, MissingTruncatedAndCorruptFilesNameTheFileAndTheProblem) {
  ScratchDir dir;
  const std::string root = dir.path().string();
  const std::string images = root + "/t10k-images-idx3-ubyte", labels = root + "/t10k-labels-idx1-ubyte";
  auto refuses = [&](const std::string& message) {
    expect_error<Error>([&] { MNIST(root, MNIST::Mode::kTest); }, message);
  };
  refuses("MNIST: " + images + ".gz: cannot open the file: No such file or directory");
  expect_error<Error>([&] { FashionMNIST(root, MNIST::Mode::kTrain); },
                      "FashionMNIST: " + root + "/train-images-idx3-ubyte.gz: cannot open the file: No such file or directory");

  const std::string zeros(10000 * 784, '\0');
  write_bytes(images, idx(0x00000804, {10000, 28, 28}, zeros));
  refuses("MNIST: " + images + ": bad magic number 0x00000804: an IDX file of unsigned bytes with 3 dims starts with 0x00000803");
  write_bytes(images, idx(0x00000803, {5, 28, 28}, std::string(5 * 784, '\0')));
  refuses("MNIST: " + images + ": wrong count: it holds 5 images, the test split has 10000");
  write_bytes(images, idx(0x00000803, {10000, 28, 27}, zeros));
  refuses("MNIST: " + images + ": wrong image size: 28x27, expected 28x28");
  write_bytes(images, idx(0x00000803, {10000, 28, 28}, zeros.substr(0, 100)));
  refuses("MNIST: " + images + ": truncated: the file ends after 100 of the 7840000 bytes of the pixels of 10000 images");
  write_bytes(images, idx(0x00000803, {10000}, ""));
  refuses("MNIST: " + images + ": truncated: the file ends inside the IDX header");
  write_bytes(images, idx(0x00000803, {10000, 28, 28}, zeros + "x"));
  refuses("MNIST: " + images + ": unexpected data at byte 7840016, where the IDX data should have ended");

  write_bytes(images, idx(0x00000803, {10000, 28, 28}, zeros));
  refuses("MNIST: " + labels + ".gz: cannot open the file: No such file or directory");
  write_bytes(labels, idx(0x00000801, {9999}, std::string(9999, '\1')));
  refuses("MNIST: " + labels + ": wrong count: it holds 9999 labels, the test split has 10000");
  std::string body(10000, '\1');
  body[3] = 12;
  write_bytes(labels, idx(0x00000801, {10000}, body));
  refuses("MNIST: " + labels + ": corrupt: label 3 is 12, outside 0..9");
  write_bytes(labels, idx(0x00000801, {10000}, std::string(10000, '\1')));
  EXPECT_EQ(MNIST(root, MNIST::Mode::kTest).size(), 10000u);  // now whole

  if (!have_fashion_mnist()) GTEST_SKIP() << "the gzip cases cut and damage Fashion-MNIST's files, absent here";
  // The real compressed labels, cut short and damaged: a .gz next to a plain file is what is read.
  const std::string gz = read_bytes(kRoot / "t10k-labels-idx1-ubyte.gz");
  write_bytes(labels + ".gz", gz.substr(0, gz.size() / 2));
  try {
    MNIST(root, MNIST::Mode::kTest);
    ADD_FAILURE() << "a truncated gzip file was read";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("MNIST: " + labels + ".gz: truncated: the gzip stream ends early", 0), 0u)
        << e.what();
  }
  std::string damaged = gz;
  for (size_t i = damaged.size() / 3; i < damaged.size() / 3 + 64; ++i) damaged[i] = static_cast<char>(damaged[i] ^ 0x5A);
  write_bytes(labels + ".gz", damaged);
  try {
    MNIST(root, MNIST::Mode::kTest);
    ADD_FAILURE() << "a corrupt gzip file was read";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("MNIST: " + labels + ".gz: corrupt gzip data after ", 0), 0u) << e.what();
  }
  std::string bad_header = gz;
  bad_header[3] = static_cast<char>(0xE0);  // reserved FLG bits: zlib refuses the gzip header
  write_bytes(labels + ".gz", bad_header);
  try {
    MNIST(root, MNIST::Mode::kTest);
    ADD_FAILURE() << "a gzip file with a bad header was read";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("MNIST: " + labels + ".gz: ", 0), 0u) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, DataMnistTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
