// A checkpoint write that fails halfway (here: the file size limit, as a full disk would) throws with the
// system's reason and leaves the previous checkpoint as it was, with no temporary file behind, in both
// formats.
#include <signal.h>
#include <sys/resource.h>

#include "ember.h"
#include "serialize/serialize.h"
#include "tests/serialize/checkpoint_files.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class FailingWriteTest : public BackendTest {
 protected:
  // Runs `write` with regular files limited to 64 KiB (SIGXFSZ ignored, so write() fails with EFBIG)
  // and returns the message it threw.
  std::string with_file_size_limit(const std::function<void()>& write) {
    struct rlimit old {};
    getrlimit(RLIMIT_FSIZE, &old);
    struct sigaction ignore {}, previous {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGXFSZ, &ignore, &previous);
    struct rlimit limited = old;
    limited.rlim_cur = 64 * 1024;
    setrlimit(RLIMIT_FSIZE, &limited);
    std::string message = "(no error)";
    try {
      write();
    } catch (const Error& e) {
      message = e.what();
    }
    setrlimit(RLIMIT_FSIZE, &old);
    sigaction(SIGXFSZ, &previous, nullptr);
    return message;
  }
  OrderedDict<std::string, Tensor> tensors(int64_t numel, double value) {
    OrderedDict<std::string, Tensor> out;
    out.insert("w", full({numel}, value, TensorOptions().device(device)));
    return out;
  }
  TempDir dir;
};

TEST_P(FailingWriteTest, ASafetensorsSaveThatFailsMidWriteKeepsThePreviousCheckpoint) {
  const std::string path = dir.path("ckpt.safetensors");
  save(path, tensors(4, 1.0), {{"epoch", "1"}});
  const std::string before = read_file(path);
  const std::string message = with_file_size_limit([&] { save(path, tensors(1 << 18, 2.0), {{"epoch", "2"}}); });
  EXPECT_TRUE(message.starts_with("cannot write '" + path + "' (through '")) << message;
  EXPECT_NE(message.find("File too large"), std::string::npos) << message;
  EXPECT_EQ(read_file(path), before);
  EXPECT_EQ(dir.files(), std::vector<std::string>{"ckpt.safetensors"});
  EXPECT_EQ(load(path, device).metadata.at("epoch"), "1");
}

TEST_P(FailingWriteTest, APyTorchSaveThatFailsMidWriteKeepsThePreviousCheckpoint) {
  const std::string path = dir.path("ckpt.pt");
  save_pytorch(path, tensors(4, 1.0));
  const std::string before = read_file(path);
  const std::string message = with_file_size_limit([&] { save_pytorch(path, tensors(1 << 18, 2.0)); });
  EXPECT_TRUE(message.starts_with("cannot write '")) << message;
  EXPECT_EQ(read_file(path), before);
  EXPECT_EQ(dir.files(), std::vector<std::string>{"ckpt.pt"});
  EXPECT_EQ(load_pytorch(path, device)["w"].to_vector<float>(), std::vector<float>(4, 1.0f));
}

INSTANTIATE_TEST_SUITE_P(Backends, FailingWriteTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
