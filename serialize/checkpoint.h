#pragma once
// Checkpoints: tensors and state dicts saved in the safetensors format, with non-tensor state (optimizer
// param groups, scheduler state, the epoch) as strings in its "__metadata__" map.
//
//   ember::save("ckpt.safetensors", model, {{"epoch", "3"}, {"optimizer", optimizer_json}});
//   std::map<std::string, std::string> meta = ember::load("ckpt.safetensors", model);
//   ember::Checkpoint all = ember::load("ckpt.safetensors", ember::get_device("vulkan:0"));
//
// The format (https://github.com/huggingface/safetensors): an 8-byte little-endian header length N, N
// bytes of JSON mapping each tensor's name to {"dtype", "shape", "data_offsets"} (plus "__metadata__", a
// map of strings), padded with spaces so that the data starts 8-byte aligned, then the tensors'
// row-major little-endian bytes, back to back.
//
// Saving reads every device tensor back asynchronously at once and writes each as its bytes arrive,
// through an AtomicFile: a crash leaves the previous checkpoint intact. Loading checks the header length,
// JSON, dtypes, shapes and offsets against the file's length before it allocates anything; a corrupt,
// truncated or hostile file throws CheckpointError naming the file and the problem. A load into a module
// that fails leaves the module as it was.
//
// load() also reads PyTorch's own .pt state dicts (serialize/pytorch.h), told apart by their zip magic.
#include <map>
#include <memory>
#include <string>

#include "nn/ordered_dict.h"
#include "runtime/error.h"
#include "tensor/tensor.h"

namespace ember {

namespace nn {
class Module;
template <class Contained>
class ModuleHolder;
}  // namespace nn

// A file that is not a checkpoint ember can read: the message names the file and the problem.
class CheckpointError : public Error {
 public:
  using Error::Error;
};

// What a checkpoint file holds.
struct Checkpoint {
  OrderedDict<std::string, Tensor> tensors{"Tensor"};
  std::map<std::string, std::string> metadata;
};

// The name a lone tensor is saved under by save(path, tensor).
inline constexpr const char* kSingleTensorName = "tensor";

void save(const std::string& path, const OrderedDict<std::string, Tensor>& tensors,
          const std::map<std::string, std::string>& metadata = {});
// One tensor, under kSingleTensorName.
void save(const std::string& path, const Tensor& tensor, const std::map<std::string, std::string>& metadata = {});
// The module's state_dict().
void save(const std::string& path, const nn::Module& module, const std::map<std::string, std::string>& metadata = {});
template <class M>
void save(const std::string& path, const nn::ModuleHolder<M>& module,
          const std::map<std::string, std::string>& metadata = {}) {
  save(path, static_cast<const nn::Module&>(*module), metadata);
}

// The file's tensors on `device` (the default device when null), in the order they were saved. A
// PyTorch .pt state dict gives its tensors and no metadata.
Checkpoint load(const std::string& path, const std::shared_ptr<Device>& device = nullptr);
// The file's one tensor (an error when it holds another number), on `device`, else on the device
// `tensor` is on, else on the default device.
void load(const std::string& path, Tensor& tensor, const std::shared_ptr<Device>& device = nullptr);
// Loads the file into the module with load_state_dict(strict), onto the module's own device, and
// returns the metadata. Nothing in the module changes unless the whole file was read and matched.
std::map<std::string, std::string> load(const std::string& path, nn::Module& module, bool strict = true);
template <class M>
std::map<std::string, std::string> load(const std::string& path, const nn::ModuleHolder<M>& module,
                                        bool strict = true) {
  return load(path, static_cast<nn::Module&>(*module), strict);
}

}  // namespace ember
