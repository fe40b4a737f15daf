#include "nn/modules/container/module_list.h"

namespace ember::nn {

std::shared_ptr<Module> ModuleListImpl::clone(const std::shared_ptr<Device>& device) const {
  auto copy = std::make_shared<ModuleListImpl>();
  for (const auto& module : modules_) copy->push_back(module->clone(device));
  copy->train(is_training());
  return copy;
}

void ModuleListImpl::push_back(std::shared_ptr<Module> module) {
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

void ModuleListImpl::extend(const ModuleListImpl& other) {
  for (const auto& module : other.modules_) push_back(module);
}

void ModuleListImpl::insert(size_t index, std::shared_ptr<Module> module) {
  if (index > modules_.size()) {
    throw IndexError("index " + std::to_string(index) + " is out of range for a ModuleList of " +
                     std::to_string(modules_.size()) + " modules");
  }
  if (!module) throw Error("ModuleList: cannot insert a null module");
  modules_.insert(modules_.begin() + static_cast<std::ptrdiff_t>(index), std::move(module));
  rename_children();
}

void ModuleListImpl::rename_children() {
  children_.clear();
  for (size_t i = 0; i < modules_.size(); ++i) children_.insert(std::to_string(i), modules_[i]);
}

const std::shared_ptr<Module>& ModuleListImpl::ptr(size_t index) const {
  if (index >= modules_.size()) {
    throw IndexError("index " + std::to_string(index) + " is out of range for a ModuleList of " +
                     std::to_string(modules_.size()) + " modules");
  }
  return modules_[index];
}

}  // namespace ember::nn
