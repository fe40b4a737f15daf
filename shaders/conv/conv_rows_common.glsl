// What the row kernels (conv_rows.comp, conv_rows_few.comp) share: their bindings but A's, push constants
// (conv_rows.cpp's RowsParams), the fetch of a run of X and the stores. The including shader declares
// the specialization constants KW and WORD_STORES, X_LEAD, and x_texel.
//
// X is the gathered operand's padded copy (conv_pad.comp): its rows hold a multiple of four elements and
// enough columns for every block, so a block's run of TN + KW − 1 elements of a row starts on a texel and
// needs no bounds test (X_LEAD 0). conv_rows_few.comp may read the source itself instead, whose rows
// start on texels too: a run then starts X_LEAD elements into its first texel.

#define TN 8u          // adjacent outputs of a row per block
#define MAX_TEXELS 4u  // per run of TN + KW − 1 elements: KW up to 9

layout(set = 0, binding = 0) buffer OutData { float out_data[]; };
layout(set = 0, binding = 0) buffer OutWords { uvec4 out_words[]; };
layout(set = 0, binding = 2) uniform utextureBuffer x_texels;
layout(set = 0, binding = 3) readonly buffer BiasData { float bias_data[]; };

layout(push_constant) uniform Params {
  uint out_first;      // out's element (sample 0, channel 0, 0, 0) in its window
  uint bias_first;     // the bias of channel 0 in its window
  uint a_first;        // A's element (row 0, the launch's first channel, 0, 0) in its view
  uint x_first;        // X's texel (sample 0, the launch's first channel, 0, 0) in its view
  uint batch;
  uint rows;           // channels of out
  uint channels;       // channels of X this launch sums
  uint out_h;
  uint out_w;
  uint row_blocks;     // blocks of TN per row of out: ceil(out_w / TN)
  uint x_row_texels;   // texels per padded row
  uint x_plane_texels; // texels per padded plane
  uint x_sample_texels;
  int a_stride_m;
  int a_stride_c;
  int a_stride_h;
  int a_stride_w;
  uint kernel_h;
  uint flags;          // CONV_ROWS_BIAS, CONV_ROWS_ACCUMULATE, CONV_ROWS_RELU
  // X is the source itself (conv_rows_few.comp's DIRECT): its rows, and out's position (0, 0) at source
  // position (−shift_y, −shift_x).
  uint source_h;
  int shift_y;
  int shift_x;
} p;

#define CONV_ROWS_BIAS 1u
#define CONV_ROWS_ACCUMULATE 2u
#define CONV_ROWS_RELU 4u

// The run of X whose first texel is `at` (x_texel's texel k of it, which the including shader defines;
// `row_in`: whether the run's row exists), as a float x[] with constant indices: kw is spelled out in the
// kernels' TAP rather than looped over, so that every x[X_LEAD + kw + j] has a constant index, which keeps
// x out of memory.
#define FETCH_RUN(at, row_in)                                                                          \
  const vec4 t0 = x_texel(at, 0u, row_in);                                                            \
  const vec4 t1 = x_texel(at, 1u, row_in);                                                            \
  const vec4 t2 = (X_LEAD + TN + KW + 2u) / 4u > 2u ? x_texel(at, 2u, row_in) : vec4(0.0);            \
  const vec4 t3 = (X_LEAD + TN + KW + 2u) / 4u > 3u ? x_texel(at, 3u, row_in) : vec4(0.0);            \
  const float x[4 * MAX_TEXELS] = float[](t0.x, t0.y, t0.z, t0.w, t1.x, t1.y, t1.z, t1.w,           \
                                           t2.x, t2.y, t2.z, t2.w, t3.x, t3.y, t3.z, t3.w);
// Adds kernel column kw's product for output j of the block to `sum`; a##kw is the column's value of A.
#define TAP(kw) if (KW > uint(kw)) sum = fma(a##kw, x[X_LEAD + uint(kw) + j], sum);

// Stores the first `columns` of `sums` at out's element `at`, for channel m of out, with the bias, the
// sum of earlier launches and relu as p.flags asks. WORD_STORES: each run of four outputs as one uvec4
// (the host asks for it where rows of out hold a multiple of four elements and out's window starts on a
// word); llvmpipe stores a storage buffer one lane at a time, so a 16-byte store costs what a 4-byte one
// does.
void store_block(uint at, uint columns, uint m, float sums[TN]) {
  const float bias = (p.flags & CONV_ROWS_BIAS) != 0u ? bias_data[p.bias_first + m] : 0.0;
  if (WORD_STORES) {
    for (uint j = 0; j < TN; j += 4u) {
      if (j >= columns) break;
      vec4 value = vec4(sums[j], sums[j + 1u], sums[j + 2u], sums[j + 3u]) + bias;
      if ((p.flags & CONV_ROWS_ACCUMULATE) != 0u) value += uintBitsToFloat(out_words[(at + j) >> 2]);
      if ((p.flags & CONV_ROWS_RELU) != 0u) {
        for (uint e = 0; e < 4u; ++e) {
          if (!(isnan(value[e]) || value[e] > 0.0)) value[e] = 0.0;
        }
      }
      out_words[(at + j) >> 2] = floatBitsToUint(value);
    }
    return;
  }
  for (uint j = 0; j < TN; ++j) {
    if (j >= columns) break;
    float value = sums[j] + bias;
    if ((p.flags & CONV_ROWS_ACCUMULATE) != 0u) value += out_data[at + j];
    // relu keeps NaN, as torch.relu does.
    if ((p.flags & CONV_ROWS_RELU) != 0u && !(isnan(value) || value > 0.0)) value = 0.0;
    out_data[at + j] = value;
  }
}
