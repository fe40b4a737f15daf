// Strided addressing shared by the elementwise shaders. The including shader defines NUM_OPERANDS and,
// optionally, EXTRA_PARAMS (more push-constant members). Each operand is bound as a window of its buffer;
// offsets[] is the first element within that window. The host has merged dims that every operand
// traverses contiguously, so most launches have one or two dims.
#ifndef EMBER_STRIDED_GLSL
#define EMBER_STRIDED_GLSL

#ifndef MAX_DIMS
#define MAX_DIMS 6  // shaders with more operands lower it to fit 128 bytes of push constants
#endif
#define WORKGROUP_SIZE 256

#include "push_constants.glsl"
#include "divide.glsl"

#ifndef EXTRA_PARAMS
#define EXTRA_PARAMS
#endif

layout(local_size_x = WORKGROUP_SIZE) in;

struct Params {
  uint numel;
  uint ndim;
  uint offsets[NUM_OPERANDS];
  uint sizes[MAX_DIMS];
  uint strides[NUM_OPERANDS * MAX_DIMS];
  EXTRA_PARAMS
};
// Every including shader's main() starts with COPY_PUSH_CONSTANTS() (push_constants.glsl).
DECLARE_PUSH_CONSTANTS(Params)

// Element offsets of every operand for linear (row-major) index `index`.
void operand_offsets(uint index, out uint offsets[NUM_OPERANDS]) {
  // One dim is the common case after merging, and needs no division: integer division has no SIMD
  // instruction on x86, so lavapipe runs it one lane at a time.
  if (p.ndim == 1) {
    for (int op = 0; op < NUM_OPERANDS; ++op) offsets[op] = p.offsets[op] + index * p.strides[op * MAX_DIMS];
    return;
  }
  for (int op = 0; op < NUM_OPERANDS; ++op) offsets[op] = p.offsets[op];
  for (int d = int(p.ndim) - 1; d >= 0; --d) {
    const uint size = p.sizes[d];
    const uint coordinate = index % size;
    index /= size;
    for (int op = 0; op < NUM_OPERANDS; ++op) offsets[op] += coordinate * p.strides[op * MAX_DIMS + d];
  }
}

// Elements per run of run_offsets.
#define RUN_ELEMENTS 4

// Element offsets of every operand for the RUN_ELEMENTS consecutive elements from linear index `first`
// (offsets past p.numel are never to be used): the division chain of operand_offsets once, then a step
// along the innermost dim per element, carrying into the outer dims where it wraps. lavapipe divides one
// lane at a time: the same change to pooling took a max pool from 7.2 to 4.0-4.5 ms (docs/PERFORMANCE.md).
void run_offsets(uint first, out uint offsets[RUN_ELEMENTS][NUM_OPERANDS]) {
  if (p.ndim <= 1u) {
    for (int k = 0; k < RUN_ELEMENTS; ++k) {
      for (int op = 0; op < NUM_OPERANDS; ++op) offsets[k][op] = p.offsets[op] + (first + uint(k)) * p.strides[op * MAX_DIMS];
    }
    return;
  }
  uint coordinates[MAX_DIMS];
  uint at[NUM_OPERANDS];
  for (int op = 0; op < NUM_OPERANDS; ++op) at[op] = p.offsets[op];
  uint index = first;
  for (int d = int(p.ndim) - 1; d >= 0; --d) {
    const uint size = p.sizes[d];
    coordinates[d] = index % size;
    index /= size;
    for (int op = 0; op < NUM_OPERANDS; ++op) at[op] += coordinates[d] * p.strides[op * MAX_DIMS + d];
  }
  for (int k = 0; k < RUN_ELEMENTS; ++k) {
    for (int op = 0; op < NUM_OPERANDS; ++op) offsets[k][op] = at[op];
    for (int d = int(p.ndim) - 1; d >= 0; --d) {
      for (int op = 0; op < NUM_OPERANDS; ++op) at[op] += p.strides[op * MAX_DIMS + d];
      if (++coordinates[d] < p.sizes[d] || d == 0) break;
      for (int op = 0; op < NUM_OPERANDS; ++op) at[op] -= p.sizes[d] * p.strides[op * MAX_DIMS + d];
      coordinates[d] = 0u;
    }
  }
}

// Launches of one or two dims whose inner dim holds at least RUN_ELEMENTS elements, fewer than 2^24 in
// all (the host checks; the index kernels' ROWS specialization constant): the offsets of a run of
// RUN_ELEMENTS elements without arrays, which llvmpipe reads one lane at a time at an index known only at
// run time, and with one division in float lanes (divide.glsl). A run spans at most two rows. Operand
// op's offsets are component op of the uvec4s (up to four operands).
struct RowsRun {
  uvec4 at;             // the run's first element
  uvec4 inner_strides;  // a step along the inner dim
  uvec4 wrap;           // from one past a row's end to the next row's start
  uint column;          // the first element's along the inner dim
  uint inner;           // the inner dim's size
};

// Operand strides of launch dim d, by operand.
uvec4 operand_strides(int d) {
  uvec4 strides = uvec4(p.strides[d], 0u, 0u, 0u);
#if NUM_OPERANDS > 1
  strides.y = p.strides[MAX_DIMS + d];
#endif
#if NUM_OPERANDS > 2
  strides.z = p.strides[2 * MAX_DIMS + d];
#endif
#if NUM_OPERANDS > 3
  strides.w = p.strides[3 * MAX_DIMS + d];
#endif
  return strides;
}

RowsRun rows_run(uint first) {
  RowsRun run;
  const bool two_dims = p.ndim == 2u;
  run.inner = two_dims ? p.sizes[1] : p.numel;
  run.inner_strides = two_dims ? operand_strides(1) : operand_strides(0);
  const uvec4 outer_strides = two_dims ? operand_strides(0) : uvec4(0u);
  const uint row = divide_small(first, run.inner);
  run.column = first - row * run.inner;
  uvec4 offsets = uvec4(p.offsets[0], 0u, 0u, 0u);
#if NUM_OPERANDS > 1
  offsets.y = p.offsets[1];
#endif
#if NUM_OPERANDS > 2
  offsets.z = p.offsets[2];
#endif
#if NUM_OPERANDS > 3
  offsets.w = p.offsets[3];
#endif
  run.at = offsets + row * outer_strides + run.column * run.inner_strides;
  run.wrap = outer_strides - run.inner * run.inner_strides;
  return run;
}

// Offsets of the run's element k.
uvec4 rows_offsets(RowsRun run, uint k) {
  return run.at + k * run.inner_strides + (run.column + k >= run.inner ? run.wrap : uvec4(0u));
}

// Grid-stride loop bounds: the host caps the workgroup count at the device limit.
#define FOR_EACH_ELEMENT(i) \
  for (uint i = gl_GlobalInvocationID.x; i < p.numel; i += gl_NumWorkGroups.x * WORKGROUP_SIZE)

#endif
