#pragma once
// Copies LibTorch's parameters into ember's module of the same structure, by name, for module tests
// that compare the two on the same weights.
#include <torch/torch.h>

#include "ember.h"
#include "tests/oracle.h"

namespace ember::test {

inline void copy_parameters(nn::Module& ours, const torch::nn::Module& theirs, const std::shared_ptr<Device>& device) {
  auto mine = ours.named_parameters();
  for (const auto& p : theirs.named_parameters()) {
    ASSERT_TRUE(mine.contains(p.key())) << p.key();
    NoGradGuard no_grad;
    mine[p.key()].copy_(from_torch(p.value().detach(), device));
  }
}

}  // namespace ember::test
