#version 450
// Each element (row, sample) of out (int64) draws a category of its row of `cdf` (inclusive cumulative
// weights, unnormalised): u = uniform * total, then the first category whose cdf exceeds u, by binary
// search. A category of zero weight has the cdf of the one before it and so is never the first to
// exceed u; u < total always, since uniform < 1 and the product rounds below total. The host binds cdf
// as a view with out's sizes (row stride, and zero across samples) and passes the category stride.
// Element i of a launch piece uses the Philox block at counter start + i, as random.comp does.
// Compiled per compute class (COMPUTE_F32 or COMPUTE_F64), specialised by cdf's dtype.
#include "typed_operands.glsl"
#include "philox.glsl"

layout(constant_id = 0) const uint CDF_DT = DT_F32;

#define NUM_OPERANDS 2
#define EXTRA_PARAMS                                                                  \
  uint category_stride; uint categories; uint seed_lo; uint seed_hi; uint start_lo; uint start_hi;
#include "strided.glsl"

layout(set = 0, binding = 0) writeonly buffer Out { int64_t out_data[]; };
DECLARE_OPERAND(1, cdf, readonly)
DEFINE_LOAD(cdf, CDF_DT)

void main() {
  COPY_PUSH_CONSTANTS();
  FOR_EACH_ELEMENT(i) {
    uint offsets[2];
    operand_offsets(i, offsets);
    const uint row = offsets[1];
    const uvec4 block = philox_block(uvec2(p.seed_lo, p.seed_hi), uvec2(p.start_lo, p.start_hi), i);
    const compute_t total = cdf_load(row + (p.categories - 1u) * p.category_stride);
    const compute_t u = philox_unit(block.xy) * total;
    uint first = 0u;
    uint last = p.categories - 1u;
    while (first < last) {
      const uint middle = (first + last) / 2u;
      if (cdf_load(row + middle * p.category_stride) > u) {
        last = middle;
      } else {
        first = middle + 1u;
      }
    }
    out_data[offsets[0]] = int64_t(first);
  }
}
