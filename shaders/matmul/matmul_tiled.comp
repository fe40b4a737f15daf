#version 450
// Batched matmul with shared-memory tiles, for GPUs. A workgroup of 16×16 invocations computes a
// BM×BN block of out (BM = 16·TM, BN = 16·TN); each invocation keeps TM×TN results in registers. Per step
// of BK along K, the workgroup stages a BM×BK tile of A and a BK×BN tile of B in shared memory, converted
// to compute_t, so every global element is read once per workgroup instead of once per output.
//
// Invocation (tx, ty) owns rows ty + 16·i and columns tx + 16·j: the 16 invocations of a row read
// consecutive words of the B tile (no bank conflicts) and broadcast the same word of the A tile, and
// their stores to a row-major out are consecutive.
layout(constant_id = 7) const uint ACTIVATION = 0;  // matmul_common.glsl's store_result
#include "matmul_common.glsl"

layout(constant_id = 4) const uint TM = 4;
layout(constant_id = 5) const uint TN = 4;
layout(constant_id = 6) const uint BK = 16;
const uint BM = 16u * TM;
const uint BN = 16u * TN;
// Rows of the tiles are padded by one element so that staging along K (a transposed operand) spreads
// its stores over the banks instead of hitting one.
const uint A_ROW = BM + 1u;
const uint B_ROW = BN + 1u;

shared compute_t a_tile[BK * A_ROW];  // [k][m]
shared compute_t b_tile[BK * B_ROW];  // [k][n]

// Stages A[m0 .. m0+BM) × [k0 .. k0+BK) into a_tile, zero past the edges. Consecutive invocations take
// consecutive elements along whichever of K and M is closer in memory, so their reads coalesce.
void stage_a(uint batch, uint m0, uint k0, uint t) {
  const bool k_fast = (p.flags & MATMUL_A_K_FAST) != 0u;
  for (uint e = t; e < BM * BK; e += WORKGROUP_SIZE) {
    const uint kk = k_fast ? e % BK : e / BM;
    const uint mm = k_fast ? e / BK : e % BM;
    const uint m = m0 + mm;
    const uint k = k0 + kk;
    a_tile[kk * A_ROW + mm] =
        (m < p.M && k < p.K) ? a_data_load(element_index(OP_A, batch, m, k)) : compute_t(0);
  }
}

void stage_b(uint batch, uint n0, uint k0, uint t) {
  const bool n_fast = (p.flags & MATMUL_B_N_FAST) != 0u;
  for (uint e = t; e < BN * BK; e += WORKGROUP_SIZE) {
    const uint nn = n_fast ? e % BN : e / BK;
    const uint kk = n_fast ? e / BN : e % BK;
    const uint n = n0 + nn;
    const uint k = k0 + kk;
    b_tile[kk * B_ROW + nn] =
        (n < p.N && k < p.K) ? b_data_load(element_index(OP_B, batch, k, n)) : compute_t(0);
  }
}

void main() {
  const uint batch = gl_WorkGroupID.z;
  const uint m0 = gl_WorkGroupID.y * BM;
  const uint n0 = gl_WorkGroupID.x * BN;
  const uint t = gl_LocalInvocationIndex;
  const uint tx = t % 16u;
  const uint ty = t / 16u;

  compute_t acc[TM][TN];
  for (uint i = 0; i < TM; ++i) {
    for (uint j = 0; j < TN; ++j) acc[i][j] = compute_t(0);
  }

  for (uint k0 = 0; k0 < p.K; k0 += BK) {
    stage_a(batch, m0, k0, t);
    stage_b(batch, n0, k0, t);
    barrier();
    for (uint kk = 0; kk < BK; ++kk) {
      compute_t a[TM];
      for (uint i = 0; i < TM; ++i) a[i] = a_tile[kk * A_ROW + ty + 16u * i];
      compute_t b[TN];
      for (uint j = 0; j < TN; ++j) b[j] = b_tile[kk * B_ROW + tx + 16u * j];
      for (uint i = 0; i < TM; ++i) {
        for (uint j = 0; j < TN; ++j) acc[i][j] = MULTIPLY_ADD(a[i], b[j], acc[i][j]);
      }
    }
    barrier();
  }

  for (uint i = 0; i < TM; ++i) {
    const uint m = m0 + ty + 16u * i;
    if (m >= p.M) break;
    for (uint j = 0; j < TN; ++j) {
      const uint n = n0 + tx + 16u * j;
      if (n < p.N) store_result(batch, m, n, acc[i][j]);
    }
  }
}
