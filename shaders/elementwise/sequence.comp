#version 450
// out[i] = start + (base + i) * step over a contiguous window; with LINSPACE the upper half counts back
// from end so that the last element is exactly end, as torch.linspace does.
#include "typed_operands.glsl"

layout(constant_id = 0) const int DT_OUT = 0;
layout(constant_id = 1) const bool LINSPACE = false;

#define NUM_OPERANDS 1
#define EXTRA_PARAMS uint base; uint count; uint scalars[6];
#include "strided.glsl"

DECLARE_OPERAND(0, out_data, writeonly)
DEFINE_STORE(out_data, DT_OUT)

void main() {
  COPY_PUSH_CONSTANTS();
  const compute_t start = scalar_from_bits(uvec2(p.scalars[0], p.scalars[1]));
  const compute_t step = scalar_from_bits(uvec2(p.scalars[2], p.scalars[3]));
  const compute_t end = scalar_from_bits(uvec2(p.scalars[4], p.scalars[5]));
  FOR_EACH_ELEMENT(i) {
    uint offsets[1];
    operand_offsets(i, offsets);
    const uint index = p.base + i;
    compute_t value = start + compute_t(index) * step;
    if (LINSPACE && index >= p.count / 2) value = end - compute_t(p.count - 1u - index) * step;
    out_data_store(offsets[0], value);
  }
}
