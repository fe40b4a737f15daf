#pragma once
// ModuleHolder: the handle every module is used through, as LibTorch's: `nn::Linear fc(784, 256)` makes
// a LinearImpl, `fc->weight` reaches it, `fc(x)` calls its forward with the hooks, and copies share the
// module. `nn::Linear fc{nullptr}` is empty until assigned (usually from register_module).
// EMBER_MODULE(Name) declares the holder `Name` of `NameImpl`, as LibTorch's TORCH_MODULE.
#include <memory>
#include <type_traits>
#include <utility>

#include "nn/forward_call.h"
#include "runtime/error.h"

namespace ember::nn {

template <class Contained>
class ModuleHolder {
 public:
  using ContainedType = Contained;

  ModuleHolder()
    requires std::is_default_constructible_v<Contained>
      : impl_(std::make_shared<Contained>()) {}
  ModuleHolder(std::nullptr_t) {}
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}
  // Forwards its arguments to Contained's constructor.
  template <class Head, class... Tail>
    requires(!std::is_same_v<std::decay_t<Head>, ModuleHolder> && !std::is_same_v<std::decay_t<Head>, std::nullptr_t> &&
             !std::is_convertible_v<Head, std::shared_ptr<Contained>> && std::is_constructible_v<Contained, Head, Tail...>)
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}

  bool is_empty() const noexcept { return impl_ == nullptr; }
  explicit operator bool() const noexcept { return !is_empty(); }
  Contained* get() const {
    if (!impl_) throw Error("Accessing empty ModuleHolder");
    return impl_.get();
  }
  Contained* operator->() const { return get(); }
  Contained& operator*() const { return *get(); }
  const std::shared_ptr<Contained>& ptr() const {
    get();
    return impl_;
  }

  template <class... Args, class Self = Contained>
  auto operator()(Args&&... args) const -> decltype(std::declval<Self&>().forward(std::forward<Args>(args)...)) {
    return detail::call_forward(*get(), std::forward<Args>(args)...);
  }
  template <class Arg>
  decltype(auto) operator[](Arg&& arg) const {
    return (*get())[std::forward<Arg>(arg)];
  }

 protected:
  std::shared_ptr<Contained> impl_;
};

}  // namespace ember::nn

#define EMBER_MODULE_IMPL(Name, ImplType)                           \
  class Name : public ::ember::nn::ModuleHolder<ImplType> {         \
   public:                                                          \
    using ::ember::nn::ModuleHolder<ImplType>::ModuleHolder;        \
    using Impl = ImplType;                                          \
  }

#define EMBER_MODULE(Name) EMBER_MODULE_IMPL(Name, Name##Impl)
