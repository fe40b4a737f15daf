#pragma once
// A tensor a node keeps for backward. It remembers the version of its storage when saved, so an
// in-place write in between is reported with PyTorch's message instead of giving a wrong gradient.
// A node's own output is kept without its autograd state, which would otherwise point back at the
// node and keep both alive forever.
#include <any>
#include <functional>
#include <memory>
#include <string>

#include "autograd/node.h"

namespace ember::autograd {

// Saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks): `pack` runs when a tensor is saved and
// its result is kept instead; `unpack` turns it back into a tensor in backward.
struct SavedTensorHooks {
  std::function<std::any(const Tensor&)> pack;
  std::function<Tensor(const std::any&)> unpack;
};

// Installs hooks for the tensors saved in its scope. Throws the disabling guard's message while a
// DisableSavedTensorHooksGuard is active.
class SavedTensorHooksGuard {
 public:
  SavedTensorHooksGuard(std::function<std::any(const Tensor&)> pack, std::function<Tensor(const std::any&)> unpack);
  ~SavedTensorHooksGuard();
  SavedTensorHooksGuard(const SavedTensorHooksGuard&) = delete;
  SavedTensorHooksGuard& operator=(const SavedTensorHooksGuard&) = delete;
};

// torch.autograd.graph.disable_saved_tensors_hooks(message).
class DisableSavedTensorHooksGuard {
 public:
  explicit DisableSavedTensorHooksGuard(std::string message);
  ~DisableSavedTensorHooksGuard();
  DisableSavedTensorHooksGuard(const DisableSavedTensorHooksGuard&) = delete;
  DisableSavedTensorHooksGuard& operator=(const DisableSavedTensorHooksGuard&) = delete;

 private:
  std::optional<std::string> previous_;
};

class SavedVariable {
 public:
  SavedVariable() = default;
  // `is_output`: `t` is forward output `output_nr` of the node that saves it.
  SavedVariable(const Tensor& t, bool is_output, uint32_t output_nr = 0);

  // The saved tensor; `owner` is the saving node, which becomes the grad_fn of a saved output.
  // Throws if it was released or modified in place since it was saved.
  Tensor unpack(const std::shared_ptr<Node>& owner) const;
  void reset_data();
  bool defined() const { return defined_; }

 private:
  Tensor data_;  // a saved output holds no autograd state; empty when hooks hold the data
  // Where a tensor whose data the hooks hold sits in the graph.
  std::shared_ptr<Node> grad_fn_;
  std::weak_ptr<TensorImpl> leaf_;
  std::shared_ptr<SavedTensorHooks> hooks_;
  std::any packed_;
  std::weak_ptr<Storage> storage_;  // for the version check when hooks hold the data
  uint64_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool defined_ = false;
  bool is_output_ = false;
  bool requires_grad_ = false;
  bool released_ = false;
};

}  // namespace ember::autograd
