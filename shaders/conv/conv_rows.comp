#version 450
#extension GL_KHR_shader_subgroup_shuffle : enable
#extension GL_EXT_control_flow_attributes : require
// A stride-1, dilation-1 convolution of float32 planes whose rows start on texels, for CPU drivers
// (lavapipe): out[b, m, y, x] = Σ over (c, kh, kw) of A[m, c, kh, kw] · X[b, c, y + kh, x + kw], plus
// bias[m], where X is a copy of the gathered operand padded so that no position falls outside it
// (conv_pad.comp, conv_rows_common.glsl).
//
// Why: the implicit-GEMM kernel (conv_register.comp) gathers B one column at a time, and llvmpipe fetches
// a texel for every lane and column; there the gathers were most of the time. Here an invocation owns
// TN = 8 adjacent x of one row of out, whose inputs for a (c, kh) are one run of 8 + KW − 1 elements of a
// padded row, starting on a texel: it fetches that run as whole texels once and takes every kw's eight
// values from registers. Where each output x of a block read its own input, each (c, kh, kw) cost eight
// fetches; here a (c, kh) costs three for KW = 3, and no bounds test.
//
// Every invocation of a workgroup computes the same TM rows (workgroup y), so they need the same values
// of A. llvmpipe fetches per lane whatever the address, so each of the 8 lanes of a subgroup fetches a
// different one of a kw's TM values and the others take it by a shuffle (the host checks subgroups of 8
// with shuffles): TM / 8 fetches per kw instead of TM. Lanes past the last block compute the last one
// again, so that every lane takes part in the shuffles, and store nothing.
//
// The input gradient of a stride-1 convolution is this one over grad_output padded by KH − 1 − padding,
// with A the weight flipped and its channels swapped, which A's strides express.

layout(local_size_x = 256) in;

layout(constant_id = 0) const uint TM = 16;  // a multiple of 8
layout(constant_id = 1) const uint KW = 3;
layout(constant_id = 2) const bool WORD_STORES = false;  // conv_rows_common.glsl's store_block
// KH > 0: the kernel's height (conv_rows.cpp sets it for kernels of at most kRowsMaxKh rows). A channel's
// KH runs of X and its values of A are then fetched first, and each sum takes all KH · KW products of the
// channel at once: the TM × TN sums do not fit in registers, so each is loaded and stored once per channel
// instead of once per kernel row. The products are added in the same order either way. Measured on
// lavapipe: 32 → 64 channels at 14 × 14 (batch 64), 11.5-11.9 → 9.2-9.5 ms per forward; 64 → 64 at 56 × 56
// (batch 32), 125-129 → 91-93 ms.
layout(constant_id = 3) const uint KH = 0;

layout(set = 0, binding = 1) uniform utextureBuffer a_texels;

#define X_LEAD 0u
#include "conv_rows_common.glsl"

vec4 x_texel(uint at, uint k, bool row_in) { return uintBitsToFloat(texelFetch(x_texels, int(at + k))); }

float a_value(int i) { return uintBitsToFloat(texelFetch(a_texels, i >> 2)[uint(i) & 3u]); }

// Lane l's share of kernel column kw's TM values of A: rows l, l + 8, ... (up to 9 columns).
#define FETCH_A(kw)                                                                                 \
  float a_part##kw[TM / 8u];                                                                        \
  if (KW > uint(kw)) {                                                                              \
    [[unroll]] for (uint q = 0; q < TM / 8u; ++q) a_part##kw[q] = a_value(a_at + lane_rows[q] + kw * p.a_stride_w); \
  }
// Row i's value of kernel column kw, from the lane that fetched it.
#define SHUFFLE_A(kw) const float a##kw = KW > uint(kw) ? subgroupShuffle(a_part##kw[i / 8u], i % 8u) : 0.0;

void main() {
  const uint m0 = gl_WorkGroupID.y * TM;
  if (m0 >= p.rows) return;
  const uint blocks = p.batch * p.out_h * p.row_blocks;
  const uint block = min(gl_GlobalInvocationID.x, blocks - 1u);
  const uint x0 = block % p.row_blocks * TN;
  const uint y = block / p.row_blocks % p.out_h;
  const uint b = block / (p.row_blocks * p.out_h);

  // Every loop over the block's rows and columns unrolls by attribute, so that acc and x are indexed by
  // constants: Mesa 25's llvmpipe left them rolled, and read and wrote each sum through the stack lane
  // by lane (27 against 18 ms per launch, docs/PERFORMANCE.md).
  float acc[TM][TN];
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    [[unroll]] for (uint j = 0; j < TN; ++j) acc[i][j] = 0.0;
  }
  uint x_at = p.x_first + b * p.x_sample_texels + y * p.x_row_texels + x0 / 4u;
  // Where this lane's rows of A start; rows past the last one fetch it again (never stored).
  int lane_rows[TM / 8u];
  [[unroll]] for (uint q = 0; q < TM / 8u; ++q) lane_rows[q] = int(min(m0 + 8u * q + gl_SubgroupInvocationID, p.rows - 1u)) * p.a_stride_m;
  int a_channel = int(p.a_first);
  if (KH > 0u) {
    for (uint c = 0; c < p.channels; ++c) {
      float xs[KH + 1u][4 * MAX_TEXELS];
      float a_parts[KH + 1u][KW][TM / 8u];
      [[unroll]] for (uint kh = 0; kh < KH; ++kh) {
        const uint at = x_at + kh * p.x_row_texels;
        [[unroll]] for (uint k = 0; k < MAX_TEXELS; ++k) {
          const vec4 t = (TN + KW + 2u) / 4u > k ? x_texel(at, k, true) : vec4(0.0);
          [[unroll]] for (uint e = 0; e < 4u; ++e) xs[kh][4u * k + e] = t[e];
        }
        [[unroll]] for (uint kw = 0; kw < KW; ++kw) {
          [[unroll]] for (uint q = 0; q < TM / 8u; ++q) {
            const int a_at = a_channel + int(kh) * p.a_stride_h + lane_rows[q] + int(kw) * p.a_stride_w;
            a_parts[kh][kw][q] = a_value(a_at);
          }
        }
      }
      [[unroll]] for (uint i = 0; i < TM; ++i) {
        float a[KH + 1u][KW];
        [[unroll]] for (uint kh = 0; kh < KH; ++kh) {
          [[unroll]] for (uint kw = 0; kw < KW; ++kw) a[kh][kw] = subgroupShuffle(a_parts[kh][kw][i / 8u], i % 8u);
        }
        [[unroll]] for (uint j = 0; j < TN; ++j) {
          float sum = acc[i][j];
          [[unroll]] for (uint kh = 0; kh < KH; ++kh) {
            [[unroll]] for (uint kw = 0; kw < KW; ++kw) sum = fma(a[kh][kw], xs[kh][kw + j], sum);
          }
          acc[i][j] = sum;
        }
      }
      x_at += p.x_plane_texels;
      a_channel += p.a_stride_c;
    }
  } else {
    for (uint c = 0; c < p.channels; ++c) {
      uint row_at = x_at;
      int a_at = a_channel;
      for (uint kh = 0; kh < p.kernel_h; ++kh) {
        FETCH_RUN(row_at, true)
        FETCH_A(0) FETCH_A(1) FETCH_A(2) FETCH_A(3) FETCH_A(4) FETCH_A(5) FETCH_A(6) FETCH_A(7) FETCH_A(8)
        // Every kernel column's product for one sum before the next sum: the TM × TN sums do not fit in
        // registers, so each is loaded and stored once per (c, kh), not once per kernel column.
        [[unroll]] for (uint i = 0; i < TM; ++i) {
          SHUFFLE_A(0) SHUFFLE_A(1) SHUFFLE_A(2) SHUFFLE_A(3) SHUFFLE_A(4) SHUFFLE_A(5) SHUFFLE_A(6) SHUFFLE_A(7) SHUFFLE_A(8)
          [[unroll]] for (uint j = 0; j < TN; ++j) {
            float sum = acc[i][j];
            TAP(0) TAP(1) TAP(2) TAP(3) TAP(4) TAP(5) TAP(6) TAP(7) TAP(8)
            acc[i][j] = sum;
          }
        }
        row_at += p.x_row_texels;
        a_at += p.a_stride_h;
      }
      x_at += p.x_plane_texels;
      a_channel += p.a_stride_c;
    }
  }

  if (gl_GlobalInvocationID.x >= blocks) return;
  const uint columns = min(TN, p.out_w - x0);
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    const uint m = m0 + i;
    if (m >= p.rows) break;
    store_block(p.out_first + ((b * p.rows + m) * p.out_h + y) * p.out_w + x0, columns, m, acc[i]);
  }
}
