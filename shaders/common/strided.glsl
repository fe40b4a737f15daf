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

// Grid-stride loop bounds: the host caps the workgroup count at the device limit.
#define FOR_EACH_ELEMENT(i) \
  for (uint i = gl_GlobalInvocationID.x; i < p.numel; i += gl_NumWorkGroups.x * WORKGROUP_SIZE)

#endif
