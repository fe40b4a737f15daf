#pragma once
// PyTorch's own state dict files, both ways: what Python's torch.save(model.state_dict(), path) writes
// loads into an ember module, and what save_pytorch writes loads with torch.load (1.13 and later).
//
//   model.load_state_dict(torch.load("model.pt"))        # Python, after ember::save_pytorch
//   ember::load("model.pt", model);                      // C++, after torch.save (load() tells .pt apart)
//
// The format is a zip archive: <name>/data.pkl, a pickle (protocol 2) of the state dict whose tensors
// refer by key to their storages, <name>/data/<key>, each storage's raw little-endian bytes, and
// <name>/version. Tensors keep their strides and offsets, and tensors that share memory share one
// storage, as in PyTorch.
//
// A pickle can run any code when Python loads it; ember never does. Its unpickler is restricted to what a
// state dict holds: protocol 2 opcodes, collections.OrderedDict, torch._utils._rebuild_tensor_v2 (and
// _rebuild_parameter, for state_dict(keep_vars=True)), the torch.*Storage classes through persistent ids,
// tuples, dicts, ints, floats, strings, bools, None and the state dict's _metadata attribute. Anything
// else (os.system, builtins.eval, any other global or opcode) throws CheckpointError naming it, as do
// missing zip entries and storages whose size, dtype or extent does not fit the tensors.
#include <memory>
#include <string>

#include "serialize/checkpoint.h"

namespace ember {

// The state dict in `path` (a torch.save'd .pt file), on `device` (the default device when null).
// Tensors that shared a storage in the file share memory on the device too.
OrderedDict<std::string, Tensor> load_pytorch(const std::string& path, const std::shared_ptr<Device>& device = nullptr);

// Writes `state_dict` so that Python's torch.load reads it (tensors on the CPU), atomically as save().
// Tensors that share memory are saved as one storage, and must then have one dtype, as in PyTorch.
void save_pytorch(const std::string& path, const OrderedDict<std::string, Tensor>& state_dict);
void save_pytorch(const std::string& path, const nn::Module& module);
template <class M>
void save_pytorch(const std::string& path, const nn::ModuleHolder<M>& module) {
  save_pytorch(path, static_cast<const nn::Module&>(*module));
}

}  // namespace ember
