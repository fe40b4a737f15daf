#pragma once
// nn::Module: the base of every layer and model, with LibTorch's C++ API (register_parameter,
// register_module, named_parameters, train/eval, to, zero_grad, clone) and the parts of PyTorch's Python
// API that LibTorch lacks (state_dict/load_state_dict, forward hooks, repr).
//
//   struct NetImpl : ember::nn::Module {
//     NetImpl() { fc = register_module("fc", ember::nn::Linear(784, 10)); }
//     ember::Tensor forward(ember::Tensor x) { return fc(x); }
//     ember::nn::Linear fc{nullptr};
//   };
//   EMBER_MODULE(Net);
//
// Subclasses define their own forward with any signature; the holder's operator() calls it (running the
// hooks), as Python's __call__ does. Differences from PyTorch: apply() visits children before their
// parent, as Python's does (LibTorch visits the parent first); to(dtype) converts only floating-point
// parameters and buffers, as Python's does (LibTorch converts integer buffers too).
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "autograd/node.h"
#include "nn/ordered_dict.h"
#include "tensor/tensor_api.h"

namespace ember::nn {

using autograd::RemovableHandle;
using tensor_list = std::vector<Tensor>;

class Module;
template <class Contained>
class ModuleHolder;

// A forward pre-hook sees the module and its tensor arguments (in order), and may return replacements.
using ForwardPreHook = std::function<std::optional<tensor_list>(Module& module, const tensor_list& inputs)>;
// A forward hook also sees the tensors forward returned, and may return replacements for them.
using ForwardHook = std::function<std::optional<tensor_list>(Module& module, const tensor_list& inputs,
                                                             const tensor_list& outputs)>;

// What load_state_dict(strict = false) skipped, as Python's _IncompatibleKeys.
struct LoadStateDictResult {
  std::vector<std::string> missing_keys;
  std::vector<std::string> unexpected_keys;
};

namespace detail {
template <class T>
struct contained {
  using type = T;
};
template <class T>
  requires requires { typename T::ContainedType; }
struct contained<T> {
  using type = typename T::ContainedType;
};
}  // namespace detail

class Module : public std::enable_shared_from_this<Module> {
 public:
  Module();
  // `name` replaces the class name in repr() and errors.
  explicit Module(std::string name);
  Module(const Module&);  // for Cloneable: the copy shares nothing mutable (hooks are copied)
  Module& operator=(const Module&) = delete;
  virtual ~Module() = default;

  // The name Python shows: the class name without namespaces or an "Impl" suffix ("Linear", "Net").
  const std::string& name() const;

  // A deep copy with parameters and buffers of its own (on `device` when given). Modules built in are
  // Cloneable; a user module must derive from nn::Cloneable<Self> to be cloned, as in LibTorch.
  virtual std::shared_ptr<Module> clone(const std::shared_ptr<Device>& device = nullptr) const;

  // `fn` on every submodule and then this module (children first, as Python's apply).
  void apply(const std::function<void(Module&)>& fn);
  void apply(const std::function<void(const std::string& name, Module&)>& fn, const std::string& prefix = "");

  // Parameters and buffers in registration order, this module's first, then each child's (a tensor
  // reachable twice is listed once). Undefined parameters (bias=false) are skipped.
  tensor_list parameters(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  tensor_list buffers(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;
  // This module (unless include_self is false) and every submodule, parents before children; a module
  // reachable twice is listed once, under its first name.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(const std::string& prefix = "",
                                                                   bool include_self = true) const;

  virtual void train(bool on = true);
  void eval() { train(false); }
  virtual bool is_training() const noexcept { return is_training_; }

  // Moves or converts every parameter and buffer in place (handles to them stay valid) and their grads.
  // Copies are ordered on the streams, so non_blocking changes nothing.
  virtual void to(const std::shared_ptr<Device>& device, DType dtype, bool non_blocking = false);
  virtual void to(DType dtype, bool non_blocking = false);
  virtual void to(const std::shared_ptr<Device>& device, bool non_blocking = false);
  void to(std::string_view device_spec, bool non_blocking = false);

  // set_to_none drops every parameter's grad; otherwise each grad is detached and zeroed.
  virtual void zero_grad(bool set_to_none = true);

  // This module as `T` (an Impl or its holder type), or null.
  template <class T>
  typename detail::contained<T>::type* as() noexcept {
    return dynamic_cast<typename detail::contained<T>::type*>(this);
  }

  // Parameters and persistent buffers by dotted name, detached (sharing memory), in Python's order.
  OrderedDict<std::string, Tensor> state_dict() const;
  // Copies `state` into the parameters and buffers. Missing or unexpected keys (when strict) and shape
  // mismatches throw Python's error listing them all, before anything is copied.
  LoadStateDictResult load_state_dict(const OrderedDict<std::string, Tensor>& state, bool strict = true);

  // Python's repr: "Linear(in_features=7, out_features=10, bias=True)", children indented below.
  std::string repr() const;
  // What repr() shows inside the parentheses before the children; modules override it.
  virtual std::string extra_repr() const { return ""; }

  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  // A non-persistent buffer is left out of state_dict(), as Python's register_buffer(persistent=False).
  Tensor& register_buffer(std::string name, Tensor tensor, bool persistent = true);
  template <class M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    check_new_name("Submodule", name);
    if (!module) throw Error("Submodule '" + name + "' is null");
    children_.insert(std::move(name), module);
    return module;
  }
  template <class M>
  std::shared_ptr<M> register_module(std::string name, ModuleHolder<M> holder) {
    return register_module(std::move(name), holder.ptr());
  }
  // Swaps the submodule registered as `name`; the caller reassigns its own member.
  template <class M>
  std::shared_ptr<M> replace_module(const std::string& name, std::shared_ptr<M> module) {
    children_[name] = module;
    return module;
  }
  template <class M>
  std::shared_ptr<M> replace_module(const std::string& name, ModuleHolder<M> holder) {
    return replace_module(name, holder.ptr());
  }
  void unregister_module(const std::string& name);

  RemovableHandle register_forward_pre_hook(ForwardPreHook hook);
  RemovableHandle register_forward_hook(ForwardHook hook);
  bool has_forward_hooks() const;
  // The hooks in registration order, each seeing what the previous one returned. Empty when no hook
  // replaced anything.
  std::optional<tensor_list> run_forward_pre_hooks(const tensor_list& inputs);
  std::optional<tensor_list> run_forward_hooks(const tensor_list& inputs, const tensor_list& outputs);

 protected:
  // `tensor` as a parameter: a leaf (detached when it has history, as nn.Parameter makes one) with
  // requires_grad as asked.
  static Tensor as_parameter(Tensor tensor, bool requires_grad);
  // Copies the parameters and buffers of `original` (a module of the same structure) into this
  // module's, recursively; Cloneable::clone calls it after reset().
  void copy_state_from(const Module& original, const std::shared_ptr<Device>& device);

  OrderedDict<std::string, Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, Tensor> buffers_{"Buffer"};
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};
  std::set<std::string> non_persistent_buffers_;

 private:
  template <class Visit>
  void visit_modules(const std::string& prefix, bool include_self, Visit&& visit) const;
  void check_new_name(const char* kind, const std::string& name) const;
  void convert(const std::function<Tensor(const Tensor&)>& convert_one);

  mutable std::optional<std::string> name_;
  bool is_training_ = true;
  std::shared_ptr<autograd::HookList<ForwardPreHook>> pre_hooks_;
  std::shared_ptr<autograd::HookList<ForwardHook>> hooks_;
};

std::ostream& operator<<(std::ostream& out, const Module& module);

}  // namespace ember::nn
