#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_samplerless_texture_functions : require
// The row kernel (conv_rows.comp) for convolutions with fewer than 8 rows of out, such as the input
// gradient of a network's first layer, whose one row sums over all of grad_output's channels:
// out[b, m, y, x] = Σ over (c, kh, kw) of A[m, c, kh, kw] · X[b, c, y + kh, x + kw], plus bias[m].
//
// Why: conv_rows.comp spreads a workgroup's rows of A over the 8 lanes of a subgroup, and the GEMM
// kernels gather X one position at a time; with one row, both spend most of their time fetching (the
// register kernel took 9 ms for Fashion-MNIST's first layer). Here an invocation owns all TM rows of out
// for a block of TY rows × TN positions, and fetches each run of X the block reads once for the TY rows
// it feeds (KH + TY − 1 runs per channel instead of TY · KH). A comes from a uniform buffer at addresses
// that every invocation shares, which llvmpipe loads once for all lanes.
//
// Every index into the TY · TM · TN sums is a constant (the loops over them are unrolled, and a run skips
// the rows it does not feed by a test that is the same in every lane): llvmpipe keeps an array that an
// index known only at run time reaches in memory, loaded and stored one lane at a time. Measured on the
// first layer's input gradient (lavapipe): blocks of 4 rows with their sums indexed by row at run time,
// 4.6 ms; one row, 2.8; two rows, 2.4-2.6; four rows, 2.8-3.5.
//
// DIRECT: where the source's rows hold a multiple of four elements and start on texels, the kernel reads
// the source itself and zeroes the texels outside it, rather than reading conv_pad.comp's padded copy.
// For the first layer's input gradient that copy (8.8 MB) took 1.5-4.6 ms, more than this kernel, and
// longest when the VM's memory was busiest; the zeroing costs the kernel about 0.5 ms.
//
// The host binds all of A in one window of at most 64 KiB, so one launch sums every channel: A's
// rows · channels · KH · KW < 16384 also keeps the channel loop inside llvmpipe's loop limit.

#define TY 2u  // rows of positions per block (conv_rows.cpp's kFewRowsTy)

layout(local_size_x = 256) in;

layout(constant_id = 0) const uint TM = 1;  // rows of out, all of them: 1 to 7
layout(constant_id = 1) const uint KW = 3;
layout(constant_id = 2) const bool WORD_STORES = false;  // conv_rows_common.glsl's store_block
layout(constant_id = 3) const bool DIRECT = false;  // X is the source itself (above)
layout(constant_id = 4) const uint LEAD = 0;  // DIRECT: a block's run starts LEAD elements into its first texel
#define X_LEAD LEAD

layout(set = 0, binding = 1, std140) uniform AWindow { uvec4 a_words[4096]; };

#include "conv_rows_common.glsl"

// DIRECT: which of a run's texels lie inside the source's row, the same for every run of an invocation.
bool texel_inside[MAX_TEXELS];

// Texel k of the run whose first texel is `at`. DIRECT: a texel outside the source's rows reads as zeros,
// fetched from inside the view all the same (every lane fetches).
vec4 x_texel(int at, uint k, bool row_in) {
  if (!DIRECT) return uintBitsToFloat(texelFetch(x_texels, at + int(k)));
  const vec4 value = uintBitsToFloat(texelFetch(x_texels, clamp(at + int(k), 0, textureSize(x_texels) - 1)));
  return row_in && texel_inside[k] ? value : vec4(0.0);
}

float a_value(int i) { return uintBitsToFloat(a_words[i >> 2][i & 3]); }

#define LOAD_A(kw) const float a##kw = KW > uint(kw) ? a_value(a_at + kw * p.a_stride_w) : 0.0;

void main() {
  const uint y_blocks = (p.out_h + TY - 1u) / TY;
  const uint blocks = p.batch * y_blocks * p.row_blocks;
  if (gl_GlobalInvocationID.x >= blocks) return;
  const uint block = gl_GlobalInvocationID.x;
  const uint x0 = block % p.row_blocks * TN;
  const uint y0 = block / p.row_blocks % y_blocks * TY;
  const uint b = block / (p.row_blocks * y_blocks);

  float acc[TY][TM][TN];
  [[unroll]] for (uint r = 0; r < TY; ++r) {
    [[unroll]] for (uint i = 0; i < TM; ++i) {
      [[unroll]] for (uint j = 0; j < TN; ++j) acc[r][i][j] = 0.0;
    }
  }
  // Runs past the padded plane (in blocks past out's last row) feed only rows past it, never stored:
  // they read the plane's last row instead.
  const uint last_run = p.out_h + p.kernel_h - 2u - y0;
  // DIRECT: the block's runs start at source column x0 − shift_x − LEAD, a multiple of four.
  const int first_texel = DIRECT ? (int(x0) - p.shift_x - int(LEAD)) / 4 : int(x0 / 4u);
  [[unroll]] for (uint k = 0; k < MAX_TEXELS; ++k) {
    texel_inside[k] = first_texel + int(k) >= 0 && first_texel + int(k) < int(p.x_row_texels);
  }
  int x_at = int(p.x_first + b * p.x_sample_texels) + first_texel;
  int a_channel = int(p.a_first);
  for (uint c = 0; c < p.channels; ++c) {
    for (uint run = 0; run < p.kernel_h + TY - 1u; ++run) {
      const int source_row = int(y0 + run) - p.shift_y;
      const bool row_in = source_row >= 0 && source_row < int(p.source_h);
      const int row = DIRECT ? (row_in ? source_row : 0) : int(y0 + min(run, last_run));
      FETCH_RUN(x_at + row * int(p.x_row_texels), row_in)
      // The run is kernel row kh = run − r of the block's row r.
      [[unroll]] for (uint r = 0; r < TY; ++r) {
        if (run < r || run - r >= p.kernel_h) continue;
        const int a_row = a_channel + int(run - r) * p.a_stride_h;
        [[unroll]] for (uint i = 0; i < TM; ++i) {
          const int a_at = a_row + int(i) * p.a_stride_m;
          LOAD_A(0) LOAD_A(1) LOAD_A(2) LOAD_A(3) LOAD_A(4) LOAD_A(5) LOAD_A(6) LOAD_A(7) LOAD_A(8)
          [[unroll]] for (uint j = 0; j < TN; ++j) {
            float sum = acc[r][i][j];
            TAP(0) TAP(1) TAP(2) TAP(3) TAP(4) TAP(5) TAP(6) TAP(7) TAP(8)
            acc[r][i][j] = sum;
          }
        }
      }
    }
    x_at += int(p.x_plane_texels);
    a_channel += p.a_stride_c;
  }

  const uint columns = min(TN, p.out_w - x0);
  [[unroll]] for (uint r = 0; r < TY; ++r) {
    if (y0 + r >= p.out_h) continue;
    [[unroll]] for (uint i = 0; i < TM; ++i) {
      store_block(p.out_first + ((b * p.rows + i) * p.out_h + y0 + r) * p.out_w + x0, columns, i, acc[r][i]);
    }
  }
}
