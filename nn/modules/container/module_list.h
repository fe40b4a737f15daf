#pragma once
// ModuleList: submodules held in a list and registered as "0", "1", ...; it has no forward
// (https://pytorch.org/docs/1.13/generated/torch.nn.ModuleList.html).
//   nn::ModuleList layers;  layers->push_back(nn::Linear(4, 4));  for (auto& m : *layers) ...
#include <memory>
#include <vector>

#include "nn/cloneable.h"
#include "nn/module_holder.h"

namespace ember::nn {

class ModuleListImpl : public Cloneable<ModuleListImpl> {
 public:
  ModuleListImpl() = default;
  template <class... Modules>
    requires(sizeof...(Modules) > 0)
  explicit ModuleListImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }

  void reset() override {}
  std::shared_ptr<Module> clone(const std::shared_ptr<Device>& device = nullptr) const override;

  void push_back(std::shared_ptr<Module> module);
  template <class M>
  void push_back(const ModuleHolder<M>& module) {
    push_back(std::shared_ptr<Module>(module.ptr()));
  }
  template <class M>
    requires std::is_base_of_v<Module, std::decay_t<M>>
  void push_back(M&& module) {
    push_back(std::shared_ptr<Module>(std::make_shared<std::decay_t<M>>(std::forward<M>(module))));
  }
  void extend(const ModuleListImpl& other);
  // Inserts before `index`; later entries are renamed, as Python's insert renumbers them.
  void insert(size_t index, std::shared_ptr<Module> module);

  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.empty(); }
  const std::shared_ptr<Module>& ptr(size_t index) const;
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  template <class T>
  T& at(size_t index) const {
    auto* module = ptr(index)->as<T>();
    if (!module) throw TypeError("ModuleList entry " + std::to_string(index) + " is a " + ptr(index)->name());
    return *module;
  }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }

 private:
  void rename_children();
  std::vector<std::shared_ptr<Module>> modules_;
};
EMBER_MODULE(ModuleList);

}  // namespace ember::nn
