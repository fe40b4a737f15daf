#version 450
// Dropout over a contiguous piece of whole 8192-element blocks (runtime/kernels/dropout.h): workgroup k
// takes block k, and invocation l its elements 1024 j + 4 l + q (j < 8, q < 4), whose keep bits form
// word l of the block's 256 mask words. MODE_DRAW draws each element's uniform from word q of the Philox
// block at start + 2048 k + 256 j + l, keeps it below `keep` (1 - p), and writes the word; MODE_APPLY
// reads the word. Both write out = in * (kept ? scale : 0), so a NaN dropped stays NaN, as PyTorch's.
#include "typed_operands.glsl"
#include "philox.glsl"

#define WORKGROUP_SIZE 256
layout(local_size_x = WORKGROUP_SIZE) in;

layout(constant_id = 0) const uint DT = DT_F32;
layout(constant_id = 1) const uint MODE = 0;
#define MODE_DRAW 0u
#define MODE_APPLY 1u

DECLARE_OPERAND(0, dst, writeonly)
DEFINE_STORE(dst, DT)
DECLARE_OPERAND(1, src, readonly)
DEFINE_LOAD(src, DT)
layout(set = 0, binding = 2) buffer Mask { uint mask[]; };

layout(push_constant) uniform Params {
  uint out_offset;
  uint in_offset;
  uint mask_offset;
  uint numel;   // of the piece
  uint blocks;  // of the piece
  uint seed_lo;
  uint seed_hi;
  uint start_lo;  // the Philox counter of the piece's first block
  uint start_hi;
  float keep;
  uvec2 scale;  // compute_t bits
} p;

void main() {
  const compute_t scale = scalar_from_bits(p.scale);
  const uint lane = gl_LocalInvocationID.x;
  for (uint block = gl_WorkGroupID.x; block < p.blocks; block += gl_NumWorkGroups.x) {
    const uint word = block * WORKGROUP_SIZE + lane;
    uint bits = MODE == MODE_APPLY ? mask[p.mask_offset + word] : 0u;
    for (uint j = 0u; j < 8u; ++j) {
      const uint first = block * 8192u + j * 1024u + lane * 4u;
      if (first >= p.numel) break;
      uvec4 draws = uvec4(0u);
      if (MODE == MODE_DRAW) {
        draws = philox_block(uvec2(p.seed_lo, p.seed_hi), uvec2(p.start_lo, p.start_hi),
                             block * 2048u + j * 256u + lane);
      }
      for (uint q = 0u; q < 4u && first + q < p.numel; ++q) {
        const uint bit = 1u << (j * 4u + q);
        if (MODE == MODE_DRAW && philox_unit_float(draws[q]) < p.keep) bits |= bit;
        const compute_t factor = (bits & bit) != 0u ? scale : compute_t(0);
        dst_store(p.out_offset + first + q, src_load(p.in_offset + first + q) * factor);
      }
    }
    if (MODE == MODE_DRAW) mask[p.mask_offset + word] = bits;
  }
}
