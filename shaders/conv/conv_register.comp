#version 450
#extension GL_KHR_shader_subgroup_shuffle : enable
// Convolution as an implicit GEMM without shared memory, for CPU drivers (lavapipe), in the manner of
// matmul_register.comp: each invocation keeps a TM×TN block of out in registers and reads A and the
// gathered B straight from memory, because llvmpipe loads one lane at a time and shared memory only adds
// loads. The direction (conv_common.glsl) is a define.
//
// What a gathered load costs beyond a plain one is kept out of the k loop where it can be: each column
// is decomposed once (its plane in B, and its position), and k is walked with counters, not divisions,
// so per k and column there are an add per spatial dim, a bounds test and the load. The input gradient
// with a stride above one also needs a divisibility test (UNIT_STRIDE leaves it out).
//
// Invocation (r, c) owns rows r·TM + i and the TN consecutive columns from c·TN; the workgroup tile is
// (WORKGROUP_SIZE / lanes)·TM rows × lanes·TN columns, workgroup z the group (and the split of K).
//
// With A_UNIFORM (conv_uniform_*), A comes through a uniform buffer (conv_common.glsl) and every
// invocation of a workgroup shares its TM rows, which the workgroup's y alone chooses; the workgroup
// tile is TM rows × WORKGROUP_SIZE·TN columns, and a launch covers rows [row_first, + row_count).
#include "conv_common.glsl"

layout(constant_id = 4) const uint TM = 8;
layout(constant_id = 5) const uint TN = 8;
layout(constant_id = 6) const bool SPATIAL3 = false;  // dim 0 of the three spatial dims is in use
layout(constant_id = 7) const bool UNIT_STRIDE = false;  // every stride is 1 (read by the input gradient)
// WORD_STORES (the forward and the input gradient, float32): each run of four columns of a row is
// stored as one uvec4. The host asks for it where every run lies in one plane of out and starts on a
// word: TN a multiple of four, out's planes of a multiple of four elements, out's window starting on a
// word. llvmpipe stores a storage buffer one lane at a time, so one 16-byte store costs what a 4-byte
// one does: the first layer of the Fashion-MNIST CNN (32 × 9 × 50176), whose K is short, ran 32% faster.
layout(constant_id = 9) const bool WORD_STORES = false;
layout(set = 0, binding = 0) writeonly buffer OutWords { uvec4 out_words[]; };
layout(set = 0, binding = 3) readonly buffer AccumulatedWords { uvec4 accumulated_words[]; };
#if !defined(A_UNIFORM)
// SHARE_A: the 8 invocations of a subgroup share their rows, and each loads an eighth of A's chunk of k
// (as matmul_register.comp's SHARE_A); float32 compute, subgroups of 8 with shuffles (the host checks).
layout(constant_id = 8) const uint SHARE_A = 0;
#endif

// Whether `pos` lies inside `size` (negative coordinates wrap to large unsigned ones).
bool inside(ivec3 pos, uvec3 size) {
  bool in_plane = uint(pos.y) < size.y && uint(pos.z) < size.z;
  return SPATIAL3 ? in_plane && uint(pos.x) < size.x : in_plane;
}

// TEXEL_READS (the *_f32_texel variants): float32 B comes from a uvec4 texel view of its window (binding 4),
// which llvmpipe fetches for all lanes of a vector at once, where it loads a storage buffer lane by lane
// behind a branch each; so does a float32 A of the storage-buffer kernel (binding 5). The host takes
// these variants where both windows start on the texel alignment.
#if defined(TEXEL_READS)
layout(set = 0, binding = 4) uniform utextureBuffer b_texels;
compute_t gathered_b(uint i) {
  if (B_DT != DT_F32) return b_data_load(i);
  return compute_t(float_from_texels(b_texels, i));
}
#if !defined(A_UNIFORM)
layout(set = 0, binding = 5) uniform utextureBuffer a_texels;
compute_t a_value(uint i) {
  if (A_DT != DT_F32) return a_data_load(i);
  return compute_t(float_from_texels(a_texels, i));
}
#endif
#else
compute_t gathered_b(uint i) { return b_data_load(i); }
#endif
#if defined(A_UNIFORM) || !defined(TEXEL_READS)
compute_t a_value(uint i) { return a_data_load(i); }
#endif

uint plane_offset(ivec3 pos, uvec3 size) {
  const uint row = SPATIAL3 ? uint(pos.x) * size.y + uint(pos.y) : uint(pos.y);
  return row * size.z + uint(pos.z);
}

// B's values at this invocation's columns for the current k (its plane at b_off, kernel or output
// position kpos); positions outside B read as zero.
// `ones` has bit j set where column j is the weight gradient's bias column, whose B is 1.
void gather_b(uint col_base[TN], ivec3 col_pos[TN], uint ones, ivec3 kpos, uint b_off, out compute_t b[TN]) {
  const uvec3 I = in_sizes();
  const uvec3 O = out_sizes();
  for (uint j = 0; j < TN; ++j) {
#if defined(CONV_INPUT_GRAD)
    // The output position o with o·stride = i + padding − k·dilation, if there is one.
    ivec3 t = col_pos[j] - kpos;
    bool ok;
    if (UNIT_STRIDE) {
      ok = inside(t, O);
    } else {
      const ivec3 S = strides3();
      ok = t.x >= 0 && t.y >= 0 && t.z >= 0 && t.x % S.x == 0 && t.y % S.y == 0 && t.z % S.z == 0;
      t /= S;
      ok = ok && inside(t, O);
    }
    const uint index = col_base[j] + b_off + (ok ? plane_offset(t, O) : 0u);
#else
    const ivec3 pos = col_pos[j] + kpos;
    const bool ok = inside(pos, I);
    const uint index = col_base[j] + b_off + (ok ? plane_offset(pos, I) : 0u);
#endif
    const compute_t value = gathered_b(index);
    b[j] = ok ? value : compute_t(0);
#if defined(CONV_WEIGHT_GRAD)
    if ((ones & (1u << j)) != 0u) b[j] = compute_t(1);
#endif
  }
}

// The next k: v steps through V row-major (kpos with it, by kscale), and past V's end u steps, moving A
// by a_u and B by b_u.
void next_k(uvec3 V, ivec3 kscale, uint a_u, uint v_volume, uint b_u, inout uvec3 v, inout ivec3 kpos,
            inout uint a_off, inout uint b_off) {
  ++a_off;
  ++v.z;
  kpos.z += kscale.z;
  if (v.z == V.z) {
    v.z = 0u;
    kpos.z = 0;
    ++v.y;
    kpos.y += kscale.y;
    if (v.y == V.y) {
      v.y = 0u;
      kpos.y = 0;
      ++v.x;
      kpos.x += kscale.x;
      if (v.x == V.x) {
        v.x = 0u;
        kpos.x = 0;
        a_off += a_u - v_volume;
        b_off += b_u;
      }
    }
  }
}

void main() {
  const uint lanes = lanes_n();
  const uint g = gl_WorkGroupID.z % p.groups;
  const uint split = gl_WorkGroupID.z / p.groups;
  const uint M = gemm_m();
  const uint N = out_columns();
  const uint K = gemm_k();
#if defined(A_UNIFORM)
  const uint m0 = p.row_first + gl_WorkGroupID.y * TM;
  const uint n0 = (gl_WorkGroupID.x * WORKGROUP_SIZE + gl_LocalInvocationIndex) * TN;
  const uint last_row = p.row_first + p.row_count - 1u;
  const uint a_origin = p.offsets[OP_A] - p.a_base;  // A's element e is the window's element a_origin + e
#else
  // Shared A needs each subgroup on the same rows: lanes is a multiple of 8 then, and invocations are
  // numbered subgroup by subgroup.
  const uint invocation =
      SHARE_A != 0u ? gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID : gl_LocalInvocationIndex;
  const uint m0 = gl_WorkGroupID.y * (WORKGROUP_SIZE / lanes * TM) + invocation / lanes * TM;
  const uint n0 = (gl_WorkGroupID.x * lanes + invocation % lanes) * TN;
  const uint last_row = M - 1u;
  const uint a_origin = p.offsets[OP_A];
#endif
#if defined(A_UNIFORM)
  if (m0 > last_row || n0 >= N) return;
#else
  // A subgroup sharing A stays whole to the end: its invocations past N compute the last column, unless
  // the whole subgroup is past N.
  const uint subgroup_n0 = (gl_WorkGroupID.x * lanes + invocation % lanes / 8u * 8u) * TN;
  if (m0 > last_row || (SHARE_A == 0u ? n0 >= N : subgroup_n0 >= N)) return;
#endif

  const uvec3 I = in_sizes();
  const uvec3 O = out_sizes();
  const uvec3 KS = kernel_sizes();
  const ivec3 S = strides3();
  const ivec3 P = padding3();
  const ivec3 D = dilation3();
  const uint cin_g = in_per_group();
  const uint cout_g = out_per_group();

  // Per column: the start of its plane in B, its part of the gathered position, and where it is stored.
  uint col_base[TN];
  ivec3 col_pos[TN];
  uint out_index[TN];
#if defined(CONV_FORWARD) || defined(CONV_INPUT_GRAD)
  // Columns are (sample, position) in row-major order: the first is found by divisions and the others
  // step from it with carries. llvmpipe divides lane by lane, and with a short K (the first layer's 9)
  // the divisions of every column weighed as much as the k loop. Columns past N repeat the last one.
#if defined(CONV_FORWARD)
  const uvec3 C = O;
  const uint b_per_sample = p.in_channels * (I.x * I.y * I.z);
  const uint b_group = g * cin_g * (I.x * I.y * I.z);
  const uint out_past_sample = (p.out_channels - 1u) * (O.x * O.y * O.z);
#else
  const uvec3 C = I;
  const uint b_per_sample = p.out_channels * (O.x * O.y * O.z);
  const uint b_group = g * cout_g * (O.x * O.y * O.z);
  const uint out_past_sample = (p.in_channels - 1u) * (I.x * I.y * I.z);
#endif
  const uint n_first = min(n0, N - 1u);
  const uint c_volume = C.x * C.y * C.z;
  uvec3 c = coordinates(n_first % c_volume, C);
  uint base = p.offsets[OP_B] + (n_first / c_volume) * b_per_sample + b_group;
  uint out_at = out_column_index(g, split, n_first);
  for (uint j = 0; j < TN; ++j) {
    if (j > 0u && n0 + j < N) {
      ++out_at;
      ++c.z;
      if (c.z == C.z) {
        c.z = 0u;
        ++c.y;
        if (c.y == C.y) {
          c.y = 0u;
          ++c.x;
          if (c.x == C.x) {
            c.x = 0u;
            base += b_per_sample;
            out_at += out_past_sample;
          }
        }
      }
    }
    col_base[j] = base;
#if defined(CONV_FORWARD)
    col_pos[j] = ivec3(c) * S - P;
#else
    col_pos[j] = ivec3(c) + P;
#endif
    out_index[j] = out_at;
  }
  const uint ones = 0u;
#else
  // The bias column gathers the last real column's B, which gather_b replaces by ones.
  uint ones = 0u;
  for (uint j = 0; j < TN; ++j) {
    const uint n = min(n0 + j, N - 1u);
    const uint gathered = min(n, gemm_n() - 1u);
    if (n != gathered) ones |= 1u << j;
    const uint volume = KS.x * KS.y * KS.z;
    col_base[j] = p.offsets[OP_B] + (g * cin_g + gathered / volume) * (I.x * I.y * I.z);
    col_pos[j] = ivec3(coordinates(gathered % volume, KS)) * D - P;
    out_index[j] = out_column_index(g, split, n);
  }
#endif

  // Per row: the start of its part of A. Rows past the edge read the last one; they are never stored.
  uint a_index[TM];
  for (uint i = 0; i < TM; ++i) {
    const uint row = min(m0 + i, last_row);
#if defined(CONV_FORWARD)
    a_index[i] = a_origin + (g * cout_g + row) * K;
#elif defined(CONV_INPUT_GRAD)
    a_index[i] = a_origin + ((g * cout_g) * cin_g + row) * (KS.x * KS.y * KS.z);
#else
    a_index[i] = a_origin + (g * cout_g + row) * (O.x * O.y * O.z);
#endif
  }

  // k = (u, v): u the outer index (a channel, or the batch for the weight gradient) and v a position in
  // V (the kernel, or the output). Per step of u, A moves by a_u and B by b_u; per step of v, A moves by
  // one and the gathered position by v·kscale.
#if defined(CONV_FORWARD)
  const uvec3 V = KS;
  const ivec3 kscale = D;
  const uint a_u = KS.x * KS.y * KS.z;
  const uint b_u = I.x * I.y * I.z;
#elif defined(CONV_INPUT_GRAD)
  const uvec3 V = KS;
  const ivec3 kscale = D;
  const uint a_u = cin_g * KS.x * KS.y * KS.z;
  const uint b_u = O.x * O.y * O.z;
#else
  const uvec3 V = O;
  const ivec3 kscale = S;
  const uint a_u = p.out_channels * O.x * O.y * O.z;
  const uint b_u = p.in_channels * I.x * I.y * I.z;
#endif
  const uint v_volume = V.x * V.y * V.z;

  const uint k_begin = p.k_first + split * p.k_per_split;
  const uint k_end = min(K, k_begin + p.k_per_split);
  uvec3 v = coordinates(k_begin % v_volume, V);
  ivec3 kpos = ivec3(v) * kscale;
  uint a_off = (k_begin / v_volume) * a_u + k_begin % v_volume;
  uint b_off = (k_begin / v_volume) * b_u;

  compute_t acc[TM][TN];
  for (uint i = 0; i < TM; ++i) {
    for (uint j = 0; j < TN; ++j) acc[i][j] = compute_t(0);
  }

#if !defined(A_UNIFORM)
  if (SHARE_A != 0u) {
    // Chunks of 8 k: lane `sub` loads A's (row, k + sub) for the block's rows, and each step takes its
    // k's value from that lane. Past k_end a lane loads the last k again, which no step uses.
    const uint sub = gl_SubgroupInvocationID;
    for (uint k = k_begin; k < k_end; k += 8u) {
      const uint own_k = min(k + sub, k_end - 1u);
      const uint own_a = (own_k / v_volume) * a_u + own_k % v_volume;
      compute_t a_part[TM];
      for (uint i = 0; i < TM; ++i) a_part[i] = a_value(a_index[i] + own_a);
      // A bound llvmpipe's compiler cannot see through, as matmul_register.comp's chunks.
      const uint steps = min(8u, k_end - k);
      for (uint step = 0; step < steps; ++step) {
        compute_t b[TN];
        gather_b(col_base, col_pos, ones, kpos, b_off, b);
        for (uint i = 0; i < TM; ++i) {
          const compute_t a = subgroupShuffle(a_part[i], step);
          for (uint j = 0; j < TN; ++j) acc[i][j] = fma(a, b[j], acc[i][j]);
        }
        uint unused_a_off = 0u;
        next_k(V, kscale, a_u, v_volume, b_u, v, kpos, unused_a_off, b_off);
      }
    }
  }
  for (uint k = k_begin; SHARE_A == 0u && k < k_end; ++k) {
#else
  for (uint k = k_begin; k < k_end; ++k) {
#endif
    compute_t a[TM];
    for (uint i = 0; i < TM; ++i) a[i] = a_value(a_index[i] + a_off);
    compute_t b[TN];
    gather_b(col_base, col_pos, ones, kpos, b_off, b);
    for (uint i = 0; i < TM; ++i) {
      for (uint j = 0; j < TN; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
    }
    next_k(V, kscale, a_u, v_volume, b_u, v, kpos, a_off, b_off);
  }

#if (defined(CONV_FORWARD) || defined(CONV_INPUT_GRAD)) && defined(COMPUTE_F32)
  if (WORD_STORES) {
    for (uint i = 0; i < TM; ++i) {
      const uint m = m0 + i;
      if (m > last_row) break;
      const compute_t bias = row_bias(g, m);
      for (uint j = 0; j < TN; j += 4u) {
        if (n0 + j >= N) break;
        // store_result's sum for four columns.
        const uint word = (out_index[j] + m * out_row_stride()) >> 2;
        vec4 value = vec4(acc[i][j], acc[i][j + 1u], acc[i][j + 2u], acc[i][j + 3u]) + bias;
        if ((p.flags & CONV_ACCUMULATE) != 0u) value += uintBitsToFloat(accumulated_words[word]);
        for (uint e = 0; e < 4u; ++e) value[e] = conv_epilogue(value[e]);
        out_words[word] = floatBitsToUint(value);
      }
    }
    return;
  }
#endif
  for (uint i = 0; i < TM; ++i) {
    const uint m = m0 + i;
    if (m > last_row) break;
    const compute_t bias = row_bias(g, m);
    for (uint j = 0; j < TN; ++j) {
      if (n0 + j < N) store_result(m, out_index[j], acc[i][j], bias);
    }
  }
}
