#version 450
#extension GL_EXT_control_flow_attributes : require
// The row kernel (conv_rows.comp) for convolutions with fewer than 8 rows of out, such as the input
// gradient of a network's first layer, whose one row sums over all of grad_output's channels:
// out[b, m, y, x] = Σ over (c, kh, kw) of A[m, c, kh, kw] · X[b, c, y + kh, x + kw], plus bias[m].
//
// Why: conv_rows.comp spreads a workgroup's rows of A over the 8 lanes of a subgroup, and the GEMM
// kernels gather X one position at a time; with one row, both spend most of their time fetching (the
// register kernel took 9 ms for Fashion-MNIST's first layer). Here an invocation owns all TM rows of out
// for a block of TN positions of a row, and A comes from a uniform buffer at addresses that every
// invocation shares, which llvmpipe loads once for all lanes. Every index into the TM · TN sums is a
// constant (the loops over them are unrolled): llvmpipe keeps an array that an index known only at run
// time reaches in memory, loaded and stored one lane at a time. A version whose blocks took 4 rows and
// fetched each run of X once for the rows it feeds indexed its sums by row at run time, and ran at 4.6 ms
// against this one's 2.7 (the first layer's input gradient, lavapipe).
//
// The host binds all of A in one window of at most 64 KiB, so one launch sums every channel: A's
// rows · channels · KH · KW < 16384 also keeps the channel loop inside llvmpipe's loop limit.

layout(local_size_x = 256) in;

layout(constant_id = 0) const uint TM = 1;  // rows of out, all of them: 1 to 7
layout(constant_id = 1) const uint KW = 3;
layout(constant_id = 2) const bool WORD_STORES = false;  // conv_rows_common.glsl's store_block

layout(set = 0, binding = 1, std140) uniform AWindow { uvec4 a_words[4096]; };

#include "conv_rows_common.glsl"

float a_value(int i) { return uintBitsToFloat(a_words[i >> 2][i & 3]); }

#define LOAD_A(kw) const float a##kw = KW > uint(kw) ? a_value(a_at + kw * p.a_stride_w) : 0.0;

void main() {
  const uint blocks = p.batch * p.out_h * p.row_blocks;
  if (gl_GlobalInvocationID.x >= blocks) return;
  const uint block = gl_GlobalInvocationID.x;
  const uint x0 = block % p.row_blocks * TN;
  const uint y = block / p.row_blocks % p.out_h;
  const uint b = block / (p.row_blocks * p.out_h);

  float acc[TM][TN];
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    [[unroll]] for (uint j = 0; j < TN; ++j) acc[i][j] = 0.0;
  }
  uint x_at = p.x_first + b * p.x_sample_texels + y * p.x_row_texels + x0 / 4u;
  int a_channel = int(p.a_first);
  for (uint c = 0; c < p.channels; ++c) {
    uint row_at = x_at;
    int a_row = a_channel;
    for (uint kh = 0; kh < p.kernel_h; ++kh) {
      FETCH_RUN(row_at)
      [[unroll]] for (uint i = 0; i < TM; ++i) {
        const int a_at = a_row + int(i) * p.a_stride_m;
        LOAD_A(0) LOAD_A(1) LOAD_A(2) LOAD_A(3) LOAD_A(4) LOAD_A(5) LOAD_A(6) LOAD_A(7) LOAD_A(8)
        [[unroll]] for (uint j = 0; j < TN; ++j) {
          float sum = acc[i][j];
          TAP(0) TAP(1) TAP(2) TAP(3) TAP(4) TAP(5) TAP(6) TAP(7) TAP(8)
          acc[i][j] = sum;
        }
      }
      row_at += p.x_row_texels;
      a_row += p.a_stride_h;
    }
    x_at += p.x_plane_texels;
    a_channel += p.a_stride_c;
  }

  const uint columns = min(TN, p.out_w - x0);
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    store_block(p.out_first + ((b * p.rows + i) * p.out_h + y) * p.out_w + x0, columns, i, acc[i]);
  }
}
