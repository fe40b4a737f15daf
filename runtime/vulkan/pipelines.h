#pragma once
// Compute pipelines for the embedded shaders, created on first use, with a VkPipelineCache that persists
// on disk so that the second start skips shader compilation.
//
// The cache file is EMBER_PIPELINE_CACHE when set, else $XDG_CACHE_HOME/ember/ (or ~/.cache/ember/)
// pipelines-<vendor>-<device>-<uuid>.bin. A file that is corrupt or from another device or driver is
// ignored; writes go to a temporary file that is renamed into place.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/vulkan/context.h"
#include "runtime/vulkan/shader_registry.h"

namespace ember::vulkan {

// The descriptor type of a binding the shader sees as `kind`.
VkDescriptorType descriptor_type(BindingKind kind);

struct Pipeline {
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  ShaderLayout shader;
  std::string name;  // the embedded shader's, for kernel profiles
};

class Pipelines {
 public:
  explicit Pipelines(std::shared_ptr<Context> context);
  ~Pipelines();  // saves the cache

  // The pipeline for an embedded shader, with its specialization constants (ids 0, 1, ...) set.
  const Pipeline& get(std::string_view shader, const std::vector<uint32_t>& specialization = {});
  // Whether a pipeline of `shader` has been made, with any constants: tests ask which variant a
  // launcher took.
  bool made(std::string_view shader);
  // Whether the pipeline of `shader` with exactly these constants has been made.
  bool made(std::string_view shader, const std::vector<uint32_t>& specialization);
  void save() const;
  const std::string& cache_path() const { return path_; }
  // True when the cache file on disk was accepted at start-up.
  bool loaded_from_disk() const { return loaded_; }

 private:
  std::shared_ptr<Context> context_;
  std::string path_;
  bool loaded_ = false;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  std::mutex mutex_;
  std::map<std::pair<std::string, std::vector<uint32_t>>, std::unique_ptr<Pipeline>> pipelines_;
};

// True when `data` starts with a pipeline-cache header that matches this physical device.
bool pipeline_cache_matches(const std::vector<char>& data, const VkPhysicalDeviceProperties& device);

}  // namespace ember::vulkan
