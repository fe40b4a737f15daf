// The checks of the dropout kernels' arguments that every backend makes before it launches.
#include "runtime/kernels/dropout.h"

#include <string>

#include "runtime/error.h"

namespace ember {

namespace {

void check_operands(const TensorRef& out, const TensorRef& in, const TensorRef& mask, const char* op) {
  const int64_t numel = in.numel();
  if (!is_floating_point(in.dtype)) throw Error(std::string(op) + ": the input must be floating");
  if (out.dtype != in.dtype || out.numel() != numel) throw Error(std::string(op) + ": out must match the input");
  if (numel > 0 && (!in.is_contiguous() || !out.is_contiguous())) {
    throw Error(std::string(op) + ": the input and out must be contiguous");
  }
  if (mask.dtype != DType::Int32 || mask.numel() != dropout_mask_words(numel) ||
      (mask.numel() > 0 && !mask.is_contiguous())) {
    throw Error(std::string(op) + ": the mask must be " + std::to_string(dropout_mask_words(numel)) +
                " contiguous int32 words");
  }
}

}  // namespace

void DropoutArgs::check() const {
  check_operands(out, in, mask, "dropout");
  if (!(p >= 0 && p < 1)) throw Error("dropout: p must be in [0, 1), got " + std::to_string(p));
}

void DropoutMaskArgs::check() const { check_operands(out, in, mask, "dropout apply_mask"); }

}  // namespace ember
