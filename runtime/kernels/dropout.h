#pragma once
// The dropout kernel family: the mask and the scaling in one pass from Philox, the mask kept as bits
// for the backward.
//
// Element i (row-major) of the input is kept, scaled by 1 / (1 - p), when its uniform draw is below
// 1 - p, and zeroed otherwise. Its draw is word i % 4 of the Philox block at counter state.offset + i / 4,
// so a tensor of n elements takes ceil(n / 4) blocks, and the result depends on (seed, offset, i) only.
// The mask holds one bit per element in blocks of 8192 elements of 256 words: element
// 8192 k + 1024 j + 4 l + q is bit 4 j + q of word 256 k + l (the layout lets 256 invocations each
// handle four neighbouring elements per step and own one word).
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/random.h"

namespace ember {

// Words of the mask of `numel` elements.
inline int64_t dropout_mask_words(int64_t numel) { return (numel + 8191) / 8192 * 256; }
// Philox blocks the draws of `numel` elements take.
inline int64_t dropout_blocks(int64_t numel) { return (numel + 3) / 4; }

struct DropoutArgs {
  TensorRef out;   // contiguous, in's dtype; may be in itself
  TensorRef in;    // contiguous, floating
  TensorRef mask;  // int32, dropout_mask_words(in.numel()) elements, contiguous; written
  double p = 0.5;  // in [0, 1)
  PhiloxState state;
  void check() const;
};

// out = in * scale where the mask's bit is set, else 0: dropout's backward (and that backward's own).
struct DropoutMaskArgs {
  TensorRef out;  // contiguous, in's dtype; may be in itself
  TensorRef in;   // contiguous, floating
  TensorRef mask;
  double scale = 1;
  void check() const;
};

class DropoutKernels : public KernelFamily {
 public:
  static constexpr std::string_view kName = "dropout";
  virtual void dropout(Stream& stream, const DropoutArgs& args) = 0;
  virtual void apply_mask(Stream& stream, const DropoutMaskArgs& args) = 0;
};

}  // namespace ember
