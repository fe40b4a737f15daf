#pragma once
// Ops that run in one launch what PyTorch runs as two, and record PyTorch's graph of the two, so that
// grad_fn names, gradients and hooks are those of the unfused ops.
#include "runtime/kernels/elementwise.h"
#include "tensor/tensor.h"

namespace ember::detail {

// activation(self + mat1 @ mat2) with the activation (Relu, Gelu or GeluTanh) applied in the matmul's
// store. The graph is AddmmBackward0 then ReluBackward0. gelu's backward reads the sum before the
// activation, which the fused kernel never stores, so gelu fuses only where autograd records nothing;
// integer operands never fuse.
Tensor addmm_activation(const Tensor& self, const Tensor& mat1, const Tensor& mat2, UnaryOp activation);

}  // namespace ember::detail
