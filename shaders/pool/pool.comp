#version 450
// The pooling forward: each invocation pools one output element's window (see pool_common.glsl) and
// writes the result, and for the max ops the position of the maximum in its input plane.
#include "pool_common.glsl"

// Max and Avg windows whose size the pipeline fixes (small ones, so that the loops unroll; 0: read from
// the push constants), and whether every window lies inside the input (no padding, no ceil-mode
// overhang), so that no position needs a bounds check.
layout(constant_id = 2) const int FIXED_KERNEL_H = 0;
layout(constant_id = 3) const int FIXED_KERNEL_W = 0;
layout(constant_id = 4) const uint INTERIOR = 0;
#define KERNEL_H (FIXED_KERNEL_H > 0 ? FIXED_KERNEL_H : p.kernel[0])
#define KERNEL_W (FIXED_KERNEL_W > 0 ? FIXED_KERNEL_W : p.kernel[1])

DECLARE_OPERAND(0, out_data, writeonly)
layout(set = 0, binding = 1) writeonly buffer Indices { uvec2 indices_data[]; };
DECLARE_OPERAND(2, in_data, readonly)
DEFINE_LOAD(in_data, DT)
DEFINE_STORE(out_data, DT)

// TEXEL_READS (pool_f32_texel): float32 input through a uvec4 texel view of its window (binding 3), which
// llvmpipe fetches for all lanes of a vector at once, where it loads a storage buffer lane by lane.
#if defined(TEXEL_READS)
layout(set = 0, binding = 3) uniform utextureBuffer in_texels;
compute_t in_value(uint i) {
  if (DT != DT_F32) return in_data_load(i);
  return compute_t(float_from_texels(in_texels, i));
}
#else
compute_t in_value(uint i) { return in_data_load(i); }
#endif

#if defined(COMPUTE_F64)
#define NEGATIVE_INFINITY packDouble2x32(uvec2(0u, 0xfff00000u))
#else
#define NEGATIVE_INFINITY uintBitsToFloat(0xff800000u)
#endif

// Max over the window: the first largest element, a NaN over any number and a later NaN over an earlier
// one (PyTorch's CPU rule), starting from -inf at the window's first position.
void max_window(Position at, uint in_base, int h_first, int h_step, int h_count, int w_first, int w_step,
                int w_count, out compute_t best, out uint best_index) {
  // Skip the positions in the padding.
  while (h_count > 0 && h_first < 0) { h_first += h_step; --h_count; }
  while (w_count > 0 && w_first < 0) { w_first += w_step; --w_count; }
  while (h_count > 0 && h_first + (h_count - 1) * h_step >= int(p.in_h)) --h_count;
  while (w_count > 0 && w_first + (w_count - 1) * w_step >= int(p.in_w)) --w_count;
  best = NEGATIVE_INFINITY;
  best_index = uint(h_first) * p.in_w + uint(w_first);
  for (int kh = 0; kh < h_count; ++kh) {
    const int h = h_first + kh * h_step;
    for (int kw = 0; kw < w_count; ++kw) {
      const int w = w_first + kw * w_step;
      const compute_t value = in_value(in_base + uint(h) * p.in_strides[0] + uint(w) * p.in_strides[1]);
      if (value > best || isnan(value)) {
        best = value;
        best_index = uint(h) * p.in_w + uint(w);
      }
    }
  }
}

// Max over a window that lies inside the input, of the pipeline's size: the same rule without bounds.
void interior_max(uint in_base, int h_first, int w_first, out compute_t best, out uint best_index) {
  best = NEGATIVE_INFINITY;
  best_index = uint(h_first) * p.in_w + uint(w_first);
  for (int kh = 0; kh < KERNEL_H; ++kh) {
    const int h = h_first + kh * p.dilation[0];
    for (int kw = 0; kw < KERNEL_W; ++kw) {
      const int w = w_first + kw * p.dilation[1];
      const compute_t value = in_value(in_base + uint(h) * p.in_strides[0] + uint(w) * p.in_strides[1]);
      if (value > best || isnan(value)) {
        best = value;
        best_index = uint(h) * p.in_w + uint(w);
      }
    }
  }
}

// Pools the window of output position `at` and writes its result (and where the maximum is).
void pool_output(Position at) {
  const uint in_base = in_plane(at);
  const uint out_at = out_plane(at) + uint(at.row) * p.out_strides[0] + uint(at.col) * p.out_strides[1];
  if (IS_MAX) {
    compute_t best;
    uint best_index;
    if (OP == POOL_OP_MAX && INTERIOR != 0u) {
      interior_max(in_base, at.row * p.stride[0], at.col * p.stride[1], best, best_index);
    } else if (OP == POOL_OP_MAX) {
      max_window(at, in_base, at.row * p.stride[0] - p.padding[0], p.dilation[0], p.kernel[0],
                 at.col * p.stride[1] - p.padding[1], p.dilation[1], p.kernel[1], best, best_index);
    } else {
      const int h0 = adaptive_start(at.row, p.in_h, p.out_h);
      const int w0 = adaptive_start(at.col, p.in_w, p.out_w);
      max_window(at, in_base, h0, 1, adaptive_end(at.row, p.in_h, p.out_h) - h0, w0, 1,
                 adaptive_end(at.col, p.in_w, p.out_w) - w0, best, best_index);
    }
    out_data_store(out_at, best);
    indices_data[indices_plane(at) + uint(at.row) * p.indices_strides[0] + uint(at.col) * p.indices_strides[1]] =
        uvec2(best_index, 0u);
  } else {
    int h0, h1, w0, w1;
    compute_t divisor_h, divisor_w;
    AvgSpan span_h, span_w;
    if (OP == POOL_OP_AVG) {
      span_h = avg_span(0, at.row, p.in_h);
      span_w = avg_span(1, at.col, p.in_w);
      h0 = span_h.first; h1 = span_h.last;
      w0 = span_w.first; w1 = span_w.last;
    } else {
      h0 = adaptive_start(at.row, p.in_h, p.out_h); h1 = adaptive_end(at.row, p.in_h, p.out_h);
      w0 = adaptive_start(at.col, p.in_w, p.out_w); w1 = adaptive_end(at.col, p.in_w, p.out_w);
    }
    compute_t sum = compute_t(0);
    if (OP == POOL_OP_AVG && INTERIOR != 0u) {
      h0 = at.row * p.stride[0];
      w0 = at.col * p.stride[1];
      h1 = h0 + KERNEL_H;
      w1 = w0 + KERNEL_W;
    }
    for (int h = h0; h < h1; ++h) {
      for (int w = w0; w < w1; ++w) sum += in_value(in_base + uint(h) * p.in_strides[0] + uint(w) * p.in_strides[1]);
    }
    // PyTorch divides an adaptive window's sum by its height, then by its width.
    out_data_store(out_at, OP == POOL_OP_AVG ? sum / avg_divisor(span_h, span_w)
                                             : sum / compute_t(h1 - h0) / compute_t(w1 - w0));
  }
}

void main() {
  COPY_PUSH_CONSTANTS();
  const uint count = p.plane_sizes[0] * p.plane_sizes[1] * p.out_h * p.out_w;
  for (uint first = gl_GlobalInvocationID.x * POSITION_RUN; first < count;
       first += gl_NumWorkGroups.x * WORKGROUP_SIZE * POSITION_RUN) {
    Position at = position_of(first, p.out_h, p.out_w);
    for (uint i = first; i < min(first + POSITION_RUN, count); ++i, next_position(at, p.out_h, p.out_w)) pool_output(at);
  }
}
