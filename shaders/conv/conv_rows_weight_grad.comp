#version 450
// The weight and bias gradients of a stride-1, dilation-1 float32 convolution with few input channels
// (a network's first layer), for CPU drivers: partial[split, m, (c·KH + kh)·KW + kw] = Σ over this split's
// blocks of Σ over (b, y, x) of grad_out[b, m, y, x] · X[b, c, y + kh, x + kw], and partial[split, m, TAPS]
// = Σ grad_out[b, m, y, x], where X is the input's padded copy (conv_pad.comp). The reduce family sums the
// splits.
//
// Why: as a GEMM its results are few (32 × 9 for Fashion-MNIST's first layer) and its k long (the batch
// times the output plane, 50176), and the implicit-GEMM kernel gathers X one position at a time. Here an
// invocation walks blocks of 8 adjacent outputs of one row of out. Per block it fetches the X run of every
// (c, kh) once as whole texels, and per channel m grad_out's 8 values as two texels, and adds every
// product to its TM · (TAPS + 1) sums, which stay in the invocation until the end.

#define TN 8u
#define TM 8u
#define TEXELS 3u  // per run of TN + KW − 1 elements: KW up to 5

layout(local_size_x = 256) in;

layout(constant_id = 0) const uint RUNS = 3;  // C · KH, at most 3
layout(constant_id = 1) const uint KW = 3;
const uint TAPS = RUNS * KW;

layout(set = 0, binding = 0) writeonly buffer Partials { float partials[]; };  // [splits, rows, TAPS + 1]
layout(set = 0, binding = 1) uniform utextureBuffer g_texels;  // grad_out, rows of a multiple of four
layout(set = 0, binding = 2) uniform utextureBuffer x_texels;  // X, padded rows of a multiple of four

layout(push_constant) uniform Params {
  uint partial_first;   // partial's element (split 0, row 0, tap 0) in its window
  uint g_first;         // grad_out's texel (0, 0, 0, 0) in its view
  uint rows;            // output channels
  uint out_h;
  uint out_w;           // a multiple of four
  uint row_blocks;      // blocks of TN per row of out: ceil(out_w / TN)
  uint blocks;          // batch · out_h · row_blocks
  uint splits;
  uint x_row_texels;    // texels per padded row
  uint x_plane_texels;  // texels per padded plane
  uint x_sample_texels;
  uint kernel_h;
} p;

void main() {
  const uint split = gl_GlobalInvocationID.x;
  if (split >= p.splits) return;
  const uint m0 = gl_WorkGroupID.y * TM;
  const uint g_row_texels = p.out_w / 4u;

  float acc[TM][TAPS];
  float bias_acc[TM];
  for (uint i = 0; i < TM; ++i) {
    bias_acc[i] = 0.0;
    for (uint t = 0; t < TAPS; ++t) acc[i][t] = 0.0;
  }
  const uint texels = (TN + KW + 2u) / 4u;
  for (uint block = split; block < p.blocks; block += p.splits) {
    const uint x0 = block % p.row_blocks * TN;
    const uint y = block / p.row_blocks % p.out_h;
    const uint b = block / (p.row_blocks * p.out_h);
    // Every run of the block, as registers with constant indices (the loops over RUNS, TEXELS and KW
    // unroll), so that x stays out of memory.
    float x[RUNS][4 * TEXELS];
    for (uint r = 0; r < RUNS; ++r) {
      const uint c = r / p.kernel_h, kh = r % p.kernel_h;
      const uint at = b * p.x_sample_texels + c * p.x_plane_texels + (y + kh) * p.x_row_texels + x0 / 4u;
      for (uint t = 0; t < TEXELS; ++t) {
        const vec4 v = t < texels ? uintBitsToFloat(texelFetch(x_texels, int(at + t))) : vec4(0.0);
        for (uint e = 0; e < 4u; ++e) x[r][4u * t + e] = v[e];
      }
    }
    // A last block of four outputs (out_w a multiple of four, not of eight) has no second texel.
    const bool full = x0 + TN <= p.out_w;
    for (uint i = 0; i < TM; ++i) {
      const uint m = min(m0 + i, p.rows - 1u);
      const uint g_at = p.g_first + ((b * p.rows + m) * p.out_h + y) * g_row_texels + x0 / 4u;
      const vec4 lo = uintBitsToFloat(texelFetch(g_texels, int(g_at)));
      const vec4 hi = full ? uintBitsToFloat(texelFetch(g_texels, int(g_at + 1u))) : vec4(0.0);
      const float g[TN] = float[](lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w);
      bias_acc[i] += ((lo.x + lo.y) + (lo.z + lo.w)) + ((hi.x + hi.y) + (hi.z + hi.w));
      for (uint r = 0; r < RUNS; ++r) {
        for (uint kw = 0; kw < KW; ++kw) {
          float sum = acc[i][r * KW + kw];
          for (uint j = 0; j < TN; ++j) sum = fma(g[j], x[r][kw + j], sum);
          acc[i][r * KW + kw] = sum;
        }
      }
    }
  }

  for (uint i = 0; i < TM; ++i) {
    const uint m = m0 + i;
    if (m >= p.rows) break;
    const uint at = p.partial_first + (split * p.rows + m) * (TAPS + 1u);
    for (uint t = 0; t < TAPS; ++t) partials[at + t] = acc[i][t];
    partials[at + TAPS] = bias_acc[i];
  }
}
