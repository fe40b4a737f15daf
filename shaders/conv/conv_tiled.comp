#version 450
// Convolution as an implicit GEMM with shared-memory tiles, for GPUs, in the manner of
// matmul_tiled.comp: a workgroup of 16×16 invocations computes a BM×BN block of out (BM = 16·TM,
// BN = 16·TN); per step of BK along k it stages a BM×BK tile of A and a BK×BN tile of the gathered B in
// shared memory, converted to compute_t. Staging decomposes each element's column and k with divisions,
// which a GPU does cheaply; nothing like im2col is ever written to memory. The direction is a define.
//
// Invocation (tx, ty) owns rows ty + 16·i and columns tx + 16·j, so that the 16 invocations of a row
// read consecutive words of the B tile and store to consecutive positions of a plane.
#include "conv_common.glsl"

layout(constant_id = 4) const uint TM = 4;
layout(constant_id = 5) const uint TN = 4;
layout(constant_id = 6) const uint BK = 16;
const uint BM = 16u * TM;
const uint BN = 16u * TN;
const uint A_ROW = BM + 1u;
const uint B_ROW = BN + 1u;

shared compute_t a_tile[BK * A_ROW];  // [k][m]
shared compute_t b_tile[BK * B_ROW];  // [k][n]

bool inside(ivec3 pos, uvec3 size) { return all(lessThan(uvec3(pos), size)); }

// A[m, k] of group g.
compute_t a_element(uint g, uint m, uint k) {
  const uint volume = p.kernel_size[0] * p.kernel_size[1] * p.kernel_size[2];
#if defined(CONV_FORWARD)
  return a_data_load(p.offsets[OP_A] + (g * out_per_group() + m) * gemm_k() + k);
#elif defined(CONV_INPUT_GRAD)
  const uint co = k / volume;
  return a_data_load(p.offsets[OP_A] + ((g * out_per_group() + co) * in_per_group() + m) * volume + k % volume);
#else
  const uint plane = out_plane();
  const uint b = k / plane;
  return a_data_load(p.offsets[OP_A] + (b * p.out_channels + g * out_per_group() + m) * plane + k % plane);
#endif
}

// The gathered B[k, n] of group g: an element of the input (grad_output for the input gradient), or
// zero where the position falls outside it.
compute_t b_element(uint g, uint k, uint n) {
  const uvec3 KS = kernel_sizes();
  const uint volume = KS.x * KS.y * KS.z;
#if defined(CONV_FORWARD) || defined(CONV_WEIGHT_GRAD)
#if defined(CONV_FORWARD)
  const uint b = n / out_plane();
  const uvec3 o = coordinates(n % out_plane(), out_sizes());
  const uint c = k / volume;
  const uvec3 kk = coordinates(k % volume, KS);
#else
  const uint c = n / volume;
  const uvec3 kk = coordinates(n % volume, KS);
  const uint b = k / out_plane();
  const uvec3 o = coordinates(k % out_plane(), out_sizes());
#endif
  const ivec3 pos = ivec3(o) * strides3() - padding3() + ivec3(kk) * dilation3();
  if (!inside(pos, in_sizes())) return compute_t(0);
  return b_data_load(p.offsets[OP_B] + (b * p.in_channels + g * in_per_group() + c) * in_plane() +
                     linear_of(uvec3(pos), in_sizes()));
#else
  const uint b = n / in_plane();
  const uvec3 i = coordinates(n % in_plane(), in_sizes());
  const uint co = k / volume;
  const uvec3 kk = coordinates(k % volume, KS);
  const ivec3 t = ivec3(i) + padding3() - ivec3(kk) * dilation3();
  const ivec3 s = strides3();
  if (any(lessThan(t, ivec3(0))) || any(notEqual(t % s, ivec3(0)))) return compute_t(0);
  const ivec3 o = t / s;
  if (!inside(o, out_sizes())) return compute_t(0);
  return b_data_load(p.offsets[OP_B] + (b * p.out_channels + g * out_per_group() + co) * out_plane() +
                     linear_of(uvec3(o), out_sizes()));
#endif
}

void main() {
  const uint g = gl_WorkGroupID.z % p.groups;
  const uint split = gl_WorkGroupID.z / p.groups;
  const uint M = gemm_m();
  const uint N = gemm_n();
  const uint m0 = gl_WorkGroupID.y * BM;
  const uint n0 = gl_WorkGroupID.x * BN;
  const uint t = gl_LocalInvocationIndex;
  const uint tx = t % 16u;
  const uint ty = t / 16u;

  const uint k_begin = p.k_first + split * p.k_per_split;
  const uint k_end = min(gemm_k(), k_begin + p.k_per_split);

  compute_t acc[TM][TN];
  for (uint i = 0; i < TM; ++i) {
    for (uint j = 0; j < TN; ++j) acc[i][j] = compute_t(0);
  }

  for (uint k0 = k_begin; k0 < k_end; k0 += BK) {
    for (uint e = t; e < BM * BK; e += WORKGROUP_SIZE) {
      const uint kk = e % BK;
      const uint mm = e / BK;
      const uint m = m0 + mm;
      const uint k = k0 + kk;
      a_tile[kk * A_ROW + mm] = (m < M && k < k_end) ? a_element(g, m, k) : compute_t(0);
    }
    for (uint e = t; e < BN * BK; e += WORKGROUP_SIZE) {
      const uint nn = e % BN;
      const uint kk = e / BN;
      const uint n = n0 + nn;
      const uint k = k0 + kk;
      b_tile[kk * B_ROW + nn] = (n < N && k < k_end) ? b_element(g, k, n) : compute_t(0);
    }
    barrier();
    for (uint kk = 0; kk < BK; ++kk) {
      compute_t a[TM];
      for (uint i = 0; i < TM; ++i) a[i] = a_tile[kk * A_ROW + ty + 16u * i];
      compute_t b[TN];
      for (uint j = 0; j < TN; ++j) b[j] = b_tile[kk * B_ROW + tx + 16u * j];
      for (uint i = 0; i < TM; ++i) {
        for (uint j = 0; j < TN; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
      }
    }
    barrier();
  }

  for (uint j = 0; j < TN; ++j) {
    const uint n = n0 + tx + 16u * j;
    if (n >= N) break;
    const uint column = out_column_index(g, split, n);
    for (uint i = 0; i < TM; ++i) {
      const uint m = m0 + ty + 16u * i;
      if (m < M) store_result(m, column, acc[i][j], row_bias(g, m));
    }
  }
}
