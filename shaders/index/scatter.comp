#version 450
// out[p with coordinate `dim` replaced by index[p]] (op)= src[p] for every position p of index. The host
// binds out as a view with index's sizes whose stride along `dim` is zero and passes that dim's stride
// and size. Compiled per compute class (COMPUTE_*, which is out's), with SCALAR_SRC for a scalar src
// that travels in the push constants. Specialised by out's dtype, the mode and src's dtype.
//
// Combining modes update each element with a compare-and-swap loop on the word that holds it: the
// 32-bit word for 8-, 16- and 32-bit dtypes, a 64-bit word for 64-bit dtypes, so colliding indices
// all take effect. Assign stores once; among colliding indices any one value wins, as in PyTorch.
// Negative indices count from the end; an index still out of range writes nothing. Where out along
// `dim` is wider than a binding, the host launches once per slice [slice_first, slice_first +
// slice_size) of that dim, binding only the slice; each launch writes the indices that fall in its slice.
#include "typed_bits.glsl"
#if defined(COMPUTE_F64) || defined(COMPUTE_I64)
#extension GL_EXT_shader_atomic_int64 : require
#endif

#include "scatter_modes.glsl"  // SCATTER_MODE_*, generated from runtime/kernels/scatter_modes.def

layout(constant_id = 0) const uint OUT_DT = DT_F32;
layout(constant_id = 1) const uint MODE = SCATTER_MODE_ASSIGN;
#ifndef SCALAR_SRC
layout(constant_id = 2) const uint SRC_DT = DT_F32;
#endif

#ifdef SCALAR_SRC
#define NUM_OPERANDS 2
#define OUT_BINDING 1
#define EXTRA_PARAMS                                                                                    \
  uint out_dim_stride; uint out_dim_size; uint slice_first; uint slice_size; uint alpha_lo; uint alpha_hi; \
  uint value_lo; uint value_hi;
#else
#define NUM_OPERANDS 3
#define OUT_BINDING 2
#define MAX_DIMS 5  // three operands and the extras fit 128 bytes with five dims
#define EXTRA_PARAMS                                                                                    \
  uint out_dim_stride; uint out_dim_size; uint slice_first; uint slice_size; uint alpha_lo; uint alpha_hi;
#endif
#include "strided.glsl"

layout(set = 0, binding = 0) readonly buffer Index { int64_t index_data[]; };
#ifndef SCALAR_SRC
DECLARE_OPERAND(1, src, readonly)
DEFINE_LOAD(src, SRC_DT)
#endif
DECLARE_OPERAND(OUT_BINDING, out, )
DEFINE_STORE(out, OUT_DT)
DEFINE_BIT_CONVERSIONS(out, OUT_DT)
#if defined(COMPUTE_F64) || defined(COMPUTE_I64)
layout(set = 0, binding = OUT_BINDING) buffer out_block_atomic64 { uint64_t out_u64[]; };
#endif

compute_t combine(compute_t current, compute_t value) {
  if (MODE == SCATTER_MODE_ADD) return current + value;
  if (MODE == SCATTER_MODE_MULTIPLY) return current * value;
#if COMPUTE_IS_FLOAT
  // NaN wins, from either side, as in PyTorch's scatter_reduce.
  if (isnan(current)) return current;
  if (isnan(value)) return value;
#endif
  return MODE == SCATTER_MODE_AMAX ? max(current, value) : min(current, value);
}

// Combines `value` into element `e` of out with compare-and-swap on its containing word.
void combine_atomically(uint e, compute_t value) {
  const uint bits = DTYPE_BITS(OUT_DT);
#if defined(COMPUTE_F64) || defined(COMPUTE_I64)
  if (bits == 64u) {
    uint64_t old = out_u64[e];
    for (;;) {
      const uint64_t desired = pack64(out_to_bits(combine(out_from_bits(unpack32(old)), value)));
      if (desired == old) return;
      const uint64_t seen = atomicCompSwap(out_u64[e], old, desired);
      if (seen == old) return;
      old = seen;
    }
  }
#endif
  // 8- and 16-bit elements share their 32-bit word with neighbours, whose bits the loop keeps.
  const uint per_word = 32u / bits;
  const uint word = e / per_word;
  const uint shift = (e % per_word) * bits;
  const uint mask = bits == 32u ? 0xffffffffu : ((1u << bits) - 1u) << shift;
  uint old = out_32[word];
  for (;;) {
    const uint element = (old & mask) >> shift;
    const uint updated = out_to_bits(combine(out_from_bits(uvec2(element, 0u)), value)).x;
    const uint desired = (old & ~mask) | ((updated << shift) & mask);
    if (desired == old) return;
    const uint seen = atomicCompSwap(out_32[word], old, desired);
    if (seen == old) return;
    old = seen;
  }
}

void main() {
  const int64_t size = int64_t(p.out_dim_size);
  const compute_t alpha = scalar_from_bits(uvec2(p.alpha_lo, p.alpha_hi));
  FOR_EACH_ELEMENT(i) {
    uint offsets[NUM_OPERANDS];
    operand_offsets(i, offsets);
    int64_t index = index_data[offsets[0]];
    if (index < 0) index += size;
    const int64_t local = index - int64_t(p.slice_first);
    if (local < 0 || local >= int64_t(p.slice_size)) continue;  // out of range, or another slice's
    const uint e = offsets[NUM_OPERANDS - 1] + uint(local) * p.out_dim_stride;
#ifdef SCALAR_SRC
    compute_t value = scalar_from_bits(uvec2(p.value_lo, p.value_hi));
#else
    compute_t value = src_load(offsets[1]);
#endif
    if (MODE == SCATTER_MODE_ADD) value *= alpha;
    if (MODE == SCATTER_MODE_ASSIGN) {
#if defined(COMPUTE_F64) || defined(COMPUTE_I64)
      // One 64-bit store, so that colliding writes cannot interleave their halves.
      atomicExchange(out_u64[e], pack64(out_to_bits(value)));
#else
      out_store(e, value);
#endif
    } else {
      combine_atomically(e, value);
    }
  }
}
