#version 450
// The upsample forward: each invocation resamples one output element from its sources (see
// upsample_common.glsl).
#include "upsample_common.glsl"

DECLARE_OPERAND(0, out_data, writeonly)
DECLARE_OPERAND(1, in_data, readonly)
DEFINE_LOAD(in_data, DT)
DEFINE_STORE(out_data, DT)

void main() {
  const uint count = p.plane_sizes[0] * p.plane_sizes[1] * p.out_size[0] * p.out_size[1];
  for (uint i = gl_GlobalInvocationID.x; i < count; i += gl_NumWorkGroups.x * WORKGROUP_SIZE) {
    const Position at = position_of(i, p.out_size[0], p.out_size[1]);
    const uint base = in_plane(at);
    const uint out_at = out_plane(at) + uint(at.row) * p.out_strides[0] + uint(at.col) * p.out_strides[1];
    if (OP == UPSAMPLE_OP_LINEAR) {
      const Taps h = linear_taps(0, at.row);
      const Taps w = linear_taps(1, at.col);
      const uint r0 = base + uint(h.first) * p.in_strides[0], r1 = base + uint(h.second) * p.in_strides[0];
      const uint c0 = uint(w.first) * p.in_strides[1], c1 = uint(w.second) * p.in_strides[1];
      const compute_t top = w.first_weight * in_data_load(r0 + c0) + w.second_weight * in_data_load(r0 + c1);
      const compute_t bottom = w.first_weight * in_data_load(r1 + c0) + w.second_weight * in_data_load(r1 + c1);
      out_data_store(out_at, h.first_weight * top + h.second_weight * bottom);
    } else {
      const uint source = base + uint(nearest_source(0, at.row)) * p.in_strides[0] +
                          uint(nearest_source(1, at.col)) * p.in_strides[1];
      out_data_store(out_at, in_data_load(source));
    }
  }
}
