#include "serialize/checkpoint.h"

#include "nn/module.h"
#include "serialize/detail/formats.h"
#include "serialize/pytorch.h"

namespace ember {
namespace {

// The device a module's tensors live on (the first one's), so that a load lands there and
// load_state_dict copies within one device; the default device for a module without tensors.
std::shared_ptr<Device> device_of(const nn::Module& module) {
  for (const auto& item : module.state_dict()) return item.value().device();
  return default_device();
}

}  // namespace

void save(const std::string& path, const OrderedDict<std::string, Tensor>& tensors,
          const std::map<std::string, std::string>& metadata) {
  detail::save_safetensors(path, tensors, metadata);
}

void save(const std::string& path, const Tensor& tensor, const std::map<std::string, std::string>& metadata) {
  OrderedDict<std::string, Tensor> tensors("Tensor");
  tensors.insert(kSingleTensorName, tensor);
  detail::save_safetensors(path, tensors, metadata);
}

void save(const std::string& path, const nn::Module& module, const std::map<std::string, std::string>& metadata) {
  detail::save_safetensors(path, module.state_dict(), metadata);
}

Checkpoint load(const std::string& path, const std::shared_ptr<Device>& device) {
  if (detail::is_zip_file(path) || detail::is_legacy_torch_file(path)) {
    Checkpoint out;
    out.tensors = load_pytorch(path, device);
    return out;
  }
  return detail::load_safetensors(path, device);
}

void load(const std::string& path, Tensor& tensor, const std::shared_ptr<Device>& device) {
  Checkpoint loaded = load(path, device ? device : tensor.defined() ? tensor.device() : nullptr);
  if (loaded.tensors.size() != 1) {
    throw CheckpointError("cannot load '" + path + "' into one tensor: it holds " +
                          std::to_string(loaded.tensors.size()) + " tensors");
  }
  tensor = loaded.tensors.front().value();
}

std::map<std::string, std::string> load(const std::string& path, nn::Module& module, bool strict) {
  // The whole file is read and checked before load_state_dict, which itself checks every key and shape
  // before it copies: a failure at any step leaves the module as it was.
  Checkpoint loaded = load(path, device_of(module));
  module.load_state_dict(loaded.tensors, strict);
  return std::move(loaded.metadata);
}

}  // namespace ember
