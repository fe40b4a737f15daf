#include "runtime/vulkan/pipelines.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "runtime/device.h"
#include "runtime/error.h"

namespace ember::vulkan {

namespace {

std::string default_cache_path(const VkPhysicalDeviceProperties& device) {
  if (const char* path = std::getenv("EMBER_PIPELINE_CACHE")) return path;
  std::filesystem::path dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    dir = xdg;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    dir = std::filesystem::path(home) / ".cache";
  } else {
    dir = std::filesystem::temp_directory_path();
  }
  char name[128];
  std::snprintf(name, sizeof name, "pipelines-%04x-%04x-", device.vendorID, device.deviceID);
  std::string file = name;
  for (uint8_t byte : device.pipelineCacheUUID) {
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02x", byte);
    file += hex;
  }
  return (dir / "ember" / (file + ".bin")).string();
}

std::vector<char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

bool pipeline_cache_matches(const std::vector<char>& data, const VkPhysicalDeviceProperties& device) {
  VkPipelineCacheHeaderVersionOne header;
  if (data.size() < sizeof header) return false;
  std::memcpy(&header, data.data(), sizeof header);
  return header.headerSize >= sizeof header && header.headerSize <= data.size() &&
         header.headerVersion == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
         header.vendorID == device.vendorID && header.deviceID == device.deviceID &&
         std::memcmp(header.pipelineCacheUUID, device.pipelineCacheUUID, VK_UUID_SIZE) == 0;
}

Pipelines::Pipelines(std::shared_ptr<Context> context)
    : context_(std::move(context)), path_(default_cache_path(context_->properties)) {
  std::vector<char> data = read_file(path_);
  VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  if (pipeline_cache_matches(data, context_->properties)) {
    info.initialDataSize = data.size();
    info.pInitialData = data.data();
  }
  VkResult result = context_->fn.vkCreatePipelineCache(context_->device, &info, nullptr, &cache_);
  if (result != VK_SUCCESS && info.initialDataSize) {
    // A driver may still refuse data that passed the header check; start empty instead.
    info.initialDataSize = 0;
    info.pInitialData = nullptr;
    result = context_->fn.vkCreatePipelineCache(context_->device, &info, nullptr, &cache_);
  }
  context_->check(result, "vkCreatePipelineCache");
  loaded_ = info.initialDataSize != 0;
}

Pipelines::~Pipelines() {
  try {
    save();
  } catch (...) {
    // A cache that cannot be written only costs start-up time next run.
  }
  const EntryPoints& fn = context_->fn;
  for (auto& [key, p] : pipelines_) {
    fn.vkDestroyPipeline(context_->device, p->pipeline, nullptr);
    fn.vkDestroyPipelineLayout(context_->device, p->layout, nullptr);
    fn.vkDestroyDescriptorSetLayout(context_->device, p->set_layout, nullptr);
  }
  fn.vkDestroyPipelineCache(context_->device, cache_, nullptr);
}

void Pipelines::save() const {
  size_t size = 0;
  if (context_->fn.vkGetPipelineCacheData(context_->device, cache_, &size, nullptr) != VK_SUCCESS ||
      size == 0) {
    return;
  }
  std::vector<char> data(size);
  if (context_->fn.vkGetPipelineCacheData(context_->device, cache_, &size, data.data()) !=
      VK_SUCCESS) {
    return;
  }
  std::error_code error;
  const std::filesystem::path path(path_);
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), error);
  const std::string temporary = path_ + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out.write(data.data(), static_cast<std::streamsize>(size));
    if (!out) return;
  }
  std::filesystem::rename(temporary, path, error);
  if (error) std::filesystem::remove(temporary, error);
}

VkDescriptorType descriptor_type(BindingKind kind) {
  switch (kind) {
    case BindingKind::Uniform: return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    case BindingKind::Texel: return VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
    case BindingKind::Storage: break;
  }
  return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

bool Pipelines::made(std::string_view shader) {
  std::lock_guard lock(mutex_);
  auto it = pipelines_.lower_bound(std::make_pair(std::string(shader), std::vector<uint32_t>{}));
  return it != pipelines_.end() && it->first.first == shader;
}

bool Pipelines::made(std::string_view shader, const std::vector<uint32_t>& specialization) {
  std::lock_guard lock(mutex_);
  return pipelines_.contains(std::make_pair(std::string(shader), specialization));
}

const Pipeline& Pipelines::get(std::string_view shader_name,
                               const std::vector<uint32_t>& specialization) {
  std::lock_guard lock(mutex_);
  auto key = std::make_pair(std::string(shader_name), specialization);
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return *it->second;

  const EmbeddedShader& shader = find_shader(shader_name);
  auto pipeline = std::make_unique<Pipeline>();
  pipeline->shader = reflect(shader.spirv);
  pipeline->name = std::string(shader_name);
  const EntryPoints& fn = context_->fn;
  VkDevice device = context_->device;

  std::vector<VkDescriptorSetLayoutBinding> bindings;
  for (size_t i = 0; i < pipeline->shader.storage_buffer_bindings.size(); ++i) {
    bindings.push_back({pipeline->shader.storage_buffer_bindings[i],
                        descriptor_type(pipeline->shader.kinds[i]),
                        1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  }
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  set_info.bindingCount = static_cast<uint32_t>(bindings.size());
  set_info.pBindings = bindings.data();
  context_->check(fn.vkCreateDescriptorSetLayout(device, &set_info, nullptr, &pipeline->set_layout),
                  "vkCreateDescriptorSetLayout");

  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, pipeline->shader.push_constant_bytes};
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &pipeline->set_layout;
  layout_info.pushConstantRangeCount = push.size ? 1 : 0;
  layout_info.pPushConstantRanges = &push;
  context_->check(fn.vkCreatePipelineLayout(device, &layout_info, nullptr, &pipeline->layout),
                  "vkCreatePipelineLayout");

  const std::vector<uint32_t> spirv = with_float_controls(shader.spirv, context_->float_controls);
  VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  module_info.codeSize = spirv.size() * sizeof(uint32_t);
  module_info.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  context_->check(fn.vkCreateShaderModule(device, &module_info, nullptr, &module),
                  "vkCreateShaderModule");

  if (specialization.size() > pipeline->shader.specialization_constants) {
    throw Error(std::string(shader_name) + " has fewer specialization constants than given");
  }
  std::vector<VkSpecializationMapEntry> entries;
  for (uint32_t i = 0; i < specialization.size(); ++i) {
    entries.push_back({i, i * 4u, 4u});
  }
  VkSpecializationInfo spec{static_cast<uint32_t>(entries.size()), entries.data(),
                            specialization.size() * 4, specialization.data()};
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.stage.pSpecializationInfo = entries.empty() ? nullptr : &spec;
  info.layout = pipeline->layout;
  VkResult result =
      fn.vkCreateComputePipelines(device, cache_, 1, &info, nullptr, &pipeline->pipeline);
  fn.vkDestroyShaderModule(device, module, nullptr);
  context_->check(result, "vkCreateComputePipelines");
  // The compile may have made the driver register exit handlers of its own; devices must close first.
  register_device_exit_handler();
  const Pipeline& created = *pipeline;
  pipelines_.emplace(std::move(key), std::move(pipeline));
  return created;
}

}  // namespace ember::vulkan
