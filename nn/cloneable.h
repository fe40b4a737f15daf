#pragma once
// Cloneable<Derived>: the base of modules that clone() deeply, as LibTorch's. Derived builds its
// parameters, buffers and submodules in reset() (its constructor calls reset()); clone() copies Derived,
// calls reset() on the copy, then copies every tensor's values over, so the copy owns new memory.
#include <memory>

#include "nn/module.h"

namespace ember::nn {

template <class Derived>
class Cloneable : public Module {
 public:
  using Module::Module;

  // (Re)creates the module's parameters, buffers and submodules from its options.
  virtual void reset() = 0;

  std::shared_ptr<Module> clone(const std::shared_ptr<Device>& device = nullptr) const override {
    auto copy = std::make_shared<Derived>(static_cast<const Derived&>(*this));
    copy->parameters_.clear();
    copy->buffers_.clear();
    copy->children_.clear();
    copy->non_persistent_buffers_.clear();
    copy->reset();
    copy->copy_state_from(*this, device);
    return copy;
  }
};

}  // namespace ember::nn
