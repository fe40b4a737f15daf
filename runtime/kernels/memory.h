#pragma once
// The memory kernel family: setting and copying elements, for every dtype.
#include "runtime/kernels/kernels.h"

namespace ember {

// out[...] = value.
struct FillArgs {
  TensorRef out;
  Scalar value = 0;
};

// out[...] = in[...] for views of one dtype and equal sizes, any strides.
struct CopyArgs {
  TensorRef out;
  TensorRef in;
};

class MemoryKernels : public KernelFamily {
 public:
  static constexpr std::string_view kName = "memory";
  virtual void fill(Stream& stream, const FillArgs& args) = 0;
  virtual void copy(Stream& stream, const CopyArgs& args) = 0;
};

}  // namespace ember
