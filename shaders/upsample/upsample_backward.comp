#version 450
// The upsample backward as a gather: each invocation owns one element of grad_in and sums grad_out, times
// the weights, over the outputs that read it. The candidates along a dim come from inverting the
// forward's mapping with a margin, and each is confirmed with the forward's own rule, so rounding in the
// inversion never loses or adds one.
#include "upsample_common.glsl"

DECLARE_OPERAND(0, grad_in, writeonly)
DECLARE_OPERAND(1, grad_out, readonly)
DEFINE_LOAD(grad_out, DT)
DEFINE_STORE(grad_in, DT)

// Outputs along dim d that may read input position x: [first, last].
ivec2 candidates(int d, int x) {
  const int in_size = int(p.in_size[d]);
  const int out_size = int(p.out_size[d]);
  float scale = OP == UPSAMPLE_OP_LINEAR ? float(linear_scale(d)) : nearest_scale(d);
  // Nearest's shortcuts for equal and doubled sizes ignore the scale.
  if ((OP == UPSAMPLE_OP_NEAREST && (p.flags & FLAG_NEAREST_SHORTCUTS) != 0u &&
       (out_size == in_size || out_size == 2 * in_size)) ||
      (OP == UPSAMPLE_OP_LINEAR && out_size == in_size)) {
    scale = float(in_size) / float(out_size);
  }
  float low, high;
  if (OP == UPSAMPLE_OP_NEAREST) {
    low = float(x) / scale;
    high = float(x + 1) / scale;
  } else if (OP == UPSAMPLE_OP_NEAREST_EXACT) {
    low = float(x) / scale - 0.5;
    high = float(x + 1) / scale - 0.5;
  } else if ((p.flags & FLAG_ALIGN_CORNERS) != 0u) {
    low = float(x - 1) / scale;
    high = float(x + 1) / scale;
  } else {
    low = (float(x - 1) + 0.5) / scale - 0.5;
    high = (float(x + 1) + 0.5) / scale - 0.5;
  }
  // Positions that clamp onto the first or last input collect every output beyond.
  const int reach = OP == UPSAMPLE_OP_LINEAR ? 1 : 0;
  int first = (scale <= 0.0 || x <= reach) ? 0 : int(clamp(floor(low) - 2.0, 0.0, float(out_size)));
  int last = (scale <= 0.0 || x >= in_size - 1 - reach) ? out_size - 1
                                                        : int(clamp(ceil(high) + 2.0, 0.0, float(out_size - 1)));
  return ivec2(first, last);
}

// Whether output o reads input position x along dim d, and with what weight (both taps' when they
// coincide at the last position).
bool reads(int d, int o, int x, out compute_t weight) {
  if (OP != UPSAMPLE_OP_LINEAR) {
    weight = compute_t(1);
    return nearest_source(d, o) == x;
  }
  const Taps t = linear_taps(d, o);
  weight = (t.first == x ? t.first_weight : compute_t(0)) + (t.second == x ? t.second_weight : compute_t(0));
  return t.first == x || t.second == x;
}

void main() {
  const uint count = p.plane_sizes[0] * p.plane_sizes[1] * p.in_size[0] * p.in_size[1];
  for (uint i = gl_GlobalInvocationID.x; i < count; i += gl_NumWorkGroups.x * WORKGROUP_SIZE) {
    const Position at = position_of(i, p.in_size[0], p.in_size[1]);
    const uint base = out_plane(at);
    const ivec2 rows = candidates(0, at.row);
    const ivec2 cols = candidates(1, at.col);
    compute_t sum = compute_t(0);
    for (int oh = rows.x; oh <= rows.y; ++oh) {
      compute_t wh;
      if (!reads(0, oh, at.row, wh)) continue;
      for (int ow = cols.x; ow <= cols.y; ++ow) {
        compute_t ww;
        if (!reads(1, ow, at.col, ww)) continue;
        sum += grad_out_load(base + uint(oh) * p.out_strides[0] + uint(ow) * p.out_strides[1]) * wh * ww;
      }
    }
    grad_in_store(in_plane(at) + uint(at.row) * p.in_strides[0] + uint(at.col) * p.in_strides[1], sum);
  }
}
