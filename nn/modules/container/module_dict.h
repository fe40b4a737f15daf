#pragma once
// ModuleDict: submodules by name, in insertion order; it has no forward
// (https://pytorch.org/docs/1.13/generated/torch.nn.ModuleDict.html).
//   nn::ModuleDict heads({{"cls", nn::Linear(8, 10).ptr()}});  heads["cls"]
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nn/cloneable.h"
#include "nn/module_holder.h"

namespace ember::nn {

class ModuleDictImpl : public Cloneable<ModuleDictImpl> {
 public:
  ModuleDictImpl() = default;
  explicit ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules);

  void reset() override {}
  std::shared_ptr<Module> clone(const std::shared_ptr<Device>& device = nullptr) const override;

  // Adds `module` under `key`, or replaces the module already there (keeping its position).
  void insert(const std::string& key, std::shared_ptr<Module> module);
  template <class M>
  void insert(const std::string& key, const ModuleHolder<M>& module) {
    insert(key, std::shared_ptr<Module>(module.ptr()));
  }
  void update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules);
  std::shared_ptr<Module> pop(const std::string& key);
  void clear() { children_.clear(); }

  size_t size() const { return children_.size(); }
  bool empty() const { return children_.is_empty(); }
  bool contains(const std::string& key) const { return children_.contains(key); }
  const std::shared_ptr<Module>& operator[](const std::string& key) const;
  template <class T>
  T& at(const std::string& key) const {
    auto* module = (*this)[key]->as<T>();
    if (!module) throw TypeError("ModuleDict entry '" + key + "' is a " + (*this)[key]->name());
    return *module;
  }
  std::vector<std::string> keys() const { return children_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return children_.values(); }
  const auto& items() const { return children_.items(); }
  auto begin() const { return children_.begin(); }
  auto end() const { return children_.end(); }
};
EMBER_MODULE(ModuleDict);

}  // namespace ember::nn
