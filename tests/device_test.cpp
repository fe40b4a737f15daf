// Device enumeration and selection.
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
