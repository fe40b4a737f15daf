#version 450
// The pooling backward as a gather: each invocation owns one element of grad_in and sums grad_out over
// the output windows that hold it, in the outputs' row-major order; for the max ops, over the outputs
// whose index names it. No two invocations write one element, so no atomics are needed.
//
// BLOCKED, for Max and Avg windows that do not overlap (each spans at most its stride): the input is cut
// into stride-sized blocks, block b holding output b's window and nothing of any other, and each
// invocation writes a whole block from one output (its index or divisor found once), zeros where the
// window is not.
#include "pool_common.glsl"

layout(constant_id = 2) const uint BLOCKED = 0;
// BLOCKED with small strides: the pipeline fixes them, so that the loops over a block unroll (0: read
// from the push constants).
layout(constant_id = 3) const int FIXED_STRIDE_H = 0;
layout(constant_id = 4) const int FIXED_STRIDE_W = 0;
#define STRIDE_H (FIXED_STRIDE_H > 0 ? FIXED_STRIDE_H : p.stride[0])
#define STRIDE_W (FIXED_STRIDE_W > 0 ? FIXED_STRIDE_W : p.stride[1])

DECLARE_OPERAND(0, grad_in, writeonly)
DECLARE_OPERAND(2, grad_out, readonly)
DEFINE_LOAD(grad_out, DT)
DEFINE_STORE(grad_in, DT)

// TEXEL_READS (pool_backward_f32_texel): float32 grad_out (binding 3, its window again) and the indices
// (binding 1 itself; a texel holds two) through uvec4 texel views, which llvmpipe fetches for all lanes
// of a vector at once, where it loads a storage buffer lane by lane.
#if defined(TEXEL_READS)
layout(set = 0, binding = 1) uniform utextureBuffer indices_texels;
layout(set = 0, binding = 3) uniform utextureBuffer grad_out_texels;
compute_t grad_out_value(uint i) {
  if (DT != DT_F32) return grad_out_load(i);
  return compute_t(float_from_texels(grad_out_texels, i));
}
uvec2 index_at(uint i) { return pair_from_texels(indices_texels, 2u * i); }
#else
layout(set = 0, binding = 1) readonly buffer Indices { uvec2 indices_data[]; };
compute_t grad_out_value(uint i) { return grad_out_load(i); }
uvec2 index_at(uint i) { return indices_data[i]; }
#endif

// The outputs along dim d whose windows can hold input position x: [first, last].
ivec2 outputs_holding(int d, int x, uint in_size, uint out_size) {
  int first, last;
  if (IS_ADAPTIVE) {
    first = int((uint64_t(x) * out_size) / in_size);
    last = int((uint64_t(x + 1) * out_size + in_size - 1u) / in_size) - 1;
  } else {
    // o * stride - padding + k * dilation = x for some k in [0, kernel).
    const int reach = x + p.padding[d] - (p.kernel[d] - 1) * p.dilation[d];
    first = reach <= 0 ? 0 : int(pool_divide(uint(reach + p.stride[d] - 1), uint(p.stride[d])));
    last = int(pool_divide(uint(x + p.padding[d]), uint(p.stride[d])));
  }
  return ivec2(max(first, 0), min(last, int(out_size) - 1));
}

// The blocked form: block `at` (stride_h x stride_w inputs) of grad_in, from the one output whose window
// it holds.
void write_block(Position at) {
  const bool has_window = at.row < int(p.out_h) && at.col < int(p.out_w);
  compute_t g = compute_t(0);
  uvec2 target = uvec2(0xffffffffu);
  if (has_window) {
    g = grad_out_value(out_plane(at) + uint(at.row) * p.out_strides[0] + uint(at.col) * p.out_strides[1]);
    if (IS_MAX) {
      target = index_at(indices_plane(at) + uint(at.row) * p.indices_strides[0] + uint(at.col) * p.indices_strides[1]);
    } else {
      g /= avg_divisor(avg_span(0, at.row, p.in_h), avg_span(1, at.col, p.in_w));
    }
  }
  const int h0 = at.row * p.stride[0] - p.padding[0];
  const int w0 = at.col * p.stride[1] - p.padding[1];
  const uint base = in_plane(at);
  for (int bh = 0; bh < STRIDE_H; ++bh) {
    const int h = h0 + bh;
    if (h < 0 || h >= int(p.in_h)) continue;
    for (int bw = 0; bw < STRIDE_W; ++bw) {
      const int w = w0 + bw;
      if (w < 0 || w >= int(p.in_w)) continue;
      bool in_window;
      if (IS_MAX) {
        in_window = uvec2(uint(h) * p.in_w + uint(w), 0u) == target;
      } else {
        in_window = has_window && bh < p.kernel[0] && bw < p.kernel[1];
      }
      grad_in_store(base + uint(h) * p.in_strides[0] + uint(w) * p.in_strides[1], in_window ? g : compute_t(0));
    }
  }
}

// One run of blocks per invocation.
void blocked_main() {
  // Blocks per dim: enough to hold the input and its leading padding.
  const uint blocks_h = pool_divide(p.in_h + uint(p.padding[0] + p.stride[0] - 1), uint(p.stride[0]));
  const uint blocks_w = pool_divide(p.in_w + uint(p.padding[1] + p.stride[1] - 1), uint(p.stride[1]));
  const uint count = p.plane_sizes[0] * p.plane_sizes[1] * blocks_h * blocks_w;
  for (uint first = gl_GlobalInvocationID.x * POSITION_RUN; first < count;
       first += gl_NumWorkGroups.x * WORKGROUP_SIZE * POSITION_RUN) {
    Position at = position_of(first, blocks_h, blocks_w);
    for (uint i = first; i < min(first + POSITION_RUN, count); ++i, next_position(at, blocks_h, blocks_w)) write_block(at);
  }
}

// Sums grad_out into element `at` of grad_in over the windows that hold it.
void gather_element(Position at) {
  const uint out_base = out_plane(at);
  const uint indices_base = indices_plane(at);
  const ivec2 rows = outputs_holding(0, at.row, p.in_h, p.out_h);
  const ivec2 cols = outputs_holding(1, at.col, p.in_w, p.out_w);
  const uvec2 self_index = uvec2(uint(at.row) * p.in_w + uint(at.col), 0u);
  compute_t sum = compute_t(0);
  for (int oh = rows.x; oh <= rows.y; ++oh) {
    for (int ow = cols.x; ow <= cols.y; ++ow) {
      const uint g = out_base + uint(oh) * p.out_strides[0] + uint(ow) * p.out_strides[1];
      if (IS_MAX) {
        if (index_at(indices_base + uint(oh) * p.indices_strides[0] + uint(ow) * p.indices_strides[1]) == self_index) {
          sum += grad_out_value(g);
        }
      } else if (OP == POOL_OP_AVG) {
        sum += grad_out_value(g) / avg_divisor(avg_span(0, oh, p.in_h), avg_span(1, ow, p.in_w));
      } else {
        const int kh = adaptive_end(oh, p.in_h, p.out_h) - adaptive_start(oh, p.in_h, p.out_h);
        const int kw = adaptive_end(ow, p.in_w, p.out_w) - adaptive_start(ow, p.in_w, p.out_w);
        sum += grad_out_value(g) / compute_t(kh) / compute_t(kw);
      }
    }
  }
  grad_in_store(in_plane(at) + uint(at.row) * p.in_strides[0] + uint(at.col) * p.in_strides[1], sum);
}

void main() {
  COPY_PUSH_CONSTANTS();
  if (BLOCKED != 0u) {
    blocked_main();
    return;
  }
  const uint count = p.plane_sizes[0] * p.plane_sizes[1] * p.in_h * p.in_w;
  for (uint first = gl_GlobalInvocationID.x * POSITION_RUN; first < count;
       first += gl_NumWorkGroups.x * WORKGROUP_SIZE * POSITION_RUN) {
    Position at = position_of(first, p.in_h, p.in_w);
    for (uint i = first; i < min(first + POSITION_RUN, count); ++i, next_position(at, p.in_h, p.in_w)) gather_element(at);
  }
}
