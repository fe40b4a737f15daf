#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_samplerless_texture_functions : require
// The weight and bias gradients of a stride-1, dilation-1 float32 convolution, for CPU drivers:
// partial[split, m, (c·KH + kh)·KW + kw] = Σ over this split's blocks of Σ over (b, y, x) of
// grad_out[b, m, y, x] · X[b, c, y + kh, x + kw], where X is the input's padded copy (conv_pad.comp), and
// after all of those the bias's, bias_partial[split, m] = Σ grad_out[b, m, y, x] (conv_launch.h's
// BiasPartials::After). The reduce family sums the splits.
//
// Why: as a GEMM its results are few (32 × 9 for Fashion-MNIST's first layer, 64 × 576 for a 3×3 layer
// of 64 channels) and its k long (the batch times the output plane), and the implicit-GEMM kernel gathers
// X one position at a time. Here an invocation owns TM output channels and RUNS / KH input channels, and
// walks blocks of 8 adjacent outputs of one row of out. Per block it fetches each of its RUNS runs of X
// (one per channel and kernel row) once as whole texels, and per output channel grad_out's 8 values as two
// texels (three where its rows do not start on texels), and adds every product to its TM · (TAPS + 1)
// sums, which stay in the invocation until the end. Every index into the sums and the runs is a constant
// (the loops over them are unrolled): llvmpipe keeps an array that an index known only at run time reaches
// in memory, lane by lane.

#define TN 8u
#define TM 8u
#define TEXELS 3u  // per run of TN + KW − 1 elements: KW up to 5

layout(local_size_x = 256) in;

layout(constant_id = 0) const uint RUNS = 3;  // runs of X per block: input channels per invocation · KH
layout(constant_id = 1) const uint KW = 3;
// G_ALIGNED: grad_out's rows hold a multiple of four elements from a texel, so a block's 8 values are two
// whole texels; otherwise three texels and a shift.
layout(constant_id = 2) const bool G_ALIGNED = true;
const uint TAPS = RUNS * KW;

layout(set = 0, binding = 0) writeonly buffer Partials { float partials[]; };  // [splits, rows, taps], [splits, rows]
layout(set = 0, binding = 1) uniform utextureBuffer g_texels;  // grad_out
layout(set = 0, binding = 2) uniform utextureBuffer x_texels;  // X, padded rows of a multiple of four

layout(push_constant) uniform Params {
  uint partial_first;   // partial's element (split 0, row 0, tap 0) in its window
  uint g_first;         // grad_out's element (0, 0, 0, 0) in its view
  uint rows;            // output channels
  uint out_h;
  uint out_w;
  uint row_blocks;      // blocks of TN per row of out: ceil(out_w / TN)
  uint blocks;          // batch · out_h · row_blocks
  uint splits;
  uint x_row_texels;    // texels per padded row
  uint x_plane_texels;  // texels per padded plane
  uint x_sample_texels;
  uint kernel_h;
  uint row_groups;      // groups of TM output channels
  uint run_groups;      // groups of RUNS runs: C · KH / RUNS
  uint taps;            // C · KH · KW
} p;

void main() {
  // Invocations take splits fastest, then groups of rows, then groups of runs.
  const uint invocation = gl_GlobalInvocationID.x;
  const uint split = invocation % p.splits;
  const uint group = invocation / p.splits;
  if (group >= p.row_groups * p.run_groups) return;
  const uint m0 = group % p.row_groups * TM;
  const uint run_group = group / p.row_groups;

  float acc[TM][TAPS];
  float bias_acc[TM];
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    bias_acc[i] = 0.0;
    [[unroll]] for (uint t = 0; t < TAPS; ++t) acc[i][t] = 0.0;
  }
  // Where each run starts in its sample: input channel c, kernel row kh.
  uint run_at[RUNS];
  [[unroll]] for (uint r = 0; r < RUNS; ++r) {
    const uint run = run_group * RUNS + r;
    run_at[r] = run / p.kernel_h * p.x_plane_texels + run % p.kernel_h * p.x_row_texels;
  }
  const uint texels = (TN + KW + 2u) / 4u;
  for (uint block = split; block < p.blocks; block += p.splits) {
    const uint x0 = block % p.row_blocks * TN;
    const uint y = block / p.row_blocks % p.out_h;
    const uint b = block / (p.row_blocks * p.out_h);
    float x[RUNS][4 * TEXELS];
    const uint block_at = b * p.x_sample_texels + y * p.x_row_texels + x0 / 4u;
    [[unroll]] for (uint r = 0; r < RUNS; ++r) {
      [[unroll]] for (uint t = 0; t < TEXELS; ++t) {
        const vec4 v = t < texels ? uintBitsToFloat(texelFetch(x_texels, int(block_at + run_at[r] + t))) : vec4(0.0);
        [[unroll]] for (uint e = 0; e < 4u; ++e) x[r][4u * t + e] = v[e];
      }
    }
    // G_ALIGNED: a last block of four outputs (rows of a multiple of four, not of eight) has no second
    // texel.
    const bool full = x0 + TN <= p.out_w;
    [[unroll]] for (uint i = 0; i < TM; ++i) {
      const uint m = min(m0 + i, p.rows - 1u);
      const uint g_start = p.g_first + ((b * p.rows + m) * p.out_h + y) * p.out_w + x0;
      float g[TN];
      if (G_ALIGNED) {
        const vec4 lo = uintBitsToFloat(texelFetch(g_texels, int(g_start >> 2)));
        const vec4 hi = full ? uintBitsToFloat(texelFetch(g_texels, int(g_start >> 2) + 1)) : vec4(0.0);
        g = float[](lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w);
      } else {
        // The block's 8 values from the texel at or below the first, `phase` elements into it; those
        // past the row (in its last block) are zeros.
        const int t = int(g_start >> 2), last = textureSize(g_texels) - 1;
        const uint phase = g_start & 3u;
        const vec4 t0 = uintBitsToFloat(texelFetch(g_texels, t));
        const vec4 t1 = uintBitsToFloat(texelFetch(g_texels, min(t + 1, last)));
        const vec4 t2 = uintBitsToFloat(texelFetch(g_texels, min(t + 2, last)));
        const float run[12] = float[](t0.x, t0.y, t0.z, t0.w, t1.x, t1.y, t1.z, t1.w, t2.x, t2.y, t2.z, t2.w);
        [[unroll]] for (uint j = 0; j < TN; ++j) {
          const float value = phase == 0u ? run[j] : phase == 1u ? run[j + 1u] : phase == 2u ? run[j + 2u] : run[j + 3u];
          g[j] = x0 + j < p.out_w ? value : 0.0;
        }
      }
      bias_acc[i] += ((g[0] + g[1]) + (g[2] + g[3])) + ((g[4] + g[5]) + (g[6] + g[7]));
      [[unroll]] for (uint r = 0; r < RUNS; ++r) {
        [[unroll]] for (uint kw = 0; kw < KW; ++kw) {
          float sum = acc[i][r * KW + kw];
          [[unroll]] for (uint j = 0; j < TN; ++j) sum = fma(g[j], x[r][kw + j], sum);
          acc[i][r * KW + kw] = sum;
        }
      }
    }
  }

  [[unroll]] for (uint i = 0; i < TM; ++i) {
    const uint m = m0 + i;
    if (m >= p.rows) continue;
    const uint at = p.partial_first + (split * p.rows + m) * p.taps;
    [[unroll]] for (uint t = 0; t < TAPS; ++t) partials[at + run_group * TAPS + t] = acc[i][t];
    if (run_group == 0u) partials[p.partial_first + p.splits * p.rows * p.taps + split * p.rows + m] = bias_acc[i];
  }
}
