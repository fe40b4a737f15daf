// The restricted unpickler for PyTorch's data.pkl. It interprets protocol 2 opcodes as Python's pickle
// module does, but resolves only the globals a state dict needs and "calls" them by building plain
// descriptions (an OrderedDict, a tensor record), so nothing a file says can run code or reach any
// other type. Each opcode creates at most one value, and a tensor has at most kMaxDims sizes, so memory
// stays within a constant times the pickle's length.
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <unordered_map>

#include "runtime/kernels/tensor_ref.h"
#include "serialize/checkpoint.h"
#include "serialize/detail/pickle.h"

namespace ember::detail {
namespace {

enum class Kind { None, Bool, Int, Float, String, Tuple, List, Dict, OrderedDict, Global, Storage, Tensor };

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::String: return "str";
    case Kind::Tuple: return "tuple";
    case Kind::List: return "list";
    case Kind::Dict: return "dict";
    case Kind::OrderedDict: return "collections.OrderedDict";
    case Kind::Global: return "global";
    case Kind::Storage: return "storage";
    case Kind::Tensor: return "tensor";
  }
  return "value";
}

struct Value;
using ValuePtr = std::shared_ptr<Value>;

struct Value {
  Kind kind = Kind::None;
  bool boolean = false;
  int64_t integer = 0;
  double floating = 0;
  std::string text;                                    // a str; a global's "module.name"; a storage's key
  std::vector<ValuePtr> items;                         // tuple, list
  std::vector<std::pair<ValuePtr, ValuePtr>> entries;  // dict, OrderedDict
  DType dtype = DType::Float32;                        // storage, or a global naming a storage class
  bool storage_class = false;                          // a global naming torch.<Type>Storage
  int64_t numel = 0;                                   // storage
  std::shared_ptr<PickledTensor> tensor;               // tensor (its name is set by the dict that holds it)
};

// Python's pickle opcodes (Lib/pickle.py) that protocol 2 state dicts use.
namespace op {
constexpr uint8_t MARK = '(', STOP = '.', POP = '0', POP_MARK = '1', NONE = 'N', BININT = 'J', BININT1 = 'K',
                  BININT2 = 'M', BINFLOAT = 'G', BINUNICODE = 'X', EMPTY_TUPLE = ')', TUPLE = 't',
                  EMPTY_LIST = ']', APPEND = 'a', APPENDS = 'e', LIST = 'l', EMPTY_DICT = '}', DICT = 'd',
                  SETITEM = 's', SETITEMS = 'u', GLOBAL = 'c', REDUCE = 'R', BUILD = 'b', BINPERSID = 'Q',
                  BINPUT = 'q', LONG_BINPUT = 'r', BINGET = 'h', LONG_BINGET = 'j', PROTO = 0x80, TUPLE1 = 0x85,
                  TUPLE2 = 0x86, TUPLE3 = 0x87, NEWTRUE = 0x88, NEWFALSE = 0x89, LONG1 = 0x8a;
}  // namespace op

constexpr const char* kAllowed =
    "a state dict holds only tensors, so ember's unpickler accepts only collections.OrderedDict, "
    "torch._utils._rebuild_tensor_v2, torch._utils._rebuild_parameter and the torch.*Storage classes";

std::string sizes_text(const std::vector<int64_t>& sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

class Unpickler {
 public:
  Unpickler(std::string_view data, const std::string& source) : data_(data), source_(source) {}
  Unpickler(const Unpickler&) = delete;
  Unpickler& operator=(const Unpickler&) = delete;
  // Values can form cycles (a dict that holds itself through the memo) and deep chains; emptying every
  // container first, while all_ still holds each value, frees them without recursion or leaks.
  ~Unpickler() {
    for (const ValuePtr& value : all_) {
      value->items.clear();
      value->entries.clear();
    }
  }

  PickledStateDict state_dict() { return extract(run()); }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw CheckpointError("cannot load '" + source_ + "': data.pkl: " + problem);
  }
  [[noreturn]] void fail_at(const std::string& problem) const {
    fail(problem + " (opcode at byte " + std::to_string(op_at_) + ")");
  }

  // ---- reading the byte stream ----
  std::string_view take(size_t bytes) {
    if (data_.size() - at_ < bytes) fail_at("the pickle ends inside an opcode (truncated?)");
    std::string_view out = data_.substr(at_, bytes);
    at_ += bytes;
    return out;
  }
  uint64_t little_endian(size_t bytes) {
    const std::string_view raw = take(bytes);
    uint64_t value = 0;
    for (size_t i = bytes; i-- > 0;) value = (value << 8) | static_cast<uint8_t>(raw[i]);
    return value;
  }
  std::string line() {
    const size_t end = data_.find('\n', at_);
    if (end == std::string_view::npos) fail_at("the pickle ends inside a GLOBAL name (truncated?)");
    std::string out(data_.substr(at_, end - at_));
    at_ = end + 1;
    return out;
  }

  // ---- the stack ----
  ValuePtr make(Kind kind) {
    auto value = std::make_shared<Value>();
    value->kind = kind;
    all_.push_back(value);
    return value;
  }
  void push(ValuePtr value) { stack_.push_back(std::move(value)); }
  ValuePtr pop() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back())) fail_at("the pickle pops an empty stack");
    ValuePtr value = std::move(stack_.back());
    stack_.pop_back();
    return value;
  }
  ValuePtr& top() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back())) fail_at("the pickle reads an empty stack");
    return stack_.back();
  }
  std::vector<ValuePtr> pop_mark() {
    if (marks_.empty()) fail_at("the pickle closes a MARK it never opened");
    const size_t from = marks_.back();
    marks_.pop_back();
    std::vector<ValuePtr> out(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(from)),
                              std::make_move_iterator(stack_.end()));
    stack_.resize(from);
    return out;
  }
  ValuePtr tuple(std::vector<ValuePtr> items) {
    ValuePtr value = make(Kind::Tuple);
    value->items = std::move(items);
    return value;
  }
  void set_items(const ValuePtr& dict, std::vector<ValuePtr> flat) {
    if (dict->kind != Kind::Dict && dict->kind != Kind::OrderedDict) {
      fail_at(std::string("SETITEMS on type ") + kind_name(dict->kind) + ", not a dict");
    }
    if (flat.size() % 2 != 0) fail_at("SETITEMS with a key and no value");
    for (size_t i = 0; i < flat.size(); i += 2) dict->entries.emplace_back(flat[i], flat[i + 1]);
  }
  void append(const ValuePtr& list, std::vector<ValuePtr> items) {
    if (list->kind != Kind::List) fail_at(std::string("APPENDS on type ") + kind_name(list->kind) + ", not a list");
    for (ValuePtr& item : items) list->items.push_back(std::move(item));
  }

  // ---- what a state dict may name and call ----
  ValuePtr global(const std::string& module, const std::string& name) {
    const std::string full = module + "." + name;
    ValuePtr value = make(Kind::Global);
    value->text = full;
    if (full == "collections.OrderedDict" || full == "torch._utils._rebuild_tensor_v2" ||
        full == "torch._utils._rebuild_parameter") {
      return value;
    }
    if (module == "torch" && name.size() > 7 && name.ends_with("Storage")) {
      for (DType dtype : kAllDTypes) {
        if (torch_storage_class(dtype) == name) {
          value->storage_class = true;
          value->dtype = dtype;
          return value;
        }
      }
      fail_at("global '" + full + "' is a storage of a dtype ember does not support");
    }
    fail_at("forbidden global '" + full + "': " + kAllowed);
  }

  static bool is_empty_mapping(const ValuePtr& value) {
    return (value->kind == Kind::Dict || value->kind == Kind::OrderedDict) && value->entries.empty();
  }
  static bool is_int_tuple(const ValuePtr& value) {
    if (value->kind != Kind::Tuple) return false;
    for (const ValuePtr& item : value->items) {
      if (item->kind != Kind::Int) return false;
    }
    return true;
  }
  static std::vector<int64_t> ints(const ValuePtr& tuple) {
    std::vector<int64_t> out;
    for (const ValuePtr& item : tuple->items) out.push_back(item->integer);
    return out;
  }

  ValuePtr call(const ValuePtr& callable, const ValuePtr& args) {
    if (callable->kind != Kind::Global) fail_at(std::string("REDUCE calls a value of type ") + kind_name(callable->kind));
    if (args->kind != Kind::Tuple) fail_at(std::string("REDUCE with arguments of type ") + kind_name(args->kind) + ", not a tuple");
    const std::vector<ValuePtr>& a = args->items;
    const std::string& name = callable->text;
    if (name == "collections.OrderedDict") {
      if (!a.empty()) fail_at("collections.OrderedDict is called with arguments");
      return make(Kind::OrderedDict);
    }
    if (name == "torch._utils._rebuild_tensor_v2") {
      // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
      const bool ok = (a.size() == 6 || a.size() == 7) && a[0]->kind == Kind::Storage && a[1]->kind == Kind::Int &&
                      is_int_tuple(a[2]) && is_int_tuple(a[3]) && a[2]->items.size() == a[3]->items.size() &&
                      a[4]->kind == Kind::Bool && is_empty_mapping(a[5]) &&
                      (a.size() == 6 || a[6]->kind == Kind::None || is_empty_mapping(a[6]));
      if (!ok) {
        fail_at("torch._utils._rebuild_tensor_v2 takes (storage, offset, size, stride, requires_grad, "
                "empty backward_hooks), not what this pickle passes");
      }
      // Each state dict entry copies its tensor's description, and many entries can name one tensor, so
      // the description's size is what keeps memory proportional to the pickle's length.
      if (a[2]->items.size() > static_cast<size_t>(kMaxDims)) {
        fail_at("a tensor has " + std::to_string(a[2]->items.size()) + " dimensions; ember's tensors have at most " +
                std::to_string(kMaxDims));
      }
      ValuePtr tensor = make(Kind::Tensor);
      tensor->dtype = a[0]->dtype;
      tensor->tensor = std::make_shared<PickledTensor>();
      tensor->tensor->storage_key = a[0]->text;
      tensor->tensor->storage_offset = a[1]->integer;
      tensor->tensor->sizes = ints(a[2]);
      tensor->tensor->strides = ints(a[3]);
      tensor->tensor->requires_grad = a[4]->boolean;
      return tensor;
    }
    if (name == "torch._utils._rebuild_parameter") {
      // (data, requires_grad, backward_hooks), as nn.Parameter pickles itself
      if (a.size() != 3 || a[0]->kind != Kind::Tensor || a[1]->kind != Kind::Bool || !is_empty_mapping(a[2])) {
        fail_at("torch._utils._rebuild_parameter takes (tensor, requires_grad, empty backward_hooks)");
      }
      ValuePtr parameter = make(Kind::Tensor);
      parameter->dtype = a[0]->dtype;
      parameter->tensor = std::make_shared<PickledTensor>(*a[0]->tensor);
      parameter->tensor->requires_grad = a[1]->boolean;
      return parameter;
    }
    fail_at("global '" + name + "' cannot be called: " + kAllowed);
  }

  // BUILD on a state dict sets its _metadata (module versions); nothing else may be set.
  void build(const ValuePtr& target, const ValuePtr& state) {
    if (target->kind != Kind::OrderedDict) fail_at(std::string("BUILD on type ") + kind_name(target->kind) + ", not a state dict");
    if (state->kind != Kind::Dict) fail_at(std::string("BUILD with state of type ") + kind_name(state->kind) + ", not a dict");
    for (const auto& [key, value] : state->entries) {
      if (key->kind != Kind::String || key->text != "_metadata") {
        fail_at("BUILD may set only a state dict's _metadata, not " +
                (key->kind == Kind::String ? "'" + key->text + "'" : std::string("a key of type ") + kind_name(key->kind)));
      }
      if (value->kind != Kind::Dict && value->kind != Kind::OrderedDict) {
        fail_at(std::string("the state dict's _metadata is of type ") + kind_name(value->kind) + ", not a dict");
      }
    }
  }

  // ('storage', torch.<Type>Storage, key, location, numel), as torch.save's persistent_id writes.
  ValuePtr persistent_load(const ValuePtr& pid) {
    const std::vector<ValuePtr>* a = pid->kind == Kind::Tuple ? &pid->items : nullptr;
    if (!a || a->size() != 5 || (*a)[0]->kind != Kind::String || (*a)[0]->text != "storage" ||
        (*a)[1]->kind != Kind::Global || !(*a)[1]->storage_class || (*a)[2]->kind != Kind::String ||
        (*a)[3]->kind != Kind::String || (*a)[4]->kind != Kind::Int || (*a)[4]->integer < 0) {
      fail_at("a persistent id that is not ('storage', torch.<Type>Storage, key, location, numel)");
    }
    ValuePtr storage = make(Kind::Storage);
    storage->text = (*a)[2]->text;
    storage->dtype = (*a)[1]->dtype;
    storage->numel = (*a)[4]->integer;
    auto [it, inserted] = storages_.try_emplace(storage->text, PickledStorage{storage->text, storage->dtype, storage->numel});
    if (!inserted && (it->second.dtype != storage->dtype || it->second.numel != storage->numel)) {
      fail_at("storage '" + storage->text + "' is declared twice with different dtypes or sizes");
    }
    return storage;
  }

  ValuePtr run() {
    while (true) {
      op_at_ = at_;
      const uint8_t code = static_cast<uint8_t>(take(1)[0]);
      switch (code) {
        case op::PROTO: {
          const uint8_t protocol = static_cast<uint8_t>(take(1)[0]);
          if (protocol > 2) fail_at("pickle protocol " + std::to_string(protocol) + " is not supported (torch.save writes protocol 2)");
          break;
        }
        case op::STOP: {
          ValuePtr result = pop();
          if (!stack_.empty() || !marks_.empty()) fail_at("the pickle stops with values left on its stack");
          return result;
        }
        case op::MARK: marks_.push_back(stack_.size()); break;
        case op::POP: pop(); break;
        case op::POP_MARK: pop_mark(); break;
        case op::NONE: push(make(Kind::None)); break;
        case op::NEWTRUE:
        case op::NEWFALSE: {
          ValuePtr value = make(Kind::Bool);
          value->boolean = code == op::NEWTRUE;
          push(value);
          break;
        }
        case op::BININT:
        case op::BININT1:
        case op::BININT2: {
          ValuePtr value = make(Kind::Int);
          if (code == op::BININT) value->integer = static_cast<int32_t>(little_endian(4));
          if (code == op::BININT1) value->integer = static_cast<int64_t>(little_endian(1));
          if (code == op::BININT2) value->integer = static_cast<int64_t>(little_endian(2));
          push(value);
          break;
        }
        case op::LONG1: {
          const size_t bytes = static_cast<uint8_t>(take(1)[0]);
          if (bytes > 8) fail_at("an integer of " + std::to_string(bytes) + " bytes, larger than 64 bits");
          uint64_t raw = bytes ? little_endian(bytes) : 0;
          if (bytes > 0 && bytes < 8 && (raw >> (8 * bytes - 1)) & 1) raw |= ~uint64_t{0} << (8 * bytes);  // sign
          ValuePtr value = make(Kind::Int);
          value->integer = static_cast<int64_t>(raw);
          push(value);
          break;
        }
        case op::BINFLOAT: {
          const std::string_view raw = take(8);
          uint64_t bits = 0;
          for (char c : raw) bits = (bits << 8) | static_cast<uint8_t>(c);  // big-endian
          ValuePtr value = make(Kind::Float);
          std::memcpy(&value->floating, &bits, 8);
          push(value);
          break;
        }
        case op::BINUNICODE: {
          const uint64_t length = little_endian(4);
          ValuePtr value = make(Kind::String);
          value->text = std::string(take(length));
          push(value);
          break;
        }
        case op::EMPTY_TUPLE: push(tuple({})); break;
        case op::TUPLE: push(tuple(pop_mark())); break;
        case op::TUPLE1:
        case op::TUPLE2:
        case op::TUPLE3: {
          std::vector<ValuePtr> items(code - op::TUPLE1 + 1);
          for (size_t i = items.size(); i-- > 0;) items[i] = pop();
          push(tuple(std::move(items)));
          break;
        }
        case op::EMPTY_LIST: push(make(Kind::List)); break;
        case op::LIST: {
          ValuePtr list = make(Kind::List);
          list->items = pop_mark();
          push(list);
          break;
        }
        case op::APPEND: {
          ValuePtr item = pop();
          append(top(), {item});
          break;
        }
        case op::APPENDS: {
          std::vector<ValuePtr> items = pop_mark();
          append(top(), std::move(items));
          break;
        }
        case op::EMPTY_DICT: push(make(Kind::Dict)); break;
        case op::DICT: {
          ValuePtr dict = make(Kind::Dict);
          set_items(dict, pop_mark());
          push(dict);
          break;
        }
        case op::SETITEM: {
          ValuePtr value = pop();
          ValuePtr key = pop();
          set_items(top(), {key, value});
          break;
        }
        case op::SETITEMS: {
          std::vector<ValuePtr> flat = pop_mark();
          set_items(top(), std::move(flat));
          break;
        }
        case op::GLOBAL: {
          const std::string module = line();
          const std::string name = line();
          push(global(module, name));
          break;
        }
        case op::REDUCE: {
          ValuePtr args = pop();
          ValuePtr callable = pop();
          push(call(callable, args));
          break;
        }
        case op::BUILD: {
          ValuePtr state = pop();
          build(top(), state);
          break;
        }
        case op::BINPERSID: push(persistent_load(pop())); break;
        case op::BINPUT:
        case op::LONG_BINPUT: memo_[static_cast<uint32_t>(little_endian(code == op::BINPUT ? 1 : 4))] = top(); break;
        case op::BINGET:
        case op::LONG_BINGET: {
          const uint32_t index = static_cast<uint32_t>(little_endian(code == op::BINGET ? 1 : 4));
          auto it = memo_.find(index);
          if (it == memo_.end()) fail_at("the pickle reads memo entry " + std::to_string(index) + ", which it never stored");
          push(it->second);
          break;
        }
        default: {
          const bool printable = code >= 0x20 && code < 0x7f;
          char hex[8];
          std::snprintf(hex, sizeof hex, "0x%02x", code);
          fail_at(std::string("pickle opcode ") + hex + (printable ? std::string(" ('") + char(code) + "')" : "") +
                  " is not allowed in a state dict (protocol 2 opcodes for dicts, tuples and tensors only)");
        }
      }
    }
  }

  // The dict of tensors the pickle built, each checked to lie inside its storage.
  PickledStateDict extract(const ValuePtr& root) {
    if (root->kind != Kind::OrderedDict && root->kind != Kind::Dict) {
      fail(std::string("the pickled object is of type ") + kind_name(root->kind) + ", not a state dict (a dict of tensors)");
    }
    PickledStateDict out;
    std::set<std::string> names;
    for (const auto& [key, value] : root->entries) {
      if (key->kind != Kind::String) fail(std::string("the state dict has a key of type ") + kind_name(key->kind) + ", not str");
      if (value->kind != Kind::Tensor) {
        fail("the value under '" + key->text + "' is of type " + kind_name(value->kind) +
             ", not a tensor (ember loads state dicts of tensors)");
      }
      if (!names.insert(key->text).second) fail("the state dict names '" + key->text + "' twice");
      PickledTensor tensor = *value->tensor;
      tensor.name = key->text;
      const PickledStorage& storage = storages_.at(tensor.storage_key);
      check_extent(tensor, storage);
      out.storages.try_emplace(storage.key, storage);
      out.tensors.push_back(std::move(tensor));
    }
    return out;
  }

  void check_extent(const PickledTensor& t, const PickledStorage& storage) const {
    const std::string what = "tensor '" + t.name + "' (size " + sizes_text(t.sizes) + ", stride " + sizes_text(t.strides) +
                             ", offset " + std::to_string(t.storage_offset) + ")";
    if (t.storage_offset < 0) fail(what + " has a negative storage offset");
    int64_t numel = 1;
    int64_t last = t.storage_offset;  // the furthest element it reaches
    bool overflow = false;
    for (size_t d = 0; d < t.sizes.size(); ++d) {
      if (t.sizes[d] < 0 || t.strides[d] < 0) fail(what + " has a negative size or stride");
      int64_t reach = 0;
      overflow = overflow || __builtin_mul_overflow(numel, t.sizes[d], &numel);
      if (t.sizes[d] > 0) overflow = overflow || __builtin_mul_overflow(t.sizes[d] - 1, t.strides[d], &reach) ||
                                     __builtin_add_overflow(last, reach, &last);
    }
    if (overflow) fail(what + " is too large to address");
    if (numel > 0 && last >= storage.numel) {
      fail(what + " reaches element " + std::to_string(last) + " of storage '" + storage.key + "', which holds " +
           std::to_string(storage.numel) + " elements");
    }
  }

  std::string_view data_;
  std::string source_;
  size_t at_ = 0;
  size_t op_at_ = 0;
  std::vector<ValuePtr> stack_;
  std::vector<size_t> marks_;  // stack heights at each open MARK
  std::unordered_map<uint32_t, ValuePtr> memo_;
  std::vector<ValuePtr> all_;
  std::map<std::string, PickledStorage> storages_;
};

}  // namespace

std::string torch_storage_class(DType dtype) { return scalar_type_name(dtype) + "Storage"; }

PickledStateDict unpickle_state_dict(std::string_view pickle, const std::string& source) {
  Unpickler unpickler(pickle, source);
  return unpickler.state_dict();
}

}  // namespace ember::detail
