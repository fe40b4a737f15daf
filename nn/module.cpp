#include "nn/module.h"

#include <ostream>
#include <sstream>
#include <typeinfo>
#include <unordered_set>

#include "autograd/function.h"
#include "autograd/grad_mode.h"
#include "autograd/zero_grad.h"
#include "runtime/device.h"

namespace ember::nn {

namespace {

std::string demangled_class_name(const std::type_info& type) {
  std::string name = autograd::demangled_name(type.name());
  if (const size_t template_start = name.find('<'); template_start != std::string::npos) name.resize(template_start);
  if (const size_t scope = name.rfind("::"); scope != std::string::npos) name = name.substr(scope + 2);
  if (name.size() > 4 && name.ends_with("Impl")) name.resize(name.size() - 4);
  return name;
}

// Every line after the first indented by two spaces, as Python's _addindent.
std::string indent_continuation_lines(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

std::string dotted(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

}  // namespace

Module::Module()
    : pre_hooks_(std::make_shared<autograd::HookList<ForwardPreHook>>()),
      hooks_(std::make_shared<autograd::HookList<ForwardHook>>()) {}

Module::Module(std::string name) : Module() { name_ = std::move(name); }

Module::Module(const Module& other)
    : std::enable_shared_from_this<Module>(),
      parameters_(other.parameters_),
      buffers_(other.buffers_),
      children_(other.children_),
      non_persistent_buffers_(other.non_persistent_buffers_),
      name_(other.name_),
      is_training_(other.is_training_),
      pre_hooks_(std::make_shared<autograd::HookList<ForwardPreHook>>(*other.pre_hooks_)),
      hooks_(std::make_shared<autograd::HookList<ForwardHook>>(*other.hooks_)) {}

const std::string& Module::name() const {
  if (!name_) name_ = demangled_class_name(typeid(*this));
  return *name_;
}

std::shared_ptr<Module> Module::clone(const std::shared_ptr<Device>&) const {
  throw Error("clone() has not been implemented for " + name() + ". Subclass ember::nn::Cloneable<" + name() +
              "> instead of ember::nn::Module to inherit the ability to clone.");
}

void Module::apply(const std::function<void(Module&)>& fn) {
  for (const auto& child : children_) child.value()->apply(fn);
  fn(*this);
}

void Module::apply(const std::function<void(const std::string&, Module&)>& fn, const std::string& prefix) {
  for (const auto& child : children_) child.value()->apply(fn, dotted(prefix, child.key()));
  fn(prefix, *this);
}

template <class Visit>
void Module::visit_modules(const std::string& prefix, bool include_self, Visit&& visit) const {
  std::unordered_set<const Module*> seen;
  std::function<void(const Module&, const std::string&, bool)> walk = [&](const Module& module,
                                                                          const std::string& name, bool self) {
    if (!seen.insert(&module).second) return;
    if (self) visit(module, name);
    for (const auto& child : module.children_) walk(*child.value(), dotted(name, child.key()), true);
  };
  walk(*this, prefix, include_self);
}

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  OrderedDict<std::string, Tensor> out("Parameter");
  std::unordered_set<const TensorImpl*> seen;
  auto add_own = [&](const Module& module, const std::string& prefix) {
    for (const auto& p : module.parameters_) {
      if (p.value().defined() && seen.insert(p.value().impl_ptr().get()).second) {
        out.insert(dotted(prefix, p.key()), p.value());
      }
    }
  };
  if (recurse) {
    visit_modules("", true, add_own);
  } else {
    add_own(*this, "");
  }
  return out;
}

tensor_list Module::parameters(bool recurse) const { return named_parameters(recurse).values(); }

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  OrderedDict<std::string, Tensor> out("Buffer");
  std::unordered_set<const TensorImpl*> seen;
  auto add_own = [&](const Module& module, const std::string& prefix) {
    for (const auto& b : module.buffers_) {
      if (b.value().defined() && seen.insert(b.value().impl_ptr().get()).second) {
        out.insert(dotted(prefix, b.key()), b.value());
      }
    }
  };
  if (recurse) {
    visit_modules("", true, add_own);
  } else {
    add_own(*this, "");
  }
  return out;
}

tensor_list Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const {
  OrderedDict<std::string, std::shared_ptr<Module>> out("Submodule");
  std::unordered_set<const Module*> seen;
  for (const auto& child : children_) {
    if (seen.insert(child.value().get()).second) out.insert(child.key(), child.value());
  }
  return out;
}

std::vector<std::shared_ptr<Module>> Module::children() const { return named_children().values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(const std::string& prefix,
                                                                        bool include_self) const {
  OrderedDict<std::string, std::shared_ptr<Module>> out("Module");
  visit_modules(prefix, include_self, [&](const Module& module, const std::string& name) {
    // Registered modules are owned by shared_ptrs; a root on the stack is listed without ownership.
    auto& mutable_module = const_cast<Module&>(module);
    std::shared_ptr<Module> owned = mutable_module.weak_from_this().lock();
    out.insert(name, owned ? owned : std::shared_ptr<Module>(&mutable_module, [](Module*) {}));
  });
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  return named_modules("", include_self).values();
}

void Module::train(bool on) {
  is_training_ = on;
  for (const auto& child : children_) child.value()->train(on);
}

void Module::convert(const std::function<Tensor(const Tensor&)>& convert_one) {
  autograd::NoGradGuard no_grad;
  std::vector<Module*> tree;
  visit_modules("", true, [&](const Module& m, const std::string&) { tree.push_back(const_cast<Module*>(&m)); });
  for (Module* module : tree) {
    for (auto* dict : {&module->parameters_, &module->buffers_}) {
      for (auto& item : *dict) {
        Tensor& t = item.value();
        if (!t.defined()) continue;
        t.set_data(convert_one(t));
        if (t.grad().defined()) t.mutable_grad().set_data(convert_one(t.grad()));
      }
    }
  }
}

void Module::to(const std::shared_ptr<Device>& device, DType dtype, bool) {
  convert([&](const Tensor& t) { return t.to(device, t.is_floating_point() ? std::optional(dtype) : std::nullopt); });
}

void Module::to(DType dtype, bool) {
  convert([&](const Tensor& t) { return t.is_floating_point() ? t.to(dtype) : t; });
}

void Module::to(const std::shared_ptr<Device>& device, bool) {
  convert([&](const Tensor& t) { return t.to(device); });
}

void Module::to(std::string_view device_spec, bool non_blocking) { to(get_device(device_spec), non_blocking); }

void Module::zero_grad(bool set_to_none) {
  for (Tensor& p : parameters()) autograd::zero_grad(p, set_to_none);
}

OrderedDict<std::string, Tensor> Module::state_dict() const {
  OrderedDict<std::string, Tensor> out("Key");
  visit_modules("", true, [&](const Module& module, const std::string& prefix) {
    for (const auto& p : module.parameters_) {
      if (p.value().defined()) out.insert(dotted(prefix, p.key()), p.value().detach());
    }
    for (const auto& b : module.buffers_) {
      if (b.value().defined() && !module.non_persistent_buffers_.count(b.key())) {
        out.insert(dotted(prefix, b.key()), b.value().detach());
      }
    }
  });
  return out;
}

LoadStateDictResult Module::load_state_dict(const OrderedDict<std::string, Tensor>& state, bool strict) {
  // The live tensors under their state_dict names (state_dict() returns detached handles).
  OrderedDict<std::string, Tensor> targets("Key");
  visit_modules("", true, [&](const Module& module, const std::string& prefix) {
    for (const auto& p : module.parameters_) {
      if (p.value().defined()) targets.insert(dotted(prefix, p.key()), p.value());
    }
    for (const auto& b : module.buffers_) {
      if (b.value().defined() && !module.non_persistent_buffers_.count(b.key())) {
        targets.insert(dotted(prefix, b.key()), b.value());
      }
    }
  });
  LoadStateDictResult result;
  std::vector<std::string> mismatches;
  for (const auto& target : targets) {
    const Tensor* given = state.find(target.key());
    if (!given) {
      result.missing_keys.push_back(target.key());
    } else if (!given->defined() || given->sizes() != target.value().sizes()) {
      mismatches.push_back("size mismatch for " + target.key() + ": copying a param with shape " +
                           (given->defined() ? to_string(given->sizes()) : std::string("(undefined)")) +
                           " from checkpoint, the shape in current model is " +
                           to_string(target.value().sizes()) + ".");
    }
  }
  for (const auto& item : state) {
    if (!targets.contains(item.key())) result.unexpected_keys.push_back(item.key());
  }
  auto quoted_list = [](const std::vector<std::string>& keys) {
    std::string text;
    for (const std::string& key : keys) text += (text.empty() ? "\"" : ", \"") + key + "\"";
    return text;
  };
  std::vector<std::string> errors;
  if (strict && !result.missing_keys.empty()) {
    errors.push_back("Missing key(s) in state_dict: " + quoted_list(result.missing_keys) + ". ");
  }
  if (strict && !result.unexpected_keys.empty()) {
    errors.push_back("Unexpected key(s) in state_dict: " + quoted_list(result.unexpected_keys) + ". ");
  }
  errors.insert(errors.end(), mismatches.begin(), mismatches.end());
  if (!errors.empty()) {
    std::string message = "Error(s) in loading state_dict for " + name() + ":";
    for (const std::string& error : errors) message += "\n\t" + error;
    throw Error(message);
  }
  autograd::NoGradGuard no_grad;
  for (auto& target : targets) {
    if (const Tensor* given = state.find(target.key())) target.value().copy_(given->to(target.value().device()));
  }
  return result;
}

std::string Module::repr() const {
  std::vector<std::string> lines;
  std::istringstream extra(extra_repr());
  size_t extra_lines = 0;
  for (std::string line; std::getline(extra, line);) {
    lines.push_back(line);
    ++extra_lines;
  }
  for (const auto& child : children_) {
    lines.push_back("(" + child.key() + "): " + indent_continuation_lines(child.value()->repr()));
  }
  std::string text = name() + "(";
  if (extra_lines == 1 && lines.size() == 1) {
    text += lines[0];
  } else if (!lines.empty()) {
    for (const std::string& line : lines) text += "\n  " + line;
    text += "\n";
  }
  return text + ")";
}

std::ostream& operator<<(std::ostream& out, const Module& module) { return out << module.repr(); }

void Module::check_new_name(const char* kind, const std::string& name) const {
  if (name.empty()) throw Error(std::string(kind) + " name must not be empty");
  if (name.find('.') != std::string::npos) {
    throw Error(std::string(kind) + " name must not contain a dot (got '" + name + "')");
  }
  if (parameters_.contains(name) || buffers_.contains(name) || children_.contains(name)) {
    throw Error(std::string(kind) + " '" + name + "' already defined");
  }
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_new_name("Parameter", name);
  return parameters_.insert(std::move(name), as_parameter(std::move(tensor), requires_grad));
}

Tensor Module::as_parameter(Tensor tensor, bool requires_grad) {
  if (!tensor.defined()) return tensor;
  if (!tensor.is_leaf()) tensor = tensor.detach();
  tensor.requires_grad_(requires_grad);
  return tensor;
}

Tensor& Module::register_buffer(std::string name, Tensor tensor, bool persistent) {
  check_new_name("Buffer", name);
  if (!persistent) non_persistent_buffers_.insert(name);
  return buffers_.insert(std::move(name), std::move(tensor));
}

void Module::unregister_module(const std::string& name) {
  if (!children_.contains(name)) throw Error("No Module with name `" + name + "` is registered");
  children_.pop(name);
}

RemovableHandle Module::register_forward_pre_hook(ForwardPreHook hook) {
  const uint64_t id = pre_hooks_->add(std::move(hook));
  return RemovableHandle([list = std::weak_ptr(pre_hooks_), id] {
    if (auto alive = list.lock()) alive->remove(id);
  });
}

RemovableHandle Module::register_forward_hook(ForwardHook hook) {
  const uint64_t id = hooks_->add(std::move(hook));
  return RemovableHandle([list = std::weak_ptr(hooks_), id] {
    if (auto alive = list.lock()) alive->remove(id);
  });
}

bool Module::has_forward_hooks() const { return !pre_hooks_->entries.empty() || !hooks_->entries.empty(); }

std::optional<tensor_list> Module::run_forward_pre_hooks(const tensor_list& inputs) {
  std::optional<tensor_list> current;
  const auto entries = pre_hooks_->entries;  // a hook may remove itself
  for (const auto& entry : entries) {
    if (auto replaced = entry.second(*this, current ? *current : inputs)) current = std::move(replaced);
  }
  return current;
}

std::optional<tensor_list> Module::run_forward_hooks(const tensor_list& inputs, const tensor_list& outputs) {
  std::optional<tensor_list> current;
  const auto entries = hooks_->entries;
  for (const auto& entry : entries) {
    if (auto replaced = entry.second(*this, inputs, current ? *current : outputs)) current = std::move(replaced);
  }
  return current;
}

void Module::copy_state_from(const Module& original, const std::shared_ptr<Device>& device) {
  autograd::NoGradGuard no_grad;
  auto copy_dict = [&](OrderedDict<std::string, Tensor>& mine, const OrderedDict<std::string, Tensor>& theirs) {
    if (mine.size() != theirs.size()) {
      throw Error("The cloned module " + name() + " does not have the same parameters and buffers as the original " +
                  "after reset(): did reset() register all of them?");
    }
    for (const auto& item : theirs) {
      Tensor& target = mine[item.key()];
      const Tensor& source = item.value();
      if (!source.defined()) {
        target = Tensor();
        continue;
      }
      target.set_data(device && source.device() != device ? source.to(device) : source.clone());
      if (target.is_leaf()) target.requires_grad_(source.requires_grad());
    }
  };
  copy_dict(parameters_, original.parameters_);
  copy_dict(buffers_, original.buffers_);
  is_training_ = original.is_training_;
  for (const auto& child : original.children_) {
    children_[child.key()]->copy_state_from(*child.value(), device);
  }
}

}  // namespace ember::nn
