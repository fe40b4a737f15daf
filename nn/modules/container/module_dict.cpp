#include "nn/modules/container/module_dict.h"

namespace ember::nn {

ModuleDictImpl::ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
  update(modules);
}

std::shared_ptr<Module> ModuleDictImpl::clone(const std::shared_ptr<Device>& device) const {
  auto copy = std::make_shared<ModuleDictImpl>();
  for (const auto& item : children_) copy->insert(item.key(), item.value()->clone(device));
  copy->train(is_training());
  return copy;
}

void ModuleDictImpl::insert(const std::string& key, std::shared_ptr<Module> module) {
  if (children_.contains(key)) {
    if (!module) throw Error("ModuleDict: cannot insert a null module as '" + key + "'");
    children_[key] = std::move(module);
  } else {
    register_module(key, std::move(module));
  }
}

void ModuleDictImpl::update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
  for (const auto& [key, module] : modules) insert(key, module);
}

std::shared_ptr<Module> ModuleDictImpl::pop(const std::string& key) {
  if (!children_.contains(key)) throw IndexError("ModuleDict has no module '" + key + "'");
  return children_.pop(key);
}

const std::shared_ptr<Module>& ModuleDictImpl::operator[](const std::string& key) const {
  const std::shared_ptr<Module>* module = children_.find(key);
  if (!module) throw IndexError("ModuleDict has no module '" + key + "'");
  return *module;
}

}  // namespace ember::nn
