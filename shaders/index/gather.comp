#version 450
// out[p] = in[p with coordinate `dim` replaced by index[p]], moving ELEM_BITS-wide elements without
// arithmetic. The host binds `in` as a view with out's sizes whose stride along `dim` is zero, and
// passes that dim's stride and size: each element then adds index * in_dim_stride to its offset.
// Negative indices count from the end; an index still out of range reads zero.
//
// Where `in` along `dim` is wider than a binding, the host launches once per slice of that dim
// [slice_first, slice_first + slice_size), binding only the slice: a launch writes the elements whose
// index falls in its slice, and the first slice's launch also writes the zeros of out-of-range indices.
//
// ROWS (a specialization constant): the launch has one or two dims, its inner dim at least RUN_ELEMENTS
// long, and fewer than 2^24 elements, and its runs take strided.glsl's rows_run: through run_offsets a
// gather of a 1024 × 1024 float32 matrix along its rows took 14-20 ms on lavapipe, and 9-10 ms this way.
//
// TEXEL_READS (gather_32_texel, gather_64_texel): index and in are read through uvec4 texel views of
// their windows (bindings 1 and 2), which llvmpipe fetches for all lanes of a vector at once, where it
// loads a storage buffer lane by lane. The host takes them where both windows start on the texel
// alignment.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "element_types.glsl"
#define NUM_OPERANDS 3
#define MAX_DIMS 5  // leaves room in 128 bytes for the slice
#define EXTRA_PARAMS uint in_dim_stride; uint in_dim_size; uint slice_first; uint slice_size;
#include "strided.glsl"

layout(constant_id = 0) const uint ROWS = 0u;

layout(set = 0, binding = 0) writeonly buffer Out { ELEMENT out_data[]; };
#if defined(TEXEL_READS)
#include "texels.glsl"
layout(set = 0, binding = 1) uniform utextureBuffer index_texels;
layout(set = 0, binding = 2) uniform utextureBuffer in_texels;
int64_t index_at(uint i) { return int64_t(pack64(pair_from_texels(index_texels, 2u * i))); }
#if ELEM_BITS == 32
ELEMENT in_at(uint i) { return word_from_texels(in_texels, i); }
#elif ELEM_BITS == 64
ELEMENT in_at(uint i) { return pair_from_texels(in_texels, 2u * i); }
#else
#error TEXEL_READS takes 32- and 64-bit elements
#endif
#else
layout(set = 0, binding = 1) readonly buffer Index { int64_t index_data[]; };
layout(set = 0, binding = 2) readonly buffer In { ELEMENT in_data[]; };
int64_t index_at(uint i) { return index_data[i]; }
ELEMENT in_at(uint i) { return in_data[i]; }
#endif

// out[o_out] from in's element o_in plus index[o_index] along dim.
void gather_element(uint o_out, uint o_index, uint o_in) {
  const int64_t size = int64_t(p.in_dim_size);
  int64_t index = index_at(o_index);
  if (index < 0) index += size;
  const int64_t local = index - int64_t(p.slice_first);
  if (local >= 0 && local < int64_t(p.slice_size)) {
    out_data[o_out] = in_at(o_in + uint(local) * p.in_dim_stride);
  } else if (p.slice_first == 0u && (index < 0 || index >= size)) {
    out_data[o_out] = ELEMENT_FROM_BITS(0u, 0u);
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
        const uvec4 o = rows_offsets(run, k);
        gather_element(o.x, o.y, o.z);
      }
    } else {
      uint offsets[RUN_ELEMENTS][3];
      run_offsets(first, offsets);
      for (int k = 0; k < RUN_ELEMENTS; ++k) {
        if (first + uint(k) < p.numel) gather_element(offsets[k][0], offsets[k][1], offsets[k][2]);
      }
    }
  }
}
