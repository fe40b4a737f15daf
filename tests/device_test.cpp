// Device enumeration and selection.
#include <algorithm>
#include <cstdlib>

#include "test_support.h"

namespace ember::test {
namespace {

class DeviceSelection : public DeviceTest {
 protected:
  void TearDown() override {
    unsetenv("EMBER_DEVICE");
    DeviceTest::TearDown();
  }
};

TEST_F(DeviceSelection, ListsVulkanDevicesInPreferenceOrder) {
  const auto devices = list_devices();
  ASSERT_FALSE(devices.empty());
  auto rank = [](const DeviceInfo& info) {
    if (info.backend == Backend::CUDA) return -1;
    const std::string kinds[] = {"discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other"};
    for (int i = 0; i < 5; ++i) {
      if (info.kind == kinds[i]) return i;
    }
    return 5;
  };
  for (size_t i = 1; i < devices.size(); ++i) EXPECT_LE(rank(devices[i - 1]), rank(devices[i]));
  for (const auto& info : devices) {
    EXPECT_FALSE(info.name.empty());
    EXPECT_FALSE(info.heaps.empty());
    EXPECT_GT(info.subgroup_size, 0u);
    EXPECT_GT(info.max_storage_buffer_range, 0u);
  }
}

TEST_F(DeviceSelection, FindsDevicesBySpecBackendOrName) {
  const auto devices = list_devices();
  const DeviceInfo* vulkan = nullptr;
  for (const auto& info : devices) {
    if (info.backend == Backend::Vulkan && !vulkan) vulkan = &info;
  }
  ASSERT_NE(vulkan, nullptr);
  auto by_spec = get_device(vulkan->spec());
  EXPECT_EQ(by_spec->info().name, vulkan->name);
  EXPECT_EQ(get_device("vulkan"), by_spec) << "a device is opened once";
  const std::string part = vulkan->name.substr(0, 4);
  EXPECT_EQ(get_device(part)->info().name.substr(0, 4), part);
}

// Tensor.get_device() is the index in the device's spec, as LibTorch's is cuda:N's N.
TEST_F(DeviceSelection, TensorsReportTheirDeviceIndex) {
  for (const DeviceInfo& info : list_devices()) {
    if (info.backend != Backend::Vulkan) continue;
    SCOPED_TRACE(info.spec());
    const Tensor t = zeros({2}, TensorOptions().device(get_device(info.spec())));
    EXPECT_EQ("vulkan:" + std::to_string(t.get_device()), info.spec());
    EXPECT_EQ(t.narrow(0, 1, 1).get_device(), t.get_device()) << "a view is on its base's device";
  }
}

// device_count counts the specs that open: vulkan:0 to vulkan:N-1, and nothing at vulkan:N.
TEST_F(DeviceSelection, DeviceCountBoundsTheSpecs) {
  for (const Backend backend : {Backend::Vulkan, Backend::CUDA}) {
    const std::string prefix = backend == Backend::Vulkan ? "vulkan:" : "cuda:";
    const int64_t count = device_count(backend);
    SCOPED_TRACE(prefix + " count " + std::to_string(count));
    std::vector<int> seen;
    for (const DeviceInfo& info : list_devices()) {
      if (info.backend == backend) seen.push_back(info.index);
    }
    std::sort(seen.begin(), seen.end());
    ASSERT_EQ(static_cast<int64_t>(seen.size()), count);
    for (int64_t i = 0; i < count; ++i) EXPECT_EQ(seen[i], i);
    EXPECT_THROW(get_device(prefix + std::to_string(count)), DeviceUnavailableError);
  }
  EXPECT_GE(device_count(Backend::Vulkan), 1);
}

TEST_F(DeviceSelection, UnknownDeviceNamesWhatIsPresent) {
  try {
    get_device("no-such-device");
    FAIL() << "expected DeviceUnavailableError";
  } catch (const DeviceUnavailableError& error) {
    EXPECT_NE(std::string(error.what()).find("vulkan:0"), std::string::npos) << error.what();
  }
}

TEST_F(DeviceSelection, CudaAbsenceHasAReason) {
  const std::string reason = cuda_unavailable_reason();
  if (reason.empty()) {
    EXPECT_EQ(get_device("cuda:0")->backend(), Backend::CUDA);
    return;
  }
  std::printf("[  NOTE    ] CUDA is absent: %s\n", reason.c_str());
  try {
    get_device("cuda:0");
    FAIL() << "expected DeviceUnavailableError";
  } catch (const DeviceUnavailableError& error) {
    EXPECT_NE(std::string(error.what()).find(reason), std::string::npos) << error.what();
  }
}

TEST_F(DeviceSelection, EmberDeviceVariableChoosesTheDefault) {
  setenv("EMBER_DEVICE", "vulkan:0", 1);
  EXPECT_EQ(default_device()->spec(), "vulkan:0");
  setenv("EMBER_DEVICE", "nothing-like-this", 1);
  EXPECT_THROW(default_device(), DeviceUnavailableError);
}

}  // namespace
}  // namespace ember::test
