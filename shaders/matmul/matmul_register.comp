#version 450
#extension GL_KHR_shader_subgroup_shuffle : enable
// Batched matmul without shared memory, for CPU drivers (lavapipe): each invocation keeps a TM×TN block
// of out in registers and reads A and B straight from memory.
//
// Why this shape: llvmpipe runs 8 invocations as one SIMD vector, but it loads storage buffers (and
// shared memory) one lane at a time, so loads, not FMAs, bound the kernel. Per k an invocation makes
// TM + TN loads for TM×TN FMAs: large blocks pay, even when their accumulators spill to the stack
// (measured: docs/PERFORMANCE.md, "Matmul"). Shared memory would add loads, not remove them.
//
// Pair loads halve the loads again: where an operand's elements are adjacent along one of its dims (and
// aligned, see the host), one 32-bit (float16, bfloat16) or 64-bit (float32) load fetches two of them:
// A_PAIRS / B_PAIRS say along which dim. Pairs along K step k by two; the host only asks for pairs when
// the paired dim has an even size. Float32 quads (below) take four elements per texel fetch.
//
// Shared A (SHARE_A): the 8 invocations of a subgroup work on the same rows, so each loads an eighth of a
// chunk of A's k and takes the rest from its neighbours with shuffles, which llvmpipe does in registers.
// The A loads per k drop from TM to TM / 8, and the block can be tall. Measured on lavapipe: 16×8 shared
// blocks ran 1.6-2.2× faster than the private ones (docs/PERFORMANCE.md, "Matmul").
//
// Invocation (r, c) owns rows r·TM + i and the columns 2·(c + lanes_n·jp) + e for j = 2·jp + e: pairs of
// adjacent columns (quads with QUADS_ALONG_COLS: 4·(c + lanes_n·jq) + e for j = 4·jq + e), and on a GPU,
// if the variant is forced there, neighbouring invocations read neighbouring pairs of a row-major B.
//
// Workgroup tile: (WORKGROUP_SIZE / lanes_n)·TM rows × lanes_n·TN columns; workgroup z is the batch.
// lanes_n, which shapes the tile to the matrix, is a push constant: it enters only index arithmetic done
// once per invocation, and as a specialization constant it would multiply the pipelines to compile.
layout(constant_id = 8) const uint ACTIVATION = 0;  // matmul_common.glsl's epilogue
// Invocations per workgroup (specialization constant 10), a multiple of lanes_n: the shared blocks run
// 64, so that small products still split into a workgroup per CPU thread.
layout(local_size_x = 256, local_size_x_id = 10) in;
#define REGISTER_WORKGROUP
#define WORKGROUP_SIZE gl_WorkGroupSize.x
#include "matmul_common.glsl"

layout(constant_id = 4) const uint TM = 8;       // even
layout(constant_id = 5) const uint TN = 8;       // even
layout(constant_id = 6) const uint A_PAIRS = 0;  // PAIRS_NONE, PAIRS_ALONG_K, PAIRS_ALONG_ROWS (M) or QUADS_ALONG_K
layout(constant_id = 7) const uint B_PAIRS = 0;  // PAIRS_NONE, PAIRS_ALONG_K, PAIRS_ALONG_COLS, QUADS_ALONG_COLS or
                                                 // QUADS_ALONG_K
layout(constant_id = 9) const uint SHARE_A = 0;  // 1: the subgroup shares A (float32 compute only)
// OUT_PAIRS: float32 out whose columns are adjacent, each pair of an invocation's columns starting on 8
// bytes (the host checks): the pair is stored as one 64-bit word. llvmpipe stores a storage buffer one
// lane at a time, so this halves the stores; the weight gradients of K = 64 ran 12-17% faster.
layout(constant_id = 11) const bool OUT_PAIRS = false;
#define PAIRS_NONE 0u
#define PAIRS_ALONG_K 1u
#define PAIRS_ALONG_ROWS 2u
#define PAIRS_ALONG_COLS 2u
// Four adjacent columns of a float32 B whose rows start on 16 bytes (N a multiple of four, the host
// checks): the texel variant fetches them as one texel, where pairs used half a texel per fetch. llvmpipe
// runs a texel fetch as a call, which also saves and restores the sums around it: a Linear's weight
// gradient (B = input, contiguous along N) spent about a quarter of its time there.
#define QUADS_ALONG_COLS 3u
// Quads along K, for the same reason, step k by four: float32 operands contiguous along K (a Linear's input
// and weight.t() in its forward), K a multiple of four. An operand that is not along K then loads single
// elements; the host never pairs one operand along K while quadding the other.
#define QUADS_ALONG_K 4u

const uint KSTEP = (A_PAIRS == QUADS_ALONG_K || B_PAIRS == QUADS_ALONG_K)   ? 4u
                   : (A_PAIRS == PAIRS_ALONG_K || B_PAIRS == PAIRS_ALONG_K) ? 2u
                                                                            : 1u;
// Steps 1 to 3 of a group along K, as indices that stay inside arrays of KSTEP where the group is shorter
// (the compiler checks constant indices against the declared sizes).
const uint STEP1 = KSTEP > 1u ? 1u : 0u, STEP2 = KSTEP > 2u ? 2u : 0u, STEP3 = KSTEP > 3u ? 3u : 0u;

// The operands once more as 64-bit words, for float32 pairs (typed_operands.glsl's widest view is a uvec2,
// which llvmpipe would load as two words).
layout(set = 0, binding = 1) readonly buffer a_pairs_block { uint64_t a_data_pairs64[]; };
layout(set = 0, binding = 2) readonly buffer b_pairs_block { uint64_t b_data_pairs64[]; };
layout(set = 0, binding = 0) writeonly buffer out_pairs_block { uint64_t out_pairs64[]; };

// TEXEL_READS (matmul_register_f32_texel): float32 pairs come from uvec4 texel views of A's and B's
// windows, half a texel each. llvmpipe fetches a texel for all lanes of a vector at once, where it loads
// a storage buffer lane by lane (docs/PERFORMANCE.md, "Matmul"). The host picks this variant only where
// both windows start on the texel alignment.
#if defined(TEXEL_READS)
layout(set = 0, binding = 4) uniform utextureBuffer a_data_texels;
layout(set = 0, binding = 5) uniform utextureBuffer b_data_texels;
// MATMUL_ROW_SUMS: Σ over k of A's rows, which a Linear's weight gradient (A = grad_outputᵀ) gives as its
// bias gradient. The shared blocks' lanes each load an eighth of A's k, so a lane adds up what it loaded
// and the subgroup adds its lanes at the end: a few additions per chunk of k instead of a reduction launch,
// which costs about 0.1 ms on lavapipe however small.
layout(set = 0, binding = 6) writeonly buffer row_sums_block { float row_sums[]; };
#define ROW_SUMS_IN_KERNEL 1
#define PAIR_WORDS(NAME, i) pair_from_texels(NAME##_texels, (i))
#else
#define PAIR_WORDS(NAME, i) unpack32(NAME##_pairs64[(i) >> 1])
#endif

// Elements i and i + 1 (i even) of an operand of dtype DT, as compute_t, through one load.
#define DEFINE_PAIR_LOAD(NAME, DT)                                                            \
  void NAME##_load_pair(uint i, out compute_t first, out compute_t second) {                 \
    if (DT == DT_F32) {                                                                      \
      const uvec2 words = PAIR_WORDS(NAME, i);                                               \
      first = compute_t(uintBitsToFloat(words.x));                                           \
      second = compute_t(uintBitsToFloat(words.y));                                          \
    } else if (DT == DT_F16 || DT == DT_BF16) {                                              \
      const uint word = NAME##_32[i >> 1];                                                   \
      first = compute_t(DT == DT_F16 ? half_bits_to_float(word & 0xffffu)                    \
                                     : bfloat16_bits_to_float(word & 0xffffu));              \
      second = compute_t(DT == DT_F16 ? half_bits_to_float(word >> 16)                       \
                                      : bfloat16_bits_to_float(word >> 16));                 \
    } else {                                                                                 \
      first = NAME##_load(i);                                                                \
      second = NAME##_load(i + 1u);                                                          \
    }                                                                                        \
  }
DEFINE_PAIR_LOAD(a_data, A_DT)
DEFINE_PAIR_LOAD(b_data, B_DT)

// The offset of this invocation's column j from its tile's first column, for `lanes` invocations along N:
// pairs (quads) of adjacent columns, the lanes side by side.
uint block_column(uint lane, uint lanes, uint j) {
  return B_PAIRS == QUADS_ALONG_COLS ? 4u * (lane + lanes * (j / 4u)) + j % 4u
                                     : 2u * (lane + lanes * (j / 2u)) + j % 2u;
}

// Elements i .. i + 3 (i a multiple of four) of a float32 operand: one texel, or two pairs.
#if defined(TEXEL_READS)
#define DEFINE_QUAD_LOAD(NAME)                                                                              \
  void NAME##_load_quad(uint i, out compute_t q0, out compute_t q1, out compute_t q2, out compute_t q3) {   \
    const vec4 quad = uintBitsToFloat(texelFetch(NAME##_texels, int(i >> 2)));                              \
    q0 = quad.x;                                                                                            \
    q1 = quad.y;                                                                                            \
    q2 = quad.z;                                                                                            \
    q3 = quad.w;                                                                                            \
  }
#else
#define DEFINE_QUAD_LOAD(NAME)                                                                              \
  void NAME##_load_quad(uint i, out compute_t q0, out compute_t q1, out compute_t q2, out compute_t q3) {   \
    NAME##_load_pair(i, q0, q1);                                                                            \
    NAME##_load_pair(i + 2u, q2, q3);                                                                       \
  }
#endif
DEFINE_QUAD_LOAD(a_data)
DEFINE_QUAD_LOAD(b_data)

// B's rows k .. k + KSTEP - 1 at this invocation's columns.
void load_b(uint b_index[TN], uint k, uint b_step, out compute_t b[KSTEP][TN]) {
  if (B_PAIRS == QUADS_ALONG_K) {
    for (uint j = 0; j < TN; ++j) b_data_load_quad(b_index[j] + k, b[0][j], b[STEP1][j], b[STEP2][j], b[STEP3][j]);
  } else if (B_PAIRS == PAIRS_ALONG_K) {
    for (uint j = 0; j < TN; ++j) b_data_load_pair(b_index[j] + k, b[0][j], b[STEP1][j]);
  } else {
    for (uint s = 0; s < KSTEP; ++s) {
      for (uint j = 0; j < TN; ++j) {
        if (B_PAIRS == QUADS_ALONG_COLS) {
          if (j % 4u == 0u) {
            b_data_load_quad(b_index[j] + (k + s) * b_step, b[s][j], b[s][j + 1u], b[s][j + 2u], b[s][j + 3u]);
          }
        } else if (B_PAIRS == PAIRS_ALONG_COLS) {
          if (j % 2u == 0u) b_data_load_pair(b_index[j] + (k + s) * b_step, b[s][j], b[s][j + 1u]);
        } else {
          b[s][j] = b_data_load(b_index[j] + (k + s) * b_step);
        }
      }
    }
  }
}

void main() {
  const uint batch = gl_WorkGroupID.z;
  const uint lanes = p.lanes_n;
  // Shared A needs each subgroup (8 invocations, the host checks) on the same rows: lanes_n is a multiple
  // of 8 then, and invocations are numbered subgroup by subgroup.
  const uint invocation =
      SHARE_A != 0u ? gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID : gl_LocalInvocationIndex;
  const uint lane = invocation % lanes;
  const uint m0 = gl_WorkGroupID.y * (WORKGROUP_SIZE / lanes * TM) + invocation / lanes * TM;
  const uint tile_n0 = gl_WorkGroupID.x * (lanes * TN);
  if (m0 >= p.M) return;  // the whole block is past the edge

  // Rows and columns past the edge read the last valid one (pair), so the k loop has no branches; their
  // results are never stored.
  const uint last_row = p.M - (A_PAIRS == PAIRS_ALONG_ROWS ? 2u : 1u);
  const uint last_col = p.N - (B_PAIRS == QUADS_ALONG_COLS ? 4u : B_PAIRS == PAIRS_ALONG_COLS ? 2u : 1u);
  uint a_index[TM];
  for (uint i = 0; i < TM; ++i) {
    // A pair along M starts at an even row; its second row is the next one whatever the clamp did.
    const uint row = (A_PAIRS == PAIRS_ALONG_ROWS && i % 2u == 1u) ? min(m0 + i - 1u, last_row) + 1u
                                                                   : min(m0 + i, last_row);
    a_index[i] = element_index(OP_A, batch, row, 0u);
  }
  uint b_index[TN];
  for (uint j = 0; j < TN; ++j) {
    // A pair (quad) along N starts where its first column would; clamped, it keeps its shape.
    const uint width = B_PAIRS == QUADS_ALONG_COLS ? 4u : B_PAIRS == PAIRS_ALONG_COLS ? 2u : 1u;
    const uint first = tile_n0 + block_column(lane, lanes, j - j % width);
    b_index[j] = element_index(OP_B, batch, 0u, min(first, last_col) + j % width);
  }
  compute_t acc[TM][TN];
  for (uint i = 0; i < TM; ++i) {
    for (uint j = 0; j < TN; ++j) acc[i][j] = compute_t(0);
  }

  const uint a_step = p.col_strides[OP_A];
  const uint b_step = p.row_strides[OP_B];
  uint k = 0;
#if defined(ROW_SUMS_IN_KERNEL)
  // One subgroup per block of rows sums them: the first along N of the first column tile.
  const bool sums_rows = SHARE_A != 0u && (p.flags & MATMUL_ROW_SUMS) != 0u && gl_WorkGroupID.x == 0u && lane < 8u;
  compute_t row_part[TM];
  for (uint i = 0; i < TM; ++i) row_part[i] = compute_t(0);
#endif
#if defined(COMPUTE_F32)
  if (SHARE_A != 0u) {
    // Chunks of 8·KSTEP k: each lane loads its eighth of the chunk's A, and the FMAs take every value
    // from the lane that loaded it. In the last chunk, lanes past K load the last element (pair, quad)
    // again, which no step uses.
    const uint sub = gl_SubgroupInvocationID;
    for (; k < p.K; k += 8u * KSTEP) {
      compute_t a_part[4][TM];
      for (uint i = 0; i < TM; ++i) {
        if (A_PAIRS == QUADS_ALONG_K) {
          a_data_load_quad(a_index[i] + min(k + 4u * sub, p.K - 4u), a_part[0][i], a_part[1][i], a_part[2][i],
                           a_part[3][i]);
        } else if (A_PAIRS == PAIRS_ALONG_K) {
          a_data_load_pair(a_index[i] + min(k + 2u * sub, p.K - 2u), a_part[0][i], a_part[1][i]);
        } else {
          for (uint t = 0; t < KSTEP; ++t) {
            const uint a_at = a_index[i] + min(k + 8u * t + sub, p.K - 1u) * a_step;
            if (A_PAIRS == PAIRS_ALONG_ROWS) {
              if (i % 2u == 0u) a_data_load_pair(a_at, a_part[t][i], a_part[t][i + 1u]);
            } else {
              a_part[t][i] = a_data_load(a_at);
            }
          }
        }
      }
#if defined(ROW_SUMS_IN_KERNEL)
      if (sums_rows) {
        // Lanes past K loaded the last element (pair, quad) again: only the k below K count.
        for (uint t = 0; t < KSTEP; ++t) {
          const bool inside = A_PAIRS == QUADS_ALONG_K   ? k + 4u * sub < p.K
                              : A_PAIRS == PAIRS_ALONG_K ? k + 2u * sub < p.K
                                                         : k + 8u * t + sub < p.K;
          for (uint i = 0; i < TM; ++i) row_part[i] += inside ? a_part[t][i] : compute_t(0);
        }
      }
#endif
      // A bound llvmpipe's compiler cannot see through: unrolled (with constant lanes), the loop compiled
      // slower and ran slower. subgroupBroadcast from the same lanes ran 1.7× slower than the shuffles.
      const uint steps = min(8u, (p.K - k) / KSTEP);
      for (uint step = 0; step < steps; ++step) {
        compute_t b[KSTEP][TN];
        load_b(b_index, k + KSTEP * step, b_step, b);
        for (uint t = 0; t < KSTEP; ++t) {
          // A's element (row i, k + f) sits in lane f / 4, slot f % 4 for quads along K, lane f / 2, slot
          // f % 2 for pairs, else in lane f % 8, slot f / 8.
          const uint f = KSTEP * step + t;
          for (uint i = 0; i < TM; ++i) {
            const compute_t a = A_PAIRS == QUADS_ALONG_K   ? subgroupShuffle(a_part[f % 4u][i], f / 4u)
                                : A_PAIRS == PAIRS_ALONG_K ? subgroupShuffle(a_part[f % 2u][i], f / 2u)
                                                           : subgroupShuffle(a_part[f / 8u][i], f % 8u);
            for (uint j = 0; j < TN; ++j) acc[i][j] = MULTIPLY_ADD(a, b[t][j], acc[i][j]);
          }
        }
      }
    }
  }
#endif
  // The private blocks' k loop (a pipeline has either this or the shared one).
  for (; SHARE_A == 0u && k < p.K; k += KSTEP) {
    compute_t a[KSTEP][TM];
    if (A_PAIRS == QUADS_ALONG_K) {
      for (uint i = 0; i < TM; ++i) a_data_load_quad(a_index[i] + k, a[0][i], a[STEP1][i], a[STEP2][i], a[STEP3][i]);
    } else if (A_PAIRS == PAIRS_ALONG_K) {
      for (uint i = 0; i < TM; ++i) a_data_load_pair(a_index[i] + k, a[0][i], a[STEP1][i]);
    } else {
      for (uint s = 0; s < KSTEP; ++s) {
        for (uint i = 0; i < TM; ++i) {
          if (A_PAIRS == PAIRS_ALONG_ROWS) {
            if (i % 2u == 0u) a_data_load_pair(a_index[i] + (k + s) * a_step, a[s][i], a[s][i + 1u]);
          } else {
            a[s][i] = a_data_load(a_index[i] + (k + s) * a_step);
          }
        }
      }
    }
    compute_t b[KSTEP][TN];
    load_b(b_index, k, b_step, b);
    for (uint s = 0; s < KSTEP; ++s) {
      for (uint i = 0; i < TM; ++i) {
        for (uint j = 0; j < TN; ++j) acc[i][j] = MULTIPLY_ADD(a[s][i], b[s][j], acc[i][j]);
      }
    }
  }

  // The epilogue, its index arithmetic hoisted out of the TM×TN results: out's and bias's element
  // (m0 + i, cols[j]) sit at a row base plus a column offset, and a block wholly inside out skips the edge
  // tests. Measured on lavapipe: the weight gradient 256×64×784, whose short K makes the epilogue weigh,
  // went from 14.3-14.7 to 16.0-17.3 GFLOP/s; the other shapes stayed within the noise.
  uint cols[TN], out_cols[TN], bias_cols[TN];
  for (uint j = 0; j < TN; ++j) {
    cols[j] = tile_n0 + block_column(lane, lanes, j);
    out_cols[j] = cols[j] * p.col_strides[OP_OUT];
    bias_cols[j] = cols[j] * p.col_strides[OP_BIAS];
  }
  const uint out_rows = p.row_strides[OP_OUT], bias_rows = p.row_strides[OP_BIAS];
  const uint out_base = p.offsets[OP_OUT] + batch * p.batch_strides[OP_OUT] + m0 * out_rows;
  const uint bias_base = p.offsets[OP_BIAS] + batch * p.batch_strides[OP_BIAS] + m0 * bias_rows;
  const bool whole = m0 + TM <= p.M && cols[TN - 1u] < p.N;  // cols[TN - 1] is the block's last column
#if defined(ROW_SUMS_IN_KERNEL)
  if (sums_rows) {
    for (uint i = 0; i < TM; ++i) {
      compute_t total = row_part[i];
      for (uint distance = 1u; distance < 8u; distance *= 2u) total += subgroupShuffleXor(total, distance);
      if (gl_SubgroupInvocationID == 0u && m0 + i < p.M) {
        row_sums[p.row_sums_offset + batch * p.row_sums_strides.x + (m0 + i) * p.row_sums_strides.y] = total;
      }
    }
  }
#endif
#if defined(COMPUTE_F32)
  if (OUT_PAIRS) {
    for (uint i = 0; i < TM; ++i) {
      if (m0 + i >= p.M) break;
      for (uint j = 0; j < TN; j += 2u) {
        if (cols[j] >= p.N) break;
        const uint at = out_base + i * out_rows + out_cols[j];
        const float first = epilogue(acc[i][j], bias_base + i * bias_rows + bias_cols[j]);
        if (cols[j + 1u] < p.N) {
          const float second = epilogue(acc[i][j + 1u], bias_base + i * bias_rows + bias_cols[j + 1u]);
          out_pairs64[at >> 1] = pack64(uvec2(floatBitsToUint(first), floatBitsToUint(second)));
        } else {
          out_data_store(at, first);  // the last column of an odd N
        }
      }
    }
    return;
  }
#endif
  for (uint i = 0; i < TM; ++i) {
    if (!whole && m0 + i >= p.M) break;
    for (uint j = 0; j < TN; ++j) {
      if (whole || cols[j] < p.N) {
        const compute_t value = epilogue(acc[i][j], bias_base + i * bias_rows + bias_cols[j]);
        out_data_store(out_base + i * out_rows + out_cols[j], value);
      }
    }
  }
}
