// Saving over a checkpoint, in both formats, treats the old file as Python's torch.save does (it opens the
// path for writing): the file keeps its permission bits, and a symbolic link at the path stays a link,
// now to the new bytes. ember writes a temporary file and renames it over the old one, which by itself
// would give the default permissions and replace the link with a plain file.
#include <sys/stat.h>

#include <filesystem>

#include "ember.h"
#include "serialize/serialize.h"
#include "tests/python_oracle.h"
#include "tests/serialize/checkpoint_files.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class ReplacedCheckpointTest : public BackendTest {
 protected:
  // A private checkpoint (0600) "ckpt.<ext>" and a relative link "latest.<ext>" to it, written by
  // `save_to` (given a path) with the value 1.
  void make_private_file_and_link(const std::string& ext, const std::function<void(const std::string&)>& save_to) {
    save_to(dir.path("ckpt." + ext));
    ASSERT_EQ(::chmod(dir.path("ckpt." + ext).c_str(), 0600), 0);
    std::filesystem::create_symlink("ckpt." + ext, dir.path("latest." + ext));
  }
  // "<permission bits in octal> <whether latest is still a link> <where it leads>", as Python prints it.
  std::string describe(const std::string& ext) {
    struct stat st {};
    EXPECT_EQ(::stat(dir.path("ckpt." + ext).c_str(), &st), 0);
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%o", st.st_mode & 07777);
    const std::filesystem::path latest = dir.path("latest." + ext);
    const bool link = std::filesystem::is_symlink(latest);
    return std::string(mode) + " " + (link ? "True " + std::filesystem::read_symlink(latest).string() : "False -");
  }
  OrderedDict<std::string, Tensor> weights(double value) {
    OrderedDict<std::string, Tensor> out;
    out.insert("w", full({3}, value, TensorOptions().device(device)));
    return out;
  }
  TempDir dir;
};

TEST_P(ReplacedCheckpointTest, KeepsPermissionsAndLinksAsTorchSaveDoes) {
  const std::string python_dir = dir.path("python");
  std::filesystem::create_directory(python_dir);
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, R"(
import os
d = ')" + python_dir + R"('
torch.save({'w': torch.ones(3)}, d + '/ckpt.pt')
os.chmod(d + '/ckpt.pt', 0o600)
os.symlink('ckpt.pt', d + '/latest.pt')
torch.save({'w': torch.full((3,), 2.0)}, d + '/latest.pt')
latest = d + '/latest.pt'
link = os.path.islink(latest)
print('%o' % (os.stat(d + '/ckpt.pt').st_mode & 0o7777), link, os.readlink(latest) if link else '-')
print(torch.load(d + '/ckpt.pt')['w'].tolist())
print('@@END@@')
)",
                        1u);
  const std::string python_says = answers[0].substr(0, answers[0].find('\n'));
  ASSERT_EQ(python_says, "600 True ckpt.pt") << answers[0];
  ASSERT_NE(answers[0].find("[2.0, 2.0, 2.0]"), std::string::npos) << answers[0];

  make_private_file_and_link("pt", [&](const std::string& path) { save_pytorch(path, weights(1)); });
  save_pytorch(dir.path("latest.pt"), weights(2));
  EXPECT_EQ(describe("pt"), python_says);
  EXPECT_EQ(load_pytorch(dir.path("ckpt.pt"), device)["w"].to_vector<float>(), std::vector<float>(3, 2.0f));

  make_private_file_and_link("safetensors", [&](const std::string& path) { save(path, weights(1)); });
  save(dir.path("latest.safetensors"), weights(2));
  EXPECT_EQ(describe("safetensors"), "600 True ckpt.safetensors");
  EXPECT_EQ(load(dir.path("ckpt.safetensors"), device).tensors["w"].to_vector<float>(), std::vector<float>(3, 2.0f));

  // Nothing else was left in the folder (no temporary file, no second checkpoint).
  EXPECT_EQ(dir.files(), (std::vector<std::string>{"ckpt.pt", "ckpt.safetensors", "latest.pt", "latest.safetensors",
                                                   "python"}));
}

INSTANTIATE_TEST_SUITE_P(Backends, ReplacedCheckpointTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
