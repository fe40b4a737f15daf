#version 450
// out[p with coordinate `dim` replaced by index[p]] (op)= src[p] for every position p of index. The host
// binds out as a view with index's sizes whose stride along `dim` is zero and passes that dim's stride
// and size. Compiled per compute class (COMPUTE_*, which is out's), with SCALAR_SRC for a scalar src
// that travels in the push constants. Specialised by out's dtype, the mode and src's dtype.
//
// Combining modes update each element with a compare-and-swap loop on the word that holds it: the
// 32-bit word for 8-, 16- and 32-bit dtypes, a 64-bit word for 64-bit dtypes, so colliding indices
// all take effect. Assign stores once.
//
// ORDERED (Assign from a tensor src, more than one position along dim) keeps, among colliding
// indices, the position last along dim, as PyTorch's CPU kernels do: invocations that store to one
// element in the same instruction would leave any one of them (NVIDIA does; lavapipe happens to run
// them in order). Colliding positions differ only along dim, and the host launches row-major runs of
// positions in order, so the last along dim is the largest launch index i. Two dispatches over the same
// run, specialised by ORDER_PASS: CLAIM records in `claims`, an open-addressed table of (key, last)
// pairs of uints that the host has zeroed, key = the element + 1 and last = the largest i + 1 that
// writes it (atomicMax); STORE stores where its own i + 1 is that element's last. The table has a
// power-of-two count of slots, at least twice the run's positions, so a free slot always comes.
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
// ROWS: the launch has one or two dims, its inner dim at least RUN_ELEMENTS long, and fewer than 2^24
// elements, and its runs take strided.glsl's rows_run rather than run_offsets (gather.comp has the
// figures). A constant of its own id, after the others; ids a variant lacks are ignored.
layout(constant_id = 4) const uint ROWS = 0u;
#ifdef ORDERED
#define ORDER_PASS_CLAIM 0u
#define ORDER_PASS_STORE 1u
layout(constant_id = 3) const uint ORDER_PASS = ORDER_PASS_CLAIM;
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
#ifdef ORDERED
// claim_shift: 32 - log2(the table's slots); the hash keeps a product's top bits. 128 bytes in all.
#define EXTRA_PARAMS                                                                                    \
  uint out_dim_stride; uint out_dim_size; uint slice_first; uint slice_size; uint alpha_lo; uint alpha_hi; \
  uint claim_shift;
#else
#define EXTRA_PARAMS                                                                                    \
  uint out_dim_stride; uint out_dim_size; uint slice_first; uint slice_size; uint alpha_lo; uint alpha_hi;
#endif
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
#ifdef ORDERED
// Slot s is claims[2 s] (the key: the element + 1, 0 while free) and claims[2 s + 1] (the largest
// launch index + 1 that writes that element).
layout(set = 0, binding = 3) buffer Claims { uint claims[]; };
#define NO_SLOT 0xffffffffu

// The slot of `key`. Claiming inserts the key; looking up finds what the claiming pass inserted
// (NO_SLOT for a key it never saw, which cannot happen). The probe is bounded by the slot count.
uint claim_slot(uint key, bool insert) {
  const uint mask = (1u << (32u - p.claim_shift)) - 1u;
  uint slot = (key * 0x9E3779B1u) >> p.claim_shift;
  for (uint probe = 0u; probe <= mask; ++probe) {
    if (insert) {
      const uint seen = atomicCompSwap(claims[2u * slot], 0u, key);
      if (seen == 0u || seen == key) return slot;
    } else {
      const uint seen = claims[2u * slot];
      if (seen == key) return slot;
      if (seen == 0u) return NO_SLOT;
    }
    slot = (slot + 1u) & mask;
  }
  return NO_SLOT;
}
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

// Element i of the launch (its row-major position), whose operands sit at offsets o: index, then src
// (a tensor src), then out.
void scatter_element(uint i, uvec4 o) {
  const int64_t size = int64_t(p.out_dim_size);
  int64_t index = index_data[o.x];
  if (index < 0) index += size;
  const int64_t local = index - int64_t(p.slice_first);
  if (local < 0 || local >= int64_t(p.slice_size)) return;  // out of range, or another slice's
  const uint e = o[NUM_OPERANDS - 1] + uint(local) * p.out_dim_stride;
#ifdef ORDERED
  // e is below the binding's element count, so e + 1 does not wrap; i + 1 neither (runs are short).
  if (ORDER_PASS == ORDER_PASS_CLAIM) {
    const uint slot = claim_slot(e + 1u, true);
    if (slot != NO_SLOT) atomicMax(claims[2u * slot + 1u], i + 1u);
    return;
  }
  const uint slot = claim_slot(e + 1u, false);
  if (slot != NO_SLOT && claims[2u * slot + 1u] != i + 1u) return;  // a later position along dim stores
#endif
#ifdef SCALAR_SRC
  compute_t value = scalar_from_bits(uvec2(p.value_lo, p.value_hi));
#else
  compute_t value = src_load(o.y);
#endif
  if (MODE == SCATTER_MODE_ADD) value *= scalar_from_bits(uvec2(p.alpha_lo, p.alpha_hi));
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

// Runs of RUN_ELEMENTS elements per invocation and step; the host launches an invocation per run. The
// step never wraps past 2^32.
void main() {
  COPY_PUSH_CONSTANTS();
  const uint step = gl_NumWorkGroups.x * WORKGROUP_SIZE * RUN_ELEMENTS;
  for (uint first = gl_GlobalInvocationID.x * RUN_ELEMENTS; first < p.numel;
       first = p.numel - first > step ? first + step : p.numel) {
    if (ROWS != 0u) {
      const RowsRun run = rows_run(first);
      for (uint k = 0u; k < uint(RUN_ELEMENTS); ++k) {
        if (first + k >= p.numel) break;
        scatter_element(first + k, rows_offsets(run, k));
      }
    } else {
      uint offsets[RUN_ELEMENTS][NUM_OPERANDS];
      run_offsets(first, offsets);
      for (int k = 0; k < RUN_ELEMENTS; ++k) {
        if (first + uint(k) >= p.numel) continue;
        uvec4 o = uvec4(offsets[k][0], offsets[k][1], 0u, 0u);
#if NUM_OPERANDS > 2
        o.z = offsets[k][2];
#endif
        scatter_element(first + uint(k), o);
      }
    }
  }
}
