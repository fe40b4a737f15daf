#include "runtime/vulkan/context.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>

#include "runtime/device.h"
#include "runtime/error.h"

namespace ember::vulkan {

namespace {

std::mutex validation_mutex;
std::vector<std::string> validation_messages;

bool validation_requested() {
  const char* value = std::getenv("EMBER_VALIDATION");
  return value && std::string_view(value) != "0" && std::string_view(value) != "";
}

// lavapipe runs a dispatch's workgroups on LP_NUM_THREADS threads, one per CPU by default. ember's host
// thread shares those CPUs, and a worker it displaces holds up the whole dispatch; with two workers per CPU
// the others take up the slack. Measured on 2 CPUs (docs/PERFORMANCE.md, "lavapipe's worker threads"): the
// MLP's train step 8.1 -> 5.9 ms, its epoch 7.2-7.5 -> 5.7-5.9 s; 8 and 16 workers did worse. Only llvmpipe reads
// the variable, before the instance exists; a value the user set stays.
void oversubscribe_lavapipe_workers() {
  const unsigned cpus = std::thread::hardware_concurrency();
  if (cpus == 0) return;
  setenv("LP_NUM_THREADS", std::to_string(2 * cpus).c_str(), /*overwrite=*/0);
}

std::string result_name(VkResult result) {
  switch (result) {
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    default: return "VkResult " + std::to_string(static_cast<int>(result));
  }
}

int kind_rank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
  }
}

const char* kind_name(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
  }
}

std::string vendor_name(uint32_t id) {
  switch (id) {
    case 0x10de: return "NVIDIA";
    case 0x1002: return "AMD";
    case 0x8086: return "Intel";
    case 0x106b: return "Apple";
    case 0x13b5: return "ARM";
    case 0x5143: return "Qualcomm";
    case 0x10005: return "Mesa";
    default: {
      char text[16];
      std::snprintf(text, sizeof text, "0x%04x", id);
      return text;
    }
  }
}

std::string version_string(uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." +
         std::to_string(VK_API_VERSION_MINOR(version)) + "." +
         std::to_string(VK_API_VERSION_PATCH(version));
}

std::vector<std::string> device_extensions(const EntryPoints& fn, VkPhysicalDevice physical) {
  uint32_t count = 0;
  fn.vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> properties(count);
  fn.vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, properties.data());
  std::vector<std::string> names;
  for (const auto& p : properties) names.emplace_back(p.extensionName);
  return names;
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

DeviceInfo describe(const EntryPoints& fn, VkPhysicalDevice physical, int index) {
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
                                              &driver};
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup};
  fn.vkGetPhysicalDeviceProperties2(physical, &properties);
  const VkPhysicalDeviceLimits& limits = properties.properties.limits;
  RequiredFeatures features = required_features(fn, physical);
  const auto extensions = device_extensions(fn, physical);

  VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
  const bool has_budget = contains(extensions, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  VkPhysicalDeviceMemoryProperties2 memory{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2,
                                           has_budget ? &budget : nullptr};
  fn.vkGetPhysicalDeviceMemoryProperties2(physical, &memory);

  VkPhysicalDeviceMaintenance3Properties maintenance3{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceProperties2 properties_m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                            &maintenance3};
  fn.vkGetPhysicalDeviceProperties2(physical, &properties_m3);

  DeviceInfo info;
  info.backend = Backend::Vulkan;
  info.index = index;
  info.name = properties.properties.deviceName;
  info.kind = kind_name(properties.properties.deviceType);
  info.vendor = vendor_name(properties.properties.vendorID);
  info.driver = std::string(driver.driverName) + " " + driver.driverInfo;
  info.api_version = version_string(properties.properties.apiVersion);
  for (uint32_t h = 0; h < memory.memoryProperties.memoryHeapCount; ++h) {
    MemoryHeapInfo heap;
    heap.size = memory.memoryProperties.memoryHeaps[h].size;
    heap.device_local =
        (memory.memoryProperties.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0;
    if (has_budget) {
      heap.budget = budget.heapBudget[h];
      heap.usage = budget.heapUsage[h];
    }
    info.heaps.push_back(heap);
  }
  info.subgroup_size = subgroup.subgroupSize;
  info.shared_memory_bytes = limits.maxComputeSharedMemorySize;
  for (int i = 0; i < 3; ++i) info.max_workgroup_size[i] = limits.maxComputeWorkGroupSize[i];
  info.max_workgroup_invocations = limits.maxComputeWorkGroupInvocations;
  info.max_storage_buffer_range = limits.maxStorageBufferRange;
  info.max_allocation_size = maintenance3.maxMemoryAllocationSize;
  info.float16 = features.vulkan12.shaderFloat16 && features.vulkan11.storageBuffer16BitAccess;
  // No Vulkan 1.3 core bfloat16 arithmetic: bfloat16 is stored in 16 bits and computed in float32.
  info.bfloat16 = features.vulkan11.storageBuffer16BitAccess;
  info.int8 = features.vulkan12.storageBuffer8BitAccess;
  info.int64 = features.features.features.shaderInt64;
  info.float64 = features.features.features.shaderFloat64;
  std::string cooperative;
  for (const char* name : {"VK_KHR_cooperative_matrix", "VK_NV_cooperative_matrix",
                           "VK_NV_cooperative_matrix2"}) {
    if (contains(extensions, name)) cooperative += (cooperative.empty() ? "" : ", ") + std::string(name);
  }
  info.cooperative_matrix = cooperative.empty() ? "none" : cooperative;
  info.float_controls = FloatControls::query(fn, physical).describe();
  return info;
}

}  // namespace

// The process-wide instance ember creates for its own devices. It stays until release_instance(), so that
// listing devices again (device_count, get_device, a test skipping an absent backend) does not create and
// destroy an instance each time, which takes 60-90 ms on lavapipe.
class Instance {
 public:
  static std::shared_ptr<Instance> get() {
    std::lock_guard lock(mutex());
    std::shared_ptr<Instance>& instance = kept();
    if (!instance) {
      instance = std::shared_ptr<Instance>(new Instance());
      // Its release comes after the devices' close (close_opened_devices), before the driver's handlers.
      register_device_exit_handler();
    }
    return instance;
  }

  // Drops the kept reference; the instance goes when the last Context holding it goes.
  static void release() {
    std::shared_ptr<Instance> releasing;
    std::lock_guard lock(mutex());
    releasing.swap(kept());
  }

  ~Instance() {
    if (messenger_) destroy_messenger_(handle, messenger_, nullptr);
    if (handle) fn.vkDestroyInstance(handle, nullptr);
  }

  // Physical devices in preference order.
  std::vector<VkPhysicalDevice> ordered_devices() const {
    uint32_t count = 0;
    fn.vkEnumeratePhysicalDevices(handle, &count, nullptr);
    std::vector<VkPhysicalDevice> devices(count);
    fn.vkEnumeratePhysicalDevices(handle, &count, devices.data());
    std::stable_sort(devices.begin(), devices.end(), [&](VkPhysicalDevice a, VkPhysicalDevice b) {
      VkPhysicalDeviceProperties pa, pb;
      fn.vkGetPhysicalDeviceProperties(a, &pa);
      fn.vkGetPhysicalDeviceProperties(b, &pb);
      return kind_rank(pa.deviceType) < kind_rank(pb.deviceType);
    });
    return devices;
  }

  EntryPoints fn;
  VkInstance handle = VK_NULL_HANDLE;

 private:
  // Never destroyed by static destructors, which run after the driver's exit handlers.
  static std::mutex& mutex() {
    static auto* mutex = new std::mutex;
    return *mutex;
  }
  static std::shared_ptr<Instance>& kept() {
    static auto* kept = new std::shared_ptr<Instance>;
    return *kept;
  }

  Instance() {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "ember";
    app.pEngineName = "ember";
    app.apiVersion = VK_API_VERSION_1_3;
    std::vector<const char*> layers;
    std::vector<const char*> extensions;
    const bool validate = validation_requested();
    if (validate) {
      layers.push_back("VK_LAYER_KHRONOS_validation");
      extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    }
    VkDebugUtilsMessengerCreateInfoEXT messenger_info{
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messenger_info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                     VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                 VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
    messenger_info.pfnUserCallback = validation_callback;
    VkInstanceCreateInfo create{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    create.pNext = validate ? &messenger_info : nullptr;
    create.pApplicationInfo = &app;
    create.enabledLayerCount = static_cast<uint32_t>(layers.size());
    create.ppEnabledLayerNames = layers.data();
    create.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    create.ppEnabledExtensionNames = extensions.data();
    oversubscribe_lavapipe_workers();
    VkResult result = vkCreateInstance(&create, nullptr, &handle);
    if (result == VK_ERROR_LAYER_NOT_PRESENT) {
      throw DeviceUnavailableError(
          "EMBER_VALIDATION is set but VK_LAYER_KHRONOS_validation is not installed "
          "(Debian package vulkan-validationlayers)");
    }
    if (result != VK_SUCCESS) {
      throw DeviceUnavailableError("vkCreateInstance failed: " + result_name(result) +
                                   " (is a Vulkan driver installed? lavapipe is in "
                                   "mesa-vulkan-drivers)");
    }
    fn.load_instance(vkGetInstanceProcAddr, handle);
    if (validate) {
      auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(handle, "vkCreateDebugUtilsMessengerEXT"));
      destroy_messenger_ = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(handle, "vkDestroyDebugUtilsMessengerEXT"));
      create_messenger(handle, &messenger_info, nullptr, &messenger_);
    }
  }

  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger_ = nullptr;
};

VKAPI_ATTR VkBool32 VKAPI_CALL validation_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT types,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                   void*) {
  const bool relevant = (types & VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT) ||
                        (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT);
  if (relevant && data && data->pMessage) {
    std::lock_guard lock(validation_mutex);
    validation_messages.emplace_back(data->pMessage);
  }
  return VK_FALSE;
}

std::vector<std::string> take_validation_messages() {
  std::lock_guard lock(validation_mutex);
  return std::exchange(validation_messages, {});
}

std::vector<const char*> required_device_extensions() {
  return {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
}

std::vector<const char*> optional_device_extensions() {
  return {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME};
}

const void* RequiredFeatures::chain() {
  features.pNext = &vulkan11;
  vulkan11.pNext = &vulkan12;
  vulkan12.pNext = nullptr;
  return &features;
}

RequiredFeatures required_features(PFN_vkGetInstanceProcAddr get_instance_proc_addr, VkInstance instance,
                                   VkPhysicalDevice physical_device) {
  EntryPoints fn;
  fn.load_instance(get_instance_proc_addr, instance);
  return required_features(fn, physical_device);
}

RequiredFeatures required_features(const EntryPoints& fn, VkPhysicalDevice physical_device) {
  RequiredFeatures supported;
  fn.vkGetPhysicalDeviceFeatures2(physical_device, const_cast<VkPhysicalDeviceFeatures2*>(
                                                       static_cast<const VkPhysicalDeviceFeatures2*>(
                                                           supported.chain())));
  RequiredFeatures wanted;
  wanted.vulkan12.timelineSemaphore = VK_TRUE;
  wanted.vulkan12.storageBuffer8BitAccess = supported.vulkan12.storageBuffer8BitAccess;
  wanted.vulkan12.shaderInt8 = supported.vulkan12.shaderInt8;
  wanted.vulkan12.shaderFloat16 = supported.vulkan12.shaderFloat16;
  wanted.vulkan11.storageBuffer16BitAccess = supported.vulkan11.storageBuffer16BitAccess;
  wanted.features.features.shaderInt16 = supported.features.features.shaderInt16;
  wanted.features.features.shaderInt64 = supported.features.features.shaderInt64;
  wanted.features.features.shaderFloat64 = supported.features.features.shaderFloat64;
  // 64-bit compare-and-swap, for scatter's combining modes on int64 and float64.
  wanted.vulkan12.shaderBufferInt64Atomics = supported.vulkan12.shaderBufferInt64Atomics;
  if (!supported.vulkan12.timelineSemaphore) wanted.vulkan12.timelineSemaphore = VK_FALSE;
  return wanted;
}

std::shared_ptr<Context> Context::create(int index) {
  auto instance = Instance::get();
  const auto devices = instance->ordered_devices();
  if (index < 0 || index >= static_cast<int>(devices.size())) {
    throw DeviceUnavailableError("no Vulkan device vulkan:" + std::to_string(index) + " (" +
                                 std::to_string(devices.size()) + " found)");
  }
  std::shared_ptr<Context> context(new Context());
  context->owned_instance_ = instance;
  context->instance = instance->handle;
  context->fn = instance->fn;
  context->physical_device = devices[index];
  context->init_properties();
  context->info.index = index;
  context->create_device();
  return context;
}

std::shared_ptr<Context> Context::wrap(const ExternalDevice& external) {
  if (!external.instance || !external.physical_device || !external.device || !external.queue ||
      !external.get_instance_proc_addr) {
    throw Error("Context::wrap needs the instance, physical device, device, queue and "
                "vkGetInstanceProcAddr");
  }
  std::shared_ptr<Context> context(new Context());
  context->external_ = external;
  context->instance = external.instance;
  context->physical_device = external.physical_device;
  context->device = external.device;
  context->queue_family = external.queue_family;
  context->queue = external.queue;
  context->fn.load_instance(external.get_instance_proc_addr, external.instance);
  context->init_properties();
  if (context->properties.apiVersion < VK_API_VERSION_1_2) {
    throw UnsupportedError("ember needs a Vulkan 1.2 device; " + context->info.name + " reports " +
                           context->info.api_version);
  }
  context->fn.load_device(external.device);
  context->note_optional_extensions(external.enabled_extensions);
  context->info.index = -1;
  return context;
}

void Context::init_properties() {
  fn.vkGetPhysicalDeviceProperties(physical_device, &properties);
  fn.vkGetPhysicalDeviceMemoryProperties(physical_device, &memory_properties);
  info = describe(fn, physical_device, 0);
  const auto extensions = device_extensions(fn, physical_device);
  has_memory_budget = contains(extensions, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  storage_8bit = info.int8;
  storage_16bit = info.bfloat16;
  float64 = info.float64;
  int64_atomics = required_features(fn, physical_device).vulkan12.shaderBufferInt64Atomics;
  float_controls = FloatControls::query(fn, physical_device);
}

void Context::create_device() {
  if (properties.apiVersion < VK_API_VERSION_1_2) {
    throw UnsupportedError("ember needs a Vulkan 1.2 device; " + info.name + " reports " +
                           info.api_version);
  }
  const auto available = device_extensions(fn, physical_device);
  std::vector<const char*> extensions;
  for (const char* name : required_device_extensions()) {
    if (!contains(available, name)) {
      throw UnsupportedError(info.name + " lacks the Vulkan extension " + name + " that ember needs");
    }
    extensions.push_back(name);
  }
  if (has_memory_budget) extensions.push_back(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  std::vector<std::string> optional;
  for (const char* name : optional_device_extensions()) {
    if (contains(available, name)) {
      extensions.push_back(name);
      optional.emplace_back(name);
    }
  }

  RequiredFeatures features = required_features(fn, physical_device);
  if (!features.vulkan12.timelineSemaphore) {
    throw UnsupportedError(info.name + " lacks timeline semaphores, which ember needs");
  }

  uint32_t family_count = 0;
  fn.vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  fn.vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &family_count, families.data());
  // Prefer a compute family without graphics: it is the one that runs beside rendering.
  int chosen = -1;
  for (uint32_t f = 0; f < family_count; ++f) {
    if (!(families[f].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    if (chosen < 0 || !(families[f].queueFlags & VK_QUEUE_GRAPHICS_BIT)) chosen = static_cast<int>(f);
    if (!(families[f].queueFlags & VK_QUEUE_GRAPHICS_BIT)) break;
  }
  if (chosen < 0) throw UnsupportedError(info.name + " has no compute queue");
  queue_family = static_cast<uint32_t>(chosen);

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo create{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  create.pNext = features.chain();
  create.queueCreateInfoCount = 1;
  create.pQueueCreateInfos = &queue_info;
  create.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  create.ppEnabledExtensionNames = extensions.data();
  VkResult result = fn.vkCreateDevice(physical_device, &create, nullptr, &device);
  if (result != VK_SUCCESS) {
    throw DeviceUnavailableError("vkCreateDevice failed on " + info.name + ": " + result_name(result));
  }
  owns_device_ = true;
  fn.load_device(device);
  note_optional_extensions(optional);
  fn.vkGetDeviceQueue(device, queue_family, 0, &queue);
}

void Context::note_optional_extensions(const std::vector<std::string>& enabled) {
  external_memory_fd = contains(enabled, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME) && fn.vkGetMemoryFdKHR;
  external_semaphore_fd = contains(enabled, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME) && fn.vkGetSemaphoreFdKHR;
}

Context::~Context() {
  if (owns_device_ && device) fn.vkDestroyDevice(device, nullptr);
}

void Context::submit(const VkSubmitInfo& submit_info) {
  throw_if_lost();
  VkResult result;
  {
    std::lock_guard lock(submit_mutex_);
    if (external_.lock_queue) external_.lock_queue();
    result = fn.vkQueueSubmit(queue, 1, &submit_info, VK_NULL_HANDLE);
    if (external_.unlock_queue) external_.unlock_queue();
  }
  check(result, "vkQueueSubmit");
}

void Context::check(VkResult result, const char* what) {
  if (result == VK_SUCCESS) return;
  if (result == VK_ERROR_DEVICE_LOST) {
    lost_ = true;
    throw DeviceLostError(std::string(what) + " reported VK_ERROR_DEVICE_LOST on " + info.name +
                          "; the device stays lost and its work is gone");
  }
  throw Error(std::string(what) + " failed on " + info.name + ": " + result_name(result));
}

void Context::throw_if_lost() const {
  if (lost_) throw DeviceLostError("the Vulkan device " + info.name + " was lost earlier");
}

std::vector<DeviceInfo> enumerate_devices() {
  std::vector<DeviceInfo> infos;
  std::shared_ptr<Instance> instance;
  try {
    instance = Instance::get();
  } catch (const DeviceUnavailableError&) {
    return infos;
  }
  int index = 0;
  for (VkPhysicalDevice physical : instance->ordered_devices()) {
    infos.push_back(describe(instance->fn, physical, index++));
  }
  return infos;
}

void release_instance() { Instance::release(); }

std::string vulkan_unavailable_reason() {
  try {
    if (Instance::get()->ordered_devices().empty()) return "the Vulkan loader found no device";
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

}  // namespace ember::vulkan
