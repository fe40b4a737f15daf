// What the upsample shaders share: the push constants, the planes' addressing and each output
// position's sources along a spatial dim (see runtime/kernels/upsample.h). One invocation computes one
// element (of out forward, of grad_in backward), found from its row-major position in the launch.
#ifndef EMBER_UPSAMPLE_COMMON_GLSL
#define EMBER_UPSAMPLE_COMMON_GLSL

#include "typed_operands.glsl"
#include "upsample_ops.glsl"

#define WORKGROUP_SIZE 256
layout(local_size_x = WORKGROUP_SIZE) in;

layout(constant_id = 0) const uint DT = DT_F32;
layout(constant_id = 1) const uint OP = UPSAMPLE_OP_NEAREST;

layout(push_constant) uniform Params {
  uint in_offset;  // first element of each operand in its window
  uint out_offset;
  uint plane_sizes[2];
  uint in_plane_strides[2];
  uint out_plane_strides[2];
  uint in_size[2];  // height, width
  uint out_size[2];
  uint in_strides[2];
  uint out_strides[2];
  uvec2 scale[2];  // per spatial dim: float32 bits (the nearest ops), or the compute dtype's (Linear)
  uint flags;  // FLAG_*
} p;

#define FLAG_ALIGN_CORNERS 1u
#define FLAG_NEAREST_SHORTCUTS 2u

struct Position {
  uint plane0;
  uint plane1;
  int row;
  int col;
};

Position position_of(uint i, uint rows, uint cols) {
  Position at;
  at.col = int(i % cols);
  i /= cols;
  at.row = int(i % rows);
  i /= rows;
  at.plane1 = i % p.plane_sizes[1];
  at.plane0 = i / p.plane_sizes[1];
  return at;
}

uint in_plane(Position at) {
  return p.in_offset + at.plane0 * p.in_plane_strides[0] + at.plane1 * p.in_plane_strides[1];
}
uint out_plane(Position at) {
  return p.out_offset + at.plane0 * p.out_plane_strides[0] + at.plane1 * p.out_plane_strides[1];
}

float nearest_scale(int d) { return uintBitsToFloat(p.scale[d].x); }

#if defined(COMPUTE_F64)
compute_t linear_scale(int d) { return packDouble2x32(p.scale[d]); }
#else
compute_t linear_scale(int d) { return uintBitsToFloat(p.scale[d].x); }
#endif

// The input position output o reads along dim d (the nearest ops). `precise`: no fused multiply-add, so
// the product rounds as PyTorch's does.
int nearest_source(int d, int o) {
  const uint in_size = p.in_size[d];
  const uint out_size = p.out_size[d];
  precise float x;
  if (OP == UPSAMPLE_OP_NEAREST) {
    if ((p.flags & FLAG_NEAREST_SHORTCUTS) != 0u) {
      if (out_size == in_size) return o;
      if (out_size == 2u * in_size) return o >> 1;
    }
    x = float(o) * nearest_scale(d);
  } else {
    x = (float(o) + 0.5) * nearest_scale(d);
  }
  return min(int(floor(x)), int(in_size) - 1);
}

// Linear: the two input positions output o reads along dim d, and their weights.
struct Taps {
  int first;
  int second;
  compute_t first_weight;
  compute_t second_weight;
};

Taps linear_taps(int d, int o) {
  const int in_size = int(p.in_size[d]);
  Taps t;
  if (in_size == int(p.out_size[d])) {  // PyTorch's shortcut, whatever the scale
    t.first = t.second = o;
    t.first_weight = compute_t(1);
    t.second_weight = compute_t(0);
    return t;
  }
  const compute_t scale = linear_scale(d);
  precise compute_t x;
  if ((p.flags & FLAG_ALIGN_CORNERS) != 0u) {
    x = scale * compute_t(o);
  } else {
    x = scale * (compute_t(o) + compute_t(0.5)) - compute_t(0.5);
    x = max(x, compute_t(0));
  }
  t.first = min(int(floor(x)), in_size - 1);
  const compute_t lambda = min(max(x - compute_t(t.first), compute_t(0)), compute_t(1));
  t.second = t.first + (t.first < in_size - 1 ? 1 : 0);
  t.first_weight = compute_t(1) - lambda;
  t.second_weight = lambda;
  return t;
}

#endif
