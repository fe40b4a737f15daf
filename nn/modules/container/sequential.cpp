#include "nn/modules/container/sequential.h"

#include "nn/modules/container/sequential_fusion.h"

namespace ember::nn {

SequentialImpl::SequentialImpl(std::initializer_list<NamedAnyModule> named) {
  for (const NamedAnyModule& entry : named) push_back(entry.name, entry.module);
}

std::shared_ptr<Module> SequentialImpl::clone(const std::shared_ptr<Device>& device) const {
  auto copy = std::make_shared<SequentialImpl>();
  size_t index = 0;
  for (const auto& child : children_) {
    copy->push_back(child.key(), entries_[index++].with_module(child.value()->clone(device)));
  }
  copy->train(is_training());
  return copy;
}

Tensor SequentialImpl::forward(const Tensor& input) {
  if (entries_.empty()) throw Error("Cannot call forward() on an empty Sequential");
  Tensor x = input;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (i + 1 < entries_.size()) {
      if (std::optional<Tensor> pair = detail::fused_forward(entries_[i], entries_[i + 1], x)) {
        x = std::move(*pair);
        ++i;
        continue;
      }
    }
    x = entries_[i].forward(x);
  }
  return x;
}

void SequentialImpl::push_back(AnyModule module) { push_back(std::to_string(entries_.size()), std::move(module)); }

void SequentialImpl::push_back(std::string name, AnyModule module) {
  register_module(std::move(name), module.ptr());
  entries_.push_back(std::move(module));
}

void SequentialImpl::extend(const SequentialImpl& other) {
  for (const AnyModule& entry : other.entries_) push_back(entry);
}

const std::shared_ptr<Module>& SequentialImpl::ptr(size_t index) const {
  if (index >= entries_.size()) {
    throw IndexError("index " + std::to_string(index) + " is out of range for a Sequential of " +
                     std::to_string(entries_.size()) + " modules");
  }
  return entries_[index].ptr();
}

}  // namespace ember::nn
