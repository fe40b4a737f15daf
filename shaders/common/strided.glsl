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

#ifndef EXTRA_PARAMS
#define EXTRA_PARAMS
#endif

layout(local_size_x = WORKGROUP_SIZE) in;

layout(push_constant) uniform Params {
  uint numel;
  uint ndim;
  uint offsets[NUM_OPERANDS];
  uint sizes[MAX_DIMS];
  uint strides[NUM_OPERANDS * MAX_DIMS];
  EXTRA_PARAMS
} p;

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

// Grid-stride loop bounds: the host caps the workgroup count at the device limit.
#define FOR_EACH_ELEMENT(i) \
  for (uint i = gl_GlobalInvocationID.x; i < p.numel; i += gl_NumWorkGroups.x * WORKGROUP_SIZE)

#endif
