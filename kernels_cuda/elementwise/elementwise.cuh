#pragma once
// The CUDA elementwise family (unary.cu, binary.cu, ternary.cu, sequence.cu, registered in unary.cu) and
// what its launchers share: operands that may be host scalars.
#include <string>

#include "kernels_cuda/common/cuda_family.h"
#include "kernels_cuda/common/device_math.cuh"
#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/common/typed_operands.cuh"
#include "runtime/error.h"
#include "runtime/kernels/elementwise.h"

namespace ember::cuda {

class CudaElementwise final : public ElementwiseKernels {
 public:
  explicit CudaElementwise(CudaDevice&) {}
  void unary(Stream& stream, const UnaryArgs& args) override;        // unary.cu
  void binary(Stream& stream, const BinaryArgs& args) override;      // binary.cu
  void ternary(Stream& stream, const TernaryArgs& args) override;    // ternary.cu
  void sequence(Stream& stream, const SequenceArgs& args) override;  // sequence.cu
};

// The dtype of each operand (operand 0 is the output) and, for operands that are host scalars, their
// value in compute type T. A scalar operand's strides are zero and its pointer is never read.
template <class T, int N>
struct ElementwiseOperands {
  int dtypes[N];
  bool is_scalar[N];
  T scalars[N];
};

template <class T, int N>
__device__ inline T operand_value(const StridedOperands<N>& operands, const ElementwiseOperands<T, N>& typed,
                                  int k, const int64_t (&offsets)[N]) {
  if (typed.is_scalar[k]) return typed.scalars[k];
  return load_as<T>(typed.dtypes[k], operands.data[k], offsets[k]);
}

// What plan_launch takes in place of a scalar operand: out's shape with zero strides, so that it never
// stops dims from merging.
inline TensorRef scalar_stand_in(const TensorRef& out) {
  TensorRef stand_in = out;
  stand_in.strides.fill(0);
  return stand_in;
}

// The tensor plan_launch sees for `operand`.
inline TensorRef launch_ref(const Operand& operand, const TensorRef& out) {
  return operand.is_scalar() ? scalar_stand_in(out) : operand.tensor;
}

template <class T, int N>
void set_operand(ElementwiseOperands<T, N>& typed, int k, const Operand& operand) {
  typed.is_scalar[k] = operand.is_scalar();
  typed.dtypes[k] = operand.is_scalar() ? dtype_code(DType::Float32) : dtype_code(operand.tensor.dtype);
  typed.scalars[k] = operand.is_scalar() ? scalar_as<T>(*operand.scalar) : T(0);
}

}  // namespace ember::cuda
