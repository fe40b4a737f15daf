// What the pool shaders share: the push constants, the operands' addressing and the windows (see
// runtime/kernels/pool.h). A launch covers `plane_sizes[0] x plane_sizes[1]` planes; one invocation
// computes a run of consecutive elements of its output (out forward, grad_in backward), the first found
// from its row-major position (three divisions: the two plane dims and the two spatial dims), the others
// by carrying (POSITION_RUN below).
#ifndef EMBER_POOL_COMMON_GLSL
#define EMBER_POOL_COMMON_GLSL

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "typed_operands.glsl"
#include "push_constants.glsl"
#include "pool_ops.glsl"
#include "divide.glsl"

#define WORKGROUP_SIZE 256
layout(local_size_x = WORKGROUP_SIZE) in;

layout(constant_id = 0) const uint DT = DT_F32;
layout(constant_id = 1) const uint OP = POOL_OP_MAX;
// Whether a launch's dividends may reach 2^24 (pool_launcher.cpp's kSmallDividends): only then does it
// divide integers, which llvmpipe does lane by lane; below, divide_small does it in float lanes.
// (Constant ids 2 to 4 are each shader's own.)
layout(constant_id = 5) const uint LARGE_DIVIDENDS = 0;

uint pool_divide(uint a, uint b) {
  if (LARGE_DIVIDENDS != 0u) return a / b;
  return divide_small(a, b);
}

#define IS_MAX (OP == POOL_OP_MAX || OP == POOL_OP_ADAPTIVE_MAX)
#define IS_ADAPTIVE (OP == POOL_OP_ADAPTIVE_MAX || OP == POOL_OP_ADAPTIVE_AVG)

// "in" and "out" are the forward's input and output (grad_in and grad_out in backward).
struct Params {
  uint in_offset;  // first element of each operand in its window
  uint out_offset;
  uint indices_offset;
  uint plane_sizes[2];
  uint in_plane_strides[2];
  uint out_plane_strides[2];
  uint indices_plane_strides[2];
  uint in_h;
  uint in_w;
  uint out_h;
  uint out_w;
  uint in_strides[2];  // along height and width
  uint out_strides[2];
  uint indices_strides[2];
  int kernel[2];  // Max and Avg windows, per spatial dim
  int stride[2];
  int padding[2];
  int dilation[2];
  uint count_include_pad;
  int divisor_override;  // 0: none
};
DECLARE_PUSH_CONSTANTS(Params)

// The element a launch position names in its plane: the planes' coordinates and (row, col) in a
// plane of rows x cols.
struct Position {
  uint plane0;
  uint plane1;
  int row;
  int col;
};

Position position_of(uint i, uint rows, uint cols) {
  Position at;
  uint q = pool_divide(i, cols);
  at.col = int(i - q * cols);
  i = q;
  q = pool_divide(i, rows);
  at.row = int(i - q * rows);
  i = q;
  q = pool_divide(i, p.plane_sizes[1]);
  at.plane1 = i - q * p.plane_sizes[1];
  at.plane0 = q;
  return at;
}

// Invocations take their positions in runs of POSITION_RUN consecutive ones (pool_launcher.cpp's
// kPositionRun): position_of's three divisions then happen once per run, and each next position is a
// carry. Measured on lavapipe, where they run lane by lane: the divisions were 2.3 ms of a 7.2 ms max
// pool over 64×32×28×28 (docs/PERFORMANCE.md).
#define POSITION_RUN 8u

// The position after `at` in row-major order over planes of rows x cols.
void next_position(inout Position at, uint rows, uint cols) {
  if (++at.col < int(cols)) return;
  at.col = 0;
  if (++at.row < int(rows)) return;
  at.row = 0;
  if (++at.plane1 < p.plane_sizes[1]) return;
  at.plane1 = 0u;
  ++at.plane0;
}

uint in_plane(Position at) {
  return p.in_offset + at.plane0 * p.in_plane_strides[0] + at.plane1 * p.in_plane_strides[1];
}
uint out_plane(Position at) {
  return p.out_offset + at.plane0 * p.out_plane_strides[0] + at.plane1 * p.out_plane_strides[1];
}
uint indices_plane(Position at) {
  return p.indices_offset + at.plane0 * p.indices_plane_strides[0] + at.plane1 * p.indices_plane_strides[1];
}

// Adaptive windows along a dim of `in_size` pooled to `out_size`: output o starts at floor(o in / out)
// and ends at ceil((o + 1) in / out), in 64 bits (o * in outgrows 32 bits on long 1-d signals).
int adaptive_start(int o, uint in_size, uint out_size) {
  return int((uint64_t(o) * in_size) / out_size);
}
int adaptive_end(int o, uint in_size, uint out_size) {
  return int((uint64_t(o + 1) * in_size + out_size - 1u) / out_size);
}

// Avg's window along dim d of output o: [first, last) clipped to the input, and its size clipped to
// the input and its padding (what count_include_pad divides by).
struct AvgSpan {
  int first;
  int last;
  int padded;
};

AvgSpan avg_span(int d, int o, uint in_size) {
  AvgSpan s;
  s.first = o * p.stride[d] - p.padding[d];
  s.last = min(s.first + p.kernel[d], int(in_size) + p.padding[d]);
  s.padded = s.last - s.first;
  s.first = max(s.first, 0);
  s.last = min(s.last, int(in_size));
  return s;
}

compute_t avg_divisor(AvgSpan h, AvgSpan w) {
  if (p.divisor_override != 0) return compute_t(p.divisor_override);
  if (p.count_include_pad != 0u) return compute_t(h.padded * w.padded);
  return compute_t((h.last - h.first) * (w.last - w.first));
}

#endif
