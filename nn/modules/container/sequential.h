#pragma once
// Sequential: modules applied one after another (https://pytorch.org/docs/1.13/generated/torch.nn.Sequential.html).
//   nn::Sequential net(nn::Linear(784, 256), nn::ReLU(), nn::Linear(256, 10));  net(x);
// Entries are named "0", "1", ... unless given names: nn::Sequential({{"fc", nn::Linear(3, 4)}}).
// A Linear followed by ReLU or GELU runs as one launch (sequential_fusion.h), with the unfused graph.
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "nn/cloneable.h"
#include "nn/modules/container/any_module.h"

namespace ember::nn {

class SequentialImpl : public Cloneable<SequentialImpl> {
 public:
  SequentialImpl() = default;
  template <class... Modules>
    requires(sizeof...(Modules) > 0)
  explicit SequentialImpl(Modules&&... modules) {
    (push_back(AnyModule(std::forward<Modules>(modules))), ...);
  }
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named);

  void reset() override {}
  std::shared_ptr<Module> clone(const std::shared_ptr<Device>& device = nullptr) const override;

  Tensor forward(const Tensor& input);

  void push_back(AnyModule module);
  void push_back(std::string name, AnyModule module);
  template <class M>
  void push_back(M&& module) {
    push_back(AnyModule(std::forward<M>(module)));
  }
  template <class M>
  void push_back(std::string name, M&& module) {
    push_back(std::move(name), AnyModule(std::forward<M>(module)));
  }
  void extend(const SequentialImpl& other);

  size_t size() const { return entries_.size(); }
  bool is_empty() const { return entries_.empty(); }
  const std::shared_ptr<Module>& ptr(size_t index) const;
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  template <class T>
  T& at(size_t index) const {
    auto* module = ptr(index)->as<T>();
    if (!module) throw TypeError("Sequential entry " + std::to_string(index) + " is a " + ptr(index)->name());
    return *module;
  }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

 private:
  std::vector<AnyModule> entries_;
};

class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  Sequential() : ModuleHolder<SequentialImpl>() {}
  Sequential(std::initializer_list<NamedAnyModule> named)
      : ModuleHolder<SequentialImpl>(std::make_shared<SequentialImpl>(named)) {}
};

}  // namespace ember::nn
