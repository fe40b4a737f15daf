#include "runtime/device.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <mutex>
#include <ostream>

#include "runtime/error.h"
#include "runtime/vulkan/context.h"
#include "runtime/vulkan/vulkan_device.h"
#ifdef EMBER_HAVE_CUDA
#include "runtime/cuda/cuda_backend.h"
#endif

namespace ember {

std::string_view backend_name(Backend backend) {
  return backend == Backend::CUDA ? "cuda" : "vulkan";
}

std::string DeviceInfo::spec() const {
  return std::string(backend_name(backend)) + ":" + std::to_string(index);
}

std::ostream& operator<<(std::ostream& out, const std::shared_ptr<Device>& device) {
  return out << (device ? device->spec() : std::string("(no device)"));
}

std::shared_ptr<Allocation> Device::allocate(uint64_t bytes, std::shared_ptr<Stream> stream) {
  return allocator_->allocate(bytes, stream ? stream : default_stream());
}

bool Device::supports(DType dtype) const {
  switch (dtype) {
    case DType::Float64: return info_.float64;
    case DType::Int64: return info_.int64;
    case DType::Float16: return info_.float16;
    case DType::BFloat16:
    case DType::Int16: return info_.bfloat16;
    case DType::Int8:
    case DType::UInt8:
    case DType::Bool: return info_.int8;
    default: return true;
  }
}

std::string cuda_unavailable_reason() {
#ifdef EMBER_HAVE_CUDA
  return cuda::unavailable_reason();
#else
  return "ember was built without CUDA (nvcc was not found at configure time)";
#endif
}

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> devices;
#ifdef EMBER_HAVE_CUDA
  devices = cuda::enumerate_devices();
#endif
  for (DeviceInfo& info : vulkan::enumerate_devices()) devices.push_back(std::move(info));
  return devices;
}

int64_t device_count(Backend backend) {
  const std::vector<DeviceInfo> devices = list_devices();
  return std::count_if(devices.begin(), devices.end(), [&](const DeviceInfo& info) { return info.backend == backend; });
}

namespace {

std::string lowercase(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

// Devices opened by spec. Never destroyed by static destructors: drivers tear their own state down in exit
// handlers, and a device closed after that crashes or hangs inside the driver. close_opened_devices() runs
// from an exit handler registered again after each device is created and after each pipeline is built
// (lavapipe's LLVM registers handlers while it compiles), so it runs before the driver's. It then lets the
// Vulkan instance go, which the driver must also see before its own handlers.
std::mutex& opened_mutex() {
  static std::mutex* mutex = new std::mutex;
  return *mutex;
}

std::map<std::string, std::shared_ptr<Device>>& opened_devices() {
  static auto* opened = new std::map<std::string, std::shared_ptr<Device>>;
  return *opened;
}

void close_opened_devices() {
  std::map<std::string, std::shared_ptr<Device>> closing;
  {
    std::lock_guard lock(opened_mutex());
    closing.swap(opened_devices());
  }
  closing.clear();  // synchronizes each device and saves its pipeline cache
  vulkan::release_instance();
}

std::shared_ptr<Device> open(const DeviceInfo& info) {
  std::lock_guard lock(opened_mutex());
  auto& device = opened_devices()[info.spec()];
  if (!device) {
#ifdef EMBER_HAVE_CUDA
    if (info.backend == Backend::CUDA) device = cuda::open_device(info.index);
#endif
    if (info.backend == Backend::Vulkan) {
      device = vulkan::VulkanDevice::create(vulkan::Context::create(info.index));
    }
    register_device_exit_handler();
  }
  return device;
}

}  // namespace

void register_device_exit_handler() { std::atexit(close_opened_devices); }

std::shared_ptr<Device> get_device(std::string_view spec) {
  const std::string wanted = lowercase(spec);
  const std::vector<DeviceInfo> devices = list_devices();
  for (const DeviceInfo& info : devices) {
    const std::string backend(backend_name(info.backend));
    if (wanted == info.spec() || wanted == backend ||
        lowercase(info.name).find(wanted) != std::string::npos) {
      return open(info);
    }
  }
  std::string reason = "no device matches \"" + std::string(spec) + "\"";
  if (wanted.rfind("cuda", 0) == 0) {
    const std::string why = cuda_unavailable_reason();
    if (!why.empty()) reason += ": " + why;
  } else if (wanted.rfind("vulkan", 0) == 0) {
    const std::string why = vulkan::vulkan_unavailable_reason();
    if (!why.empty()) reason += ": " + why;
  }
  reason += ". Devices present:";
  for (const DeviceInfo& info : devices) {
    reason += ' ';
    reason += info.spec() + " (" + info.name + ")";
  }
  if (devices.empty()) reason += " none";
  throw DeviceUnavailableError(reason);
}

namespace {

std::mutex default_mutex;
std::shared_ptr<Device> chosen_default;

}  // namespace

void set_default_device(std::shared_ptr<Device> device) {
  std::lock_guard lock(default_mutex);
  chosen_default = std::move(device);
}

std::shared_ptr<Device> default_device() {
  {
    std::lock_guard lock(default_mutex);
    if (chosen_default) return chosen_default;
  }
  if (const char* spec = std::getenv("EMBER_DEVICE"); spec && *spec) return get_device(spec);
  const std::vector<DeviceInfo> devices = list_devices();
  if (devices.empty()) {
    throw DeviceUnavailableError("no device: Vulkan: " + vulkan::vulkan_unavailable_reason() +
                                 "; CUDA: " + cuda_unavailable_reason());
  }
  return open(devices.front());
}

}  // namespace ember
