#pragma once
// Devices of both backends behind one interface, their enumeration, and the choice of a default device.
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/allocator.h"
#include "runtime/dtype.h"
#include "runtime/kernels/kernels.h"
#include "runtime/stream.h"

namespace ember {

enum class Backend { Vulkan, CUDA };
std::string_view backend_name(Backend backend);  // "vulkan", "cuda"

struct MemoryHeapInfo {
  uint64_t size = 0;
  uint64_t budget = 0;  // from VK_EXT_memory_budget or cudaMemGetInfo; 0 when unknown
  uint64_t usage = 0;
  bool device_local = false;
};

// What ember-info prints, and what kernels consult when they choose a variant.
struct DeviceInfo {
  Backend backend = Backend::Vulkan;
  int index = 0;                  // within its backend, in preference order
  std::string name;
  std::string kind;               // "discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other"
  std::string vendor;
  std::string driver;
  std::string api_version;
  std::vector<MemoryHeapInfo> heaps;
  uint32_t subgroup_size = 0;
  uint32_t shared_memory_bytes = 0;
  uint32_t max_workgroup_size[3] = {0, 0, 0};
  uint32_t max_workgroup_invocations = 0;
  uint64_t max_storage_buffer_range = 0;
  uint64_t max_allocation_size = 0;
  bool float16 = false;
  bool bfloat16 = false;
  bool int8 = false;
  bool int64 = false;
  bool float64 = false;
  std::string cooperative_matrix;  // the extensions or units the device reports, or "none"
  std::string float_controls;      // Vulkan: the float controls ember's shaders get (FloatControls::describe)

  std::string spec() const;  // "vulkan:0", "cuda:1"
};

class Device : public std::enable_shared_from_this<Device> {
 public:
  virtual ~Device() = default;

  const DeviceInfo& info() const { return info_; }
  std::string spec() const { return info_.spec(); }
  Backend backend() const { return info_.backend; }

  virtual std::shared_ptr<Stream> default_stream() = 0;
  virtual std::shared_ptr<Stream> create_stream() = 0;
  virtual Kernels& kernels() = 0;
  // Waits for every stream of this device.
  virtual void synchronize() = 0;

  CachingAllocator& allocator() { return *allocator_; }
  // Memory for `bytes`, ordered on `stream` (the default stream when none is given).
  std::shared_ptr<Allocation> allocate(uint64_t bytes, std::shared_ptr<Stream> stream = nullptr);
  void empty_cache() { allocator_->empty_cache(); }
  // Whether kernels can take `dtype` here (float64 needs shaderFloat64 on Vulkan).
  bool supports(DType dtype) const;

 protected:
  DeviceInfo info_;
  std::shared_ptr<CachingAllocator> allocator_;
};

// Prints the device's spec ("vulkan:0"), as LibTorch prints a tensor's device (`std::cout << t.device()`),
// where the shared pointer's own operator<< would print an address.
std::ostream& operator<<(std::ostream& out, const std::shared_ptr<Device>& device);

// Every device of every backend present, in preference order: CUDA devices, then Vulkan discrete,
// integrated, virtual and CPU devices. Creates no logical device.
std::vector<DeviceInfo> list_devices();
// How many of list_devices() belong to `backend` (torch.cuda.device_count() for Backend::CUDA).
int64_t device_count(Backend backend);

// Opens (once) and returns a device by spec: "vulkan:0", "cuda:0", "vulkan", "cuda", or part of a device
// name, case-insensitive. Throws DeviceUnavailableError naming the reason when nothing matches.
std::shared_ptr<Device> get_device(std::string_view spec);

// The device set by set_default_device, else EMBER_DEVICE when set, else the first of list_devices().
std::shared_ptr<Device> default_device();
// Makes `device` the one default_device() returns, as torch.set_default_device does: factories and
// module constructors given no device then use it, for example a device adopted from a graphics
// application (ember/vulkan.h). ember holds it until set_default_device(nullptr), which an application
// calls before it destroys the VkDevice that ember adopted.
void set_default_device(std::shared_ptr<Device> device);

// Registers again the exit handler that closes the devices get_device opened, so that it runs before any
// exit handler a driver registered since: lavapipe's LLVM registers some while it compiles shaders, and a
// device closed after those have run crashes or hangs. Closing twice is harmless.
void register_device_exit_handler();

// Why there is no CUDA device ("" when there is one): not built with CUDA, or the driver's reason.
std::string cuda_unavailable_reason();

}  // namespace ember
