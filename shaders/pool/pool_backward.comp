#version 450
// The pooling backward as a gather: each invocation owns one element of grad_in and sums grad_out over
// the output windows that hold it, in the outputs' row-major order; for the max ops, over the outputs
// whose index names it. No two invocations write one element, so no atomics are needed.
#include "pool_common.glsl"

DECLARE_OPERAND(0, grad_in, writeonly)
layout(set = 0, binding = 1) readonly buffer Indices { uvec2 indices_data[]; };
DECLARE_OPERAND(2, grad_out, readonly)
DEFINE_LOAD(grad_out, DT)
DEFINE_STORE(grad_in, DT)

// The outputs along dim d whose windows can hold input position x: [first, last].
ivec2 outputs_holding(int d, int x, uint in_size, uint out_size) {
  int first, last;
  if (IS_ADAPTIVE) {
    first = int((uint64_t(x) * out_size) / in_size);
    last = int((uint64_t(x + 1) * out_size + in_size - 1u) / in_size) - 1;
  } else {
    // o * stride - padding + k * dilation = x for some k in [0, kernel).
    const int reach = x + p.padding[d] - (p.kernel[d] - 1) * p.dilation[d];
    first = reach <= 0 ? 0 : (reach + p.stride[d] - 1) / p.stride[d];
    last = (x + p.padding[d]) / p.stride[d];
  }
  return ivec2(max(first, 0), min(last, int(out_size) - 1));
}

void main() {
  const uint count = p.plane_sizes[0] * p.plane_sizes[1] * p.in_h * p.in_w;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += gl_NumWorkGroups.x * WORKGROUP_SIZE) {
    const Position at = position_of(i, p.in_h, p.in_w);
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
          if (indices_data[indices_base + uint(oh) * p.indices_strides[0] + uint(ow) * p.indices_strides[1]] ==
              self_index) {
            sum += grad_out_load(g);
          }
        } else if (OP == POOL_OP_AVG) {
          sum += grad_out_load(g) / avg_divisor(avg_span(0, oh, p.in_h), avg_span(1, ow, p.in_w));
        } else {
          const int kh = adaptive_end(oh, p.in_h, p.out_h) - adaptive_start(oh, p.in_h, p.out_h);
          const int kw = adaptive_end(ow, p.in_w, p.out_w) - adaptive_start(ow, p.in_w, p.out_w);
          sum += grad_out_load(g) / compute_t(kh) / compute_t(kw);
        }
      }
    }
    grad_in_store(in_plane(at) + uint(at.row) * p.in_strides[0] + uint(at.col) * p.in_strides[1], sum);
  }
}
