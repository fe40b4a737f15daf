#pragma once
// The pickle inside PyTorch's .pt files (data.pkl), reduced to what a state dict is: named tensors
// viewing typed storages. Host side only; internal to serialize/.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/dtype.h"

namespace ember::detail {

struct PickledStorage {
  std::string key;  // names the zip entry data/<key>
  DType dtype = DType::Float32;
  int64_t numel = 0;
};

struct PickledTensor {
  std::string name;
  std::string storage_key;
  int64_t storage_offset = 0;  // in elements
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  bool requires_grad = false;
};

struct PickledStateDict {
  std::vector<PickledTensor> tensors;  // in the dict's order
  std::map<std::string, PickledStorage> storages;
};

// Unpickles `pickle` with the restricted unpickler (serialize/pytorch.h lists what it accepts) and checks
// that every tensor fits inside its storage. `source` names the file in errors (CheckpointError).
PickledStateDict unpickle_state_dict(std::string_view pickle, const std::string& source);

// A protocol 2 pickle of an OrderedDict of the tensors, as torch.save writes one. Storages are written
// in the order given; every tensor's storage_key must name one of them.
std::string pickle_state_dict(const std::vector<PickledTensor>& tensors, const std::vector<PickledStorage>& storages);

// "FloatStorage", "BFloat16Storage", ... (PyTorch's ScalarType name and "Storage").
std::string torch_storage_class(DType dtype);

}  // namespace ember::detail
