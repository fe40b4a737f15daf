// The pickle torch.save writes for a state dict (protocol 2), so that Python's unpickler rebuilds the
// same OrderedDict of tensors:
//   OrderedDict() with, per tensor, key -> torch._utils._rebuild_tensor_v2(
//       persistent_id('storage', torch.<Type>Storage, key, 'cpu', numel), offset, size, stride,
//       requires_grad, OrderedDict())
#include <algorithm>
#include <cstdint>
#include <map>

#include "runtime/error.h"
#include "serialize/detail/pickle.h"

namespace ember::detail {
namespace {

class PickleWriter {
 public:
  std::string take() { return std::move(out_); }

  void op(uint8_t code) { out_.push_back(static_cast<char>(code)); }
  void little_endian(uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out_.push_back(static_cast<char>(value >> (8 * i)));
  }
  // The shortest integer opcode for `value`, as Python's pickler chooses.
  void integer(int64_t value) {
    if (value >= 0 && value <= 0xff) {
      op('K');
      little_endian(static_cast<uint64_t>(value), 1);
    } else if (value >= 0 && value <= 0xffff) {
      op('M');
      little_endian(static_cast<uint64_t>(value), 2);
    } else if (value >= INT32_MIN && value <= INT32_MAX) {
      op('J');
      little_endian(static_cast<uint64_t>(value), 4);
    } else {
      op(0x8a);  // LONG1: 8 bytes of two's complement
      little_endian(8, 1);
      little_endian(static_cast<uint64_t>(value), 8);
    }
  }
  void string(const std::string& text) {
    op('X');
    little_endian(text.size(), 4);
    out_ += text;
  }
  void global(const std::string& module, const std::string& name) {
    op('c');
    out_ += module + "\n" + name + "\n";
  }
  void int_tuple(const std::vector<int64_t>& values) {
    op('(');
    for (int64_t v : values) integer(v);
    op('t');
  }
  void empty_ordered_dict() {
    global("collections", "OrderedDict");
    op(')');
    op('R');
  }

 private:
  std::string out_;
};

}  // namespace

std::string pickle_state_dict(const std::vector<PickledTensor>& tensors, const std::vector<PickledStorage>& storages) {
  std::map<std::string, const PickledStorage*> by_key;
  for (const PickledStorage& storage : storages) by_key[storage.key] = &storage;
  PickleWriter w;
  w.op(0x80);  // PROTO 2
  w.little_endian(2, 1);
  w.empty_ordered_dict();
  // Python's pickler sets items in batches of 1000; any batch size reads the same.
  constexpr size_t kBatch = 1000;
  for (size_t first = 0; first < tensors.size(); first += kBatch) {
    w.op('(');
    for (size_t i = first; i < std::min(tensors.size(), first + kBatch); ++i) {
      const PickledTensor& t = tensors[i];
      auto storage = by_key.find(t.storage_key);
      if (storage == by_key.end()) throw Error("pickle_state_dict: tensor '" + t.name + "' names no storage");
      w.string(t.name);
      w.global("torch._utils", "_rebuild_tensor_v2");
      w.op('(');
      w.op('(');  // the persistent id
      w.string("storage");
      w.global("torch", torch_storage_class(storage->second->dtype));
      w.string(storage->second->key);
      w.string("cpu");
      w.integer(storage->second->numel);
      w.op('t');
      w.op('Q');  // BINPERSID
      w.integer(t.storage_offset);
      w.int_tuple(t.sizes);
      w.int_tuple(t.strides);
      w.op(t.requires_grad ? 0x88 : 0x89);
      w.empty_ordered_dict();  // backward_hooks
      w.op('t');
      w.op('R');
    }
    w.op('u');  // SETITEMS
  }
  w.op('.');
  return w.take();
}

}  // namespace ember::detail
