#version 450
// Batched matmul without shared memory, for CPU drivers (lavapipe): each invocation keeps a TM×TN block
// of out in registers and reads A and B straight from memory.
//
// Why this shape: llvmpipe runs a subgroup (8 invocations) as one SIMD vector and loads memory one lane
// at a time, unless the address is the same for every lane, in which case it loads once and
// broadcasts. So the rows of a subgroup's block (A's loads) are kept subgroup-uniform and only the
// columns (B's loads) vary by lane: per k, TM cheap loads and TN expensive ones feed TM×TN FMAs, and
// TM > TN pays. The columns of a lane are interleaved (n = c + LANES_N * j) so that on a GPU, if the
// variant is forced there, neighbouring invocations read neighbouring elements.
//
// Workgroup tile: (WORKGROUP_SIZE / LANES_N) * TM rows × LANES_N * TN columns; workgroup z is the batch.
#extension GL_KHR_shader_subgroup_basic : require
#include "matmul_common.glsl"

layout(constant_id = 4) const uint TM = 8;
layout(constant_id = 5) const uint TN = 2;
layout(constant_id = 6) const uint LANES_N = 8;  // invocations side by side along N
const uint ROW_GROUPS = WORKGROUP_SIZE / LANES_N;

// Which row group and column lane this invocation is. When a row group is exactly one subgroup, its
// index is gl_SubgroupID, which the driver knows to be uniform across the subgroup (a division of
// gl_LocalInvocationIndex would be the same number, but the driver could not tell).
uint row_group() {
  if (ROW_GROUPS == 1u) return 0u;
  if (LANES_N == gl_SubgroupSize) return gl_SubgroupID;
  return gl_LocalInvocationIndex / LANES_N;
}
uint column_lane() {
  if (ROW_GROUPS == 1u) return gl_LocalInvocationIndex;
  if (LANES_N == gl_SubgroupSize) return gl_SubgroupInvocationID;
  return gl_LocalInvocationIndex % LANES_N;
}

void main() {
  const uint batch = gl_WorkGroupID.z;
  const uint m0 = gl_WorkGroupID.y * (ROW_GROUPS * TM) + row_group() * TM;
  const uint n0 = gl_WorkGroupID.x * (LANES_N * TN) + column_lane();
  if (m0 >= p.M) return;  // whole row group past the edge (uniform across the subgroup)

  // Rows and columns past the edge read the last valid one, so the k loop has no branches; their
  // results are never stored.
  uint a_index[TM];
  for (uint i = 0; i < TM; ++i) {
    a_index[i] = element_index(OP_A, batch, min(m0 + i, p.M - 1u), 0u);
  }
  uint b_index[TN];
  for (uint j = 0; j < TN; ++j) {
    b_index[j] = element_index(OP_B, batch, 0u, min(n0 + j * LANES_N, p.N - 1u));
  }
  compute_t acc[TM][TN];
  for (uint i = 0; i < TM; ++i) {
    for (uint j = 0; j < TN; ++j) acc[i][j] = compute_t(0);
  }

  const uint a_step = p.col_strides[OP_A];
  const uint b_step = p.row_strides[OP_B];
  for (uint k = 0; k < p.K; ++k) {
    compute_t a[TM];
    for (uint i = 0; i < TM; ++i) a[i] = a_data_load(a_index[i] + k * a_step);
    compute_t b[TN];
    for (uint j = 0; j < TN; ++j) b[j] = b_data_load(b_index[j] + k * b_step);
    for (uint i = 0; i < TM; ++i) {
      for (uint j = 0; j < TN; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
    }
  }

  for (uint i = 0; i < TM; ++i) {
    const uint m = m0 + i;
    if (m >= p.M) break;
    for (uint j = 0; j < TN; ++j) {
      const uint n = n0 + j * LANES_N;
      if (n < p.N) store_result(batch, m, n, acc[i][j]);
    }
  }
}
