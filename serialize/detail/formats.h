#pragma once
// The file formats behind checkpoint.h's save() and load(). Internal to serialize/.
#include <map>
#include <memory>
#include <string>

#include "serialize/checkpoint.h"

namespace ember::detail {

void save_safetensors(const std::string& path, const OrderedDict<std::string, Tensor>& tensors,
                      const std::map<std::string, std::string>& metadata);
Checkpoint load_safetensors(const std::string& path, const std::shared_ptr<Device>& device);

// True when `path` starts with a zip archive's magic, as PyTorch's .pt files do.
bool is_zip_file(const std::string& path);
// True when `path` starts as torch.save's legacy format does (PyTorch before 1.6, or
// _use_new_zipfile_serialization=False): a protocol 2 pickle of its magic number, not a zip archive.
bool is_legacy_torch_file(const std::string& path);

}  // namespace ember::detail
