#version 450
// Depthwise convolution (groups == in channels, out channels = multiplier · in channels), directly: no
// GEMM. Grouped implicit GEMM has k = kernel area there (9 for 3×3), too short for its register blocks to
// pay for their gathered loads; here each invocation reads its channel's taps once and slides them over
// a few adjacent positions of one plane. Shapes and operands as conv_common.glsl has them (A the weight,
// B the input or grad_output; the weight gradient: A grad_output, B the input).
//
//   CONV_FORWARD      out[b, co, o]  = Σ_k w[co, k] · in[b, co / mult, o·stride − pad + k·dil] (+ bias[co])
//   CONV_INPUT_GRAD   out[b, ci, i]  = Σ_{j < mult, k} w[ci·mult + j, k] · go[b, ci·mult + j, o],
//                                      o·stride = i + pad − k·dil (+ bias[ci])
//   CONV_WEIGHT_GRAD  out[split, co·K + k] = Σ over this split's rows (b, o-row) and their positions of
//                                      go[b, co, o] · in[b, co / mult, o·stride − pad + k·dil]
//
// Forward and input gradient: invocation = POSITIONS adjacent positions along the last spatial dim of one
// (sample, channel, row) — the rows of a plane being its first two spatial dims. Weight gradient: one
// workgroup per (co, tap) and split (z); its invocations stride over the split's rows and sum in shared
// memory. Every loop counts taps or positions (the host keeps them inside llvmpipe's 65535 iterations).
#include "conv_common.glsl"

layout(constant_id = 4) const uint POSITIONS = 4;
// Values of one row kept in registers (the forward's inputs, the input gradient's grad_output at stride
// 1): POSITIONS at stride 2 with 5 taps fit.
const uint WINDOW = 2u * POSITIONS + 8u;

uint invocation_id() {
  return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * WORKGROUP_SIZE + gl_LocalInvocationIndex;
}

#if defined(CONV_FORWARD) || defined(CONV_INPUT_GRAD)
void main() {
  const uvec3 I = in_sizes();
  const uvec3 O = out_sizes();
  const uvec3 KS = kernel_sizes();
  const ivec3 S = strides3();
  const ivec3 P = padding3();
  const ivec3 D = dilation3();
  const uint mult = p.out_channels / p.in_channels;
#if defined(CONV_FORWARD)
  const uvec3 here = O;    // the positions this direction writes
  const uvec3 there = I;   // the positions it reads
  const uint channels = p.out_channels;
  const uint read_channels = p.in_channels;
#else
  const uvec3 here = I;
  const uvec3 there = O;
  const uint channels = p.in_channels;
  const uint read_channels = p.out_channels;
#endif
  const uint blocks = (here.z + POSITIONS - 1u) / POSITIONS;
  const uint rows = here.x * here.y;
  uint id = invocation_id();
  if (id >= p.batch * channels * rows * blocks) return;
  const uint x0 = (id % blocks) * POSITIONS;
  id /= blocks;
  const uint row = id % rows;
  id /= rows;
  const uint c = id % channels;
  const uint b = id / channels;
  const ivec2 row_pos = ivec2(row / here.y, row % here.y);
  const uint kernel = KS.x * KS.y * KS.z;

  compute_t acc[POSITIONS];
  for (uint q = 0; q < POSITIONS; ++q) acc[q] = compute_t(0);

#if defined(CONV_FORWARD)
  const uint read_base = p.offsets[OP_B] + (b * read_channels + c / mult) * (there.x * there.y * there.z);
  const uint w_base = p.offsets[OP_A] + c * kernel;
  for (uint kz = 0; kz < KS.x; ++kz) {
    const int iz = row_pos.x * S.x - P.x + int(kz) * D.x;
    if (uint(iz) >= there.x) continue;
    for (uint ky = 0; ky < KS.y; ++ky) {
      const int iy = row_pos.y * S.y - P.y + int(ky) * D.y;
      if (uint(iy) >= there.y) continue;
      const uint line = read_base + (uint(iz) * there.y + uint(iy)) * there.z;
      // The positions' taps along x read `span` consecutive inputs: load each once (llvmpipe pays per
      // load, and at stride 1 the taps of adjacent positions overlap), where they fit the registers.
      const int first_x = int(x0) * S.z - P.z;
      const uint span = (POSITIONS - 1u) * uint(S.z) + (KS.z - 1u) * uint(D.z) + 1u;
      if (span <= WINDOW) {
        compute_t window[WINDOW];
        for (uint e = 0; e < span; ++e) {
          const int ix = first_x + int(e);
          window[e] = uint(ix) < there.z ? b_data_load(line + uint(ix)) : compute_t(0);
        }
        for (uint kx = 0; kx < KS.z; ++kx) {
          const compute_t w = a_data_load(w_base + (kz * KS.y + ky) * KS.z + kx);
          for (uint q = 0; q < POSITIONS; ++q) acc[q] = fma(w, window[q * uint(S.z) + kx * uint(D.z)], acc[q]);
        }
        continue;
      }
      for (uint kx = 0; kx < KS.z; ++kx) {
        const compute_t w = a_data_load(w_base + (kz * KS.y + ky) * KS.z + kx);
        const int ix0 = int(x0) * S.z - P.z + int(kx) * D.z;
        for (uint q = 0; q < POSITIONS; ++q) {
          const int ix = ix0 + int(q) * S.z;
          if (uint(ix) < there.z) acc[q] = fma(w, b_data_load(line + uint(ix)), acc[q]);
        }
      }
    }
  }
#else
  for (uint j = 0; j < mult; ++j) {
    const uint co = c * mult + j;
    const uint read_base = p.offsets[OP_B] + (b * read_channels + co) * (there.x * there.y * there.z);
    const uint w_base = p.offsets[OP_A] + co * kernel;
    for (uint kz = 0; kz < KS.x; ++kz) {
      const int tz = row_pos.x + P.x - int(kz) * D.x;
      if (tz < 0 || tz % S.x != 0 || uint(tz / S.x) >= there.x) continue;
      for (uint ky = 0; ky < KS.y; ++ky) {
        const int ty = row_pos.y + P.y - int(ky) * D.y;
        if (ty < 0 || ty % S.y != 0 || uint(ty / S.y) >= there.y) continue;
        const uint line = read_base + (uint(tz / S.x) * there.y + uint(ty / S.y)) * there.z;
        // Stride 1 along x: the positions' taps read `span` consecutive outputs, loaded once each.
        const int first_x = int(x0) + P.z - int(KS.z - 1u) * D.z;
        const uint span = POSITIONS + (KS.z - 1u) * uint(D.z);
        if (S.z == 1 && span <= WINDOW) {
          compute_t window[WINDOW];
          for (uint e = 0; e < span; ++e) {
            const int ox = first_x + int(e);
            window[e] = uint(ox) < there.z ? b_data_load(line + uint(ox)) : compute_t(0);
          }
          for (uint kx = 0; kx < KS.z; ++kx) {
            const compute_t w = a_data_load(w_base + (kz * KS.y + ky) * KS.z + kx);
            const uint shift = (KS.z - 1u - kx) * uint(D.z);
            for (uint q = 0; q < POSITIONS; ++q) acc[q] = fma(w, window[q + shift], acc[q]);
          }
          continue;
        }
        for (uint kx = 0; kx < KS.z; ++kx) {
          const compute_t w = a_data_load(w_base + (kz * KS.y + ky) * KS.z + kx);
          const int tx0 = int(x0) + P.z - int(kx) * D.z;
          for (uint q = 0; q < POSITIONS; ++q) {
            const int tx = tx0 + int(q);
            if (tx >= 0 && tx % S.z == 0 && uint(tx / S.z) < there.z) {
              acc[q] = fma(w, b_data_load(line + uint(tx / S.z)), acc[q]);
            }
          }
        }
      }
    }
  }
#endif

  const uint out_base = p.offsets[OP_OUT] + (b * channels + c) * (here.x * here.y * here.z) + row * here.z;
  const compute_t bias = (p.flags & CONV_HAS_BIAS) != 0u ? bias_data_load(p.offsets[OP_BIAS] + c) : compute_t(0);
  for (uint q = 0; q < POSITIONS; ++q) {
    if (x0 + q < here.z) out_data_store(out_base + x0 + q, conv_epilogue(acc[q] + bias));
  }
}

#else  // CONV_WEIGHT_GRAD

shared compute_t sums[WORKGROUP_SIZE];

void main() {
  const uvec3 I = in_sizes();
  const uvec3 O = out_sizes();
  const uvec3 KS = kernel_sizes();
  const ivec3 S = strides3();
  const ivec3 P = padding3();
  const ivec3 D = dilation3();
  const uint mult = p.out_channels / p.in_channels;
  const uint kernel = KS.x * KS.y * KS.z;
  const uint entry = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;  // co · kernel + tap
  const bool in_weight = entry < p.out_channels * kernel;
  const uint co = min(entry / kernel, p.out_channels - 1u);
  const uvec3 k = coordinates(entry % kernel, KS);
  const uint ci = co / mult;
  const uint t = gl_LocalInvocationIndex;

  // Rows are (sample, out z, out y); this split sums rows [first, last).
  const uint rows_per_sample = O.x * O.y;
  const uint first = gl_WorkGroupID.z * p.k_per_split;
  const uint last = min(p.batch * rows_per_sample, first + p.k_per_split);
  // The output x positions whose input x falls inside: ix = ox·S − P + k·D in [0, I.z).
  const int shift = int(k.z) * D.z - P.z;
  const int lo = shift >= 0 ? 0 : (-shift + S.z - 1) / S.z;
  const int hi = min(int(O.z), int(I.z) - 1 - shift >= 0 ? (int(I.z) - 1 - shift) / S.z + 1 : 0);
  compute_t acc = compute_t(0);
  if (in_weight) {
    for (uint r = first + t; r < last; r += WORKGROUP_SIZE) {
      const uint b = r / rows_per_sample;
      const uint orow = r % rows_per_sample;
      const int oz = int(orow / O.y);
      const int oy = int(orow % O.y);
      const int iz = oz * S.x - P.x + int(k.x) * D.x;
      const int iy = oy * S.y - P.y + int(k.y) * D.y;
      if (uint(iz) >= I.x || uint(iy) >= I.y) continue;
      const uint go_line = p.offsets[OP_A] + ((b * p.out_channels + co) * rows_per_sample + orow) * O.z;
      const uint in_line = p.offsets[OP_B] + ((b * p.in_channels + ci) * I.x + uint(iz)) * I.y * I.z + uint(iy) * I.z;
      for (int ox = lo; ox < hi; ++ox) {
        acc = fma(a_data_load(go_line + uint(ox)), b_data_load(in_line + uint(ox * S.z + shift)), acc);
      }
    }
  }
  sums[t] = acc;
  barrier();
  for (uint half_size = WORKGROUP_SIZE / 2u; half_size > 0u; half_size /= 2u) {
    if (t < half_size) sums[t] += sums[t + half_size];
    barrier();
  }
  if (t == 0u && in_weight) {
    compute_t total = sums[0];
    // Never set by the host here; it keeps the bias binding in the module, as every conv shader has it.
    if ((p.flags & CONV_HAS_BIAS) != 0u) total += bias_data_load(p.offsets[OP_BIAS] + entry);
    out_data_store(p.offsets[OP_OUT] + gl_WorkGroupID.z * (p.out_channels * kernel) + entry, total);
  }
}

#endif
