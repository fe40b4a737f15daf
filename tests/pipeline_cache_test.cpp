// The pipeline cache persists on disk, and a corrupt or foreign file is ignored, never a crash.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runtime/vulkan/vulkan_device.h"
#include "test_support.h"

namespace ember::test {
namespace {

class PipelineCacheTest : public DeviceTest {
 protected:
  void SetUp() override {
    const char* old = std::getenv("EMBER_PIPELINE_CACHE");
    saved_ = old ? old : "";
    path_ = (std::filesystem::temp_directory_path() /
             ("ember-cache-test-" + std::to_string(getpid()) + ".bin"))
                .string();
    std::filesystem::remove(path_);
    setenv("EMBER_PIPELINE_CACHE", path_.c_str(), 1);
  }
  void TearDown() override {
    std::filesystem::remove(path_);
    if (saved_.empty()) {
      unsetenv("EMBER_PIPELINE_CACHE");
    } else {
      setenv("EMBER_PIPELINE_CACHE", saved_.c_str(), 1);
    }
    DeviceTest::TearDown();
  }

  // Opens a fresh device (not the shared one), runs a kernel, and reports whether the cache was loaded.
  bool run_fresh_device() {
    auto device = vulkan::VulkanDevice::create(vulkan::Context::create(0));
    const bool loaded = device->pipelines().loaded_from_disk();
    EXPECT_EQ(device->pipelines().cache_path(), path_);
    auto a = device->allocate(256 * sizeof(float));
    device->kernels().get<MemoryKernels>().fill(*device->default_stream(), {TensorRef::contiguous(*a, DType::Float32, {256}), 4.0});
    EXPECT_EQ(download<float>(*device->default_stream(), a, 256)[255], 4.0f);
    return loaded;
  }

  void write_file(const std::vector<char>& bytes) {
    std::ofstream out(path_, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  std::string path_;
  std::string saved_;
};

TEST_F(PipelineCacheTest, SecondStartLoadsTheSavedCache) {
  EXPECT_FALSE(run_fresh_device());
  ASSERT_TRUE(std::filesystem::exists(path_)) << "the cache is written when the device closes";
  EXPECT_TRUE(run_fresh_device());
}

TEST_F(PipelineCacheTest, CorruptFileIsIgnored) {
  write_file(std::vector<char>(1000, 'x'));
  EXPECT_FALSE(run_fresh_device());
  EXPECT_TRUE(run_fresh_device()) << "the corrupt file was replaced by a good one";
}

TEST_F(PipelineCacheTest, ForeignDeviceFileIsIgnored) {
  run_fresh_device();
  std::ifstream in(path_, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  in.close();
  ASSERT_GE(bytes.size(), 32u);
  bytes[8] ^= 0x5a;  // vendorID
  write_file(bytes);
  EXPECT_FALSE(run_fresh_device());
  std::vector<char> truncated(bytes.begin(), bytes.begin() + 20);
  write_file(truncated);
  EXPECT_FALSE(run_fresh_device());
}

}  // namespace
}  // namespace ember::test
