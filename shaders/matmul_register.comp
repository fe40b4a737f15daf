#version 450
// Batched matmul without shared memory, for CPU drivers (lavapipe): each invocation keeps a TM×TN block
// of out in registers and reads A and B straight from memory.
//
// Why this shape: llvmpipe runs 8 invocations as one SIMD vector, but it loads storage buffers (and
// shared memory) one lane at a time, so loads, not FMAs, bound the kernel. Per k an invocation makes
// TM + TN loads for TM×TN FMAs: large blocks pay, even when their accumulators spill to the stack
// (measured: docs/PERFORMANCE.md, "Matmul"). Shared memory would add loads, not remove them.
// Invocation (r, c) owns rows r·TM + i and columns c + lanes_n·j, so on a GPU, if the variant is forced
// there, neighbouring invocations read neighbouring elements of a row-major B.
//
// Workgroup tile: (WORKGROUP_SIZE / lanes_n)·TM rows × lanes_n·TN columns; workgroup z is the batch.
// lanes_n, which shapes the tile to the matrix, is a push constant: it enters only index arithmetic done
// once per invocation, and as a specialization constant it would multiply the pipelines to compile.
#include "matmul_common.glsl"

layout(constant_id = 4) const uint TM = 8;
layout(constant_id = 5) const uint TN = 8;

void main() {
  const uint batch = gl_WorkGroupID.z;
  const uint lanes = p.lanes_n;
  const uint m0 = gl_WorkGroupID.y * (WORKGROUP_SIZE / lanes * TM) + gl_LocalInvocationIndex / lanes * TM;
  const uint n0 = gl_WorkGroupID.x * (lanes * TN) + gl_LocalInvocationIndex % lanes;
  if (m0 >= p.M) return;  // the whole block is past the edge

  // Rows and columns past the edge read the last valid one, so the k loop has no branches; their
  // results are never stored.
  uint a_index[TM];
  for (uint i = 0; i < TM; ++i) {
    a_index[i] = element_index(OP_A, batch, min(m0 + i, p.M - 1u), 0u);
  }
  uint b_index[TN];
  for (uint j = 0; j < TN; ++j) {
    b_index[j] = element_index(OP_B, batch, 0u, min(n0 + j * lanes, p.N - 1u));
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
      const uint n = n0 + j * lanes;
      if (n < p.N) store_result(batch, m, n, acc[i][j]);
    }
  }
}
