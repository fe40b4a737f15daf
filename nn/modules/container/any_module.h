#pragma once
// AnyModule: a module of any type whose forward takes and returns one tensor, as containers hold them.
// Calls go through the hooks, as the module's own holder would.
#include <functional>
#include <memory>
#include <string>
#include <type_traits>

#include "nn/module_holder.h"

namespace ember::nn {

class AnyModule {
 public:
  AnyModule() = default;
  template <class M>
    requires std::is_base_of_v<Module, M>
  AnyModule(std::shared_ptr<M> module)
      : module_(std::move(module)), forward_([](Module& m, const Tensor& x) -> Tensor {
          static_assert(requires(M & module, const Tensor& x) { { module.forward(x) } -> std::convertible_to<Tensor>; },
                        "a container holds modules whose forward takes and returns one Tensor");
          return detail::call_forward(static_cast<M&>(m), x);
        }) {}
  template <class M>
  AnyModule(const ModuleHolder<M>& holder) : AnyModule(holder.ptr()) {}
  template <class M>
    requires std::is_base_of_v<Module, std::decay_t<M>>
  AnyModule(M&& module) : AnyModule(std::make_shared<std::decay_t<M>>(std::forward<M>(module))) {}

  Tensor forward(const Tensor& x) const { return forward_(*module_, x); }
  const std::shared_ptr<Module>& ptr() const { return module_; }
  bool is_empty() const { return module_ == nullptr; }
  // The same kind of module over another instance (a clone of this one).
  AnyModule with_module(std::shared_ptr<Module> module) const {
    AnyModule copy = *this;
    copy.module_ = std::move(module);
    return copy;
  }

 private:
  std::shared_ptr<Module> module_;
  std::function<Tensor(Module&, const Tensor&)> forward_;
};

// A name and a module, for containers built from named entries: Sequential({{"fc", Linear(3, 4)}}).
struct NamedAnyModule {
  template <class M>
  NamedAnyModule(std::string name, M&& module) : name(std::move(name)), module(std::forward<M>(module)) {}
  std::string name;
  AnyModule module;
};

}  // namespace ember::nn
