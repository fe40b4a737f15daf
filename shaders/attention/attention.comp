#version 450
// Scaled dot-product attention (runtime/kernels/attention.h), flash-style: an invocation owns ROWS rows
// and streams the rows of the other side past them, so that each key (or query) loaded from memory
// serves ROWS rows from registers, and no score or weight is ever stored.
//   MODE_FORWARD   rows are queries: the online softmax (a running maximum rescales the running sum and
//                  the accumulated output), then out = acc / sum and lse = max + log(sum).
//   MODE_GRAD_Q    rows are queries: D = grad_out·out (stored for MODE_GRAD_KV), then
//                  dq = scale Σj p (grad_out·v_j - D) k_j with p recomputed from lse.
//   MODE_GRAD_KV   rows are keys: dv = Σi p grad_out_i and dk = scale Σi p (grad_out_i·v - D_i) q_i.
// Workgroup x walks a batch's rows, workgroup y the batches of the launch piece.
#include "math.glsl"

#define WORKGROUP_SIZE 256
layout(local_size_x = WORKGROUP_SIZE) in;

layout(constant_id = 0) const uint DT = DT_F32;  // q, k, v, out, the mask and the gradients
layout(constant_id = 1) const uint E = 64;       // features of q and k
layout(constant_id = 2) const uint EV = 64;      // features of v and out
layout(constant_id = 3) const uint MODE = 0;
layout(constant_id = 4) const uint ROWS = 1;     // rows per invocation
// Features travel in blocks of four, E4 = ceil(E / 4) and EV4 = ceil(EV / 4) of them (zeros past the
// end). Why: llvmpipe ends a shader's loop nest after 65535 iterations in all (its guard against endless
// loops), counting inner loops it did not unroll; loops of at most 32 blocks it unrolls, which leaves
// only the loop over keys (or queries) to count, so a launch takes up to 65535 of them.
layout(constant_id = 5) const uint E4 = 16;
layout(constant_id = 6) const uint EV4 = 16;
#define MODE_FORWARD 0u
#define MODE_GRAD_Q 1u
#define MODE_GRAD_KV 2u

#define FLAG_CAUSAL 1u
#define FLAG_MASK 2u

// Bindings, also the order of p.offsets. dst0 is out, grad_q or grad_k; dst1 is grad_v.
#define OP_DST0 0
#define OP_DST1 1
#define OP_Q 2
#define OP_K 3
#define OP_V 4
#define OP_MASK 5
#define OP_LSE 6
#define OP_GOUT 7
#define OP_OUT 8
#define OP_DELTA 9

DECLARE_OPERAND(0, dst0, writeonly)
DEFINE_STORE(dst0, DT)
DECLARE_OPERAND(1, dst1, writeonly)
DEFINE_STORE(dst1, DT)
DECLARE_OPERAND(2, q_data, readonly)
DEFINE_LOAD(q_data, DT)
DECLARE_OPERAND(3, k_data, readonly)
DEFINE_LOAD(k_data, DT)
DECLARE_OPERAND(4, v_data, readonly)
DEFINE_LOAD(v_data, DT)
DECLARE_OPERAND(5, mask_data, readonly)
DEFINE_LOAD(mask_data, DT)
layout(set = 0, binding = 6) buffer Lse { compute_t lse_values[]; };
DECLARE_OPERAND(7, gout_data, readonly)
DEFINE_LOAD(gout_data, DT)
DECLARE_OPERAND(8, out_data, readonly)
DEFINE_LOAD(out_data, DT)
layout(set = 0, binding = 9) buffer Delta { compute_t delta_values[]; };

layout(push_constant) uniform Params {
  uvec2 scale;  // compute_t bits
  uint offsets[10];  // each operand's first element in its window
  uint L, S;
  uint mask_strides[3];  // batch, query, key
  uint flags;
} p;

#if defined(COMPUTE_F64)
#define NEGATIVE_INFINITY packDouble2x32(uvec2(0u, 0xfff00000u))
#define block_t dvec4
#else
#define NEGATIVE_INFINITY uintBitsToFloat(0xff800000u)
#define block_t vec4
#endif

// The score of query i and key j of batch b, before the softmax; -inf where causality hides the key.
compute_t score(compute_t dot, uint b, uint i, uint j) {
  if ((p.flags & FLAG_CAUSAL) != 0u && j > i) return NEGATIVE_INFINITY;
  compute_t s = scalar_from_bits(p.scale) * dot;
  if ((p.flags & FLAG_MASK) != 0u) {
    s += mask_data_load(p.offsets[OP_MASK] + b * p.mask_strides[0] + i * p.mask_strides[1] + j * p.mask_strides[2]);
  }
  return s;
}

// The softmax weight exp(s - lse), 0 for a hidden key (even where lse is -inf too).
compute_t weight_of(compute_t s, compute_t lse) { return s == NEGATIVE_INFINITY ? compute_t(0) : m_exp(s - lse); }

uint row_index(uint b, uint rows, uint i) { return b * rows + i; }

// Block `c` of a row of `width` features starting at element `base`, zeros past the row's end.
#define DEFINE_BLOCK_LOAD(NAME)                                                  \
  block_t NAME##_block(uint base, uint c, uint width) {                          \
    block_t x = block_t(0);                                                      \
    for (uint l = 0; l < 4u; ++l) {                                              \
      if (4u * c + l < width) x[l] = NAME##_load(base + 4u * c + l);             \
    }                                                                            \
    return x;                                                                    \
  }
DEFINE_BLOCK_LOAD(q_data)
DEFINE_BLOCK_LOAD(k_data)
DEFINE_BLOCK_LOAD(v_data)
DEFINE_BLOCK_LOAD(gout_data)
DEFINE_BLOCK_LOAD(out_data)

#define DEFINE_BLOCK_STORE(NAME)                                                 \
  void NAME##_store_block(uint base, uint c, uint width, block_t x) {            \
    for (uint l = 0; l < 4u; ++l) {                                              \
      if (4u * c + l < width) NAME##_store(base + 4u * c + l, x[l]);             \
    }                                                                            \
  }
DEFINE_BLOCK_STORE(dst0)
DEFINE_BLOCK_STORE(dst1)

compute_t sum_of(block_t x) { return (x.x + x.y) + (x.z + x.w); }

void forward(uint b, uint first) {
  block_t q[ROWS][E4];
  block_t acc[ROWS][EV4];
  compute_t running_max[ROWS];
  compute_t running_sum[ROWS];
  for (uint t = 0; t < ROWS; ++t) {
    const uint i = min(first + t, p.L - 1u);  // rows past the end repeat the last one, never stored
    const uint base = p.offsets[OP_Q] + row_index(b, p.L, i) * E;
    for (uint c = 0; c < E4; ++c) q[t][c] = q_data_block(base, c, E);
    for (uint c = 0; c < EV4; ++c) acc[t][c] = block_t(0);
    running_max[t] = NEGATIVE_INFINITY;
    running_sum[t] = compute_t(0);
  }
  const uint last_row = min(first + ROWS, p.L) - 1u;
  const uint keys = (p.flags & FLAG_CAUSAL) != 0u ? min(p.S, last_row + 1u) : p.S;
  block_t k[E4];
  block_t v[EV4];
  for (uint j = 0; j < keys; ++j) {
    const uint k_base = p.offsets[OP_K] + row_index(b, p.S, j) * E;
    for (uint c = 0; c < E4; ++c) k[c] = k_data_block(k_base, c, E);
    const uint v_base = p.offsets[OP_V] + row_index(b, p.S, j) * EV;
    for (uint c = 0; c < EV4; ++c) v[c] = v_data_block(v_base, c, EV);
    for (uint t = 0; t < ROWS; ++t) {
      block_t dot = block_t(0);
      for (uint c = 0; c < E4; ++c) dot = fma(q[t][c], k[c], dot);
      const compute_t s = score(sum_of(dot), b, min(first + t, p.L - 1u), j);
      if (s == NEGATIVE_INFINITY) continue;
      const compute_t new_max = max(running_max[t], s);
      // exp(-inf) is 0 for the first key a row sees.
      const compute_t rescale = running_max[t] == NEGATIVE_INFINITY ? compute_t(0) : m_exp(running_max[t] - new_max);
      const compute_t weight = m_exp(s - new_max);
      running_sum[t] = running_sum[t] * rescale + weight;
      for (uint c = 0; c < EV4; ++c) acc[t][c] = fma(block_t(weight), v[c], acc[t][c] * rescale);
      running_max[t] = new_max;
    }
  }
  for (uint t = 0; t < ROWS; ++t) {
    const uint i = first + t;
    if (i >= p.L) break;
    const uint row = row_index(b, p.L, i);
    // A row that saw no key divides 0 by 0: NaN, as softmax over only -inf gives.
    for (uint c = 0; c < EV4; ++c) dst0_store_block(p.offsets[OP_DST0] + row * EV, c, EV, acc[t][c] / running_sum[t]);
    lse_values[p.offsets[OP_LSE] + row] = running_max[t] + m_log(running_sum[t]);
  }
}

void grad_q(uint b, uint first) {
  block_t q[ROWS][E4];
  block_t gout[ROWS][EV4];
  block_t dq[ROWS][E4];
  compute_t lse[ROWS];
  compute_t delta[ROWS];
  for (uint t = 0; t < ROWS; ++t) {
    const uint i = min(first + t, p.L - 1u);
    const uint row = row_index(b, p.L, i);
    for (uint c = 0; c < E4; ++c) {
      q[t][c] = q_data_block(p.offsets[OP_Q] + row * E, c, E);
      dq[t][c] = block_t(0);
    }
    block_t d = block_t(0);
    for (uint c = 0; c < EV4; ++c) {
      gout[t][c] = gout_data_block(p.offsets[OP_GOUT] + row * EV, c, EV);
      d = fma(gout[t][c], out_data_block(p.offsets[OP_OUT] + row * EV, c, EV), d);
    }
    delta[t] = sum_of(d);
    lse[t] = lse_values[p.offsets[OP_LSE] + row];
  }
  const uint last_row = min(first + ROWS, p.L) - 1u;
  const uint keys = (p.flags & FLAG_CAUSAL) != 0u ? min(p.S, last_row + 1u) : p.S;
  block_t k[E4];
  block_t v[EV4];
  for (uint j = 0; j < keys; ++j) {
    const uint k_base = p.offsets[OP_K] + row_index(b, p.S, j) * E;
    for (uint c = 0; c < E4; ++c) k[c] = k_data_block(k_base, c, E);
    const uint v_base = p.offsets[OP_V] + row_index(b, p.S, j) * EV;
    for (uint c = 0; c < EV4; ++c) v[c] = v_data_block(v_base, c, EV);
    for (uint t = 0; t < ROWS; ++t) {
      block_t dot = block_t(0);
      for (uint c = 0; c < E4; ++c) dot = fma(q[t][c], k[c], dot);
      const compute_t weight = weight_of(score(sum_of(dot), b, min(first + t, p.L - 1u), j), lse[t]);
      block_t dp = block_t(0);
      for (uint c = 0; c < EV4; ++c) dp = fma(gout[t][c], v[c], dp);
      const block_t ds = block_t(weight * (sum_of(dp) - delta[t]));
      for (uint c = 0; c < E4; ++c) dq[t][c] = fma(ds, k[c], dq[t][c]);
    }
  }
  const compute_t scale = scalar_from_bits(p.scale);
  for (uint t = 0; t < ROWS; ++t) {
    const uint i = first + t;
    if (i >= p.L) break;
    const uint row = row_index(b, p.L, i);
    for (uint c = 0; c < E4; ++c) dst0_store_block(p.offsets[OP_DST0] + row * E, c, E, scale * dq[t][c]);
    delta_values[p.offsets[OP_DELTA] + row] = delta[t];
  }
}

void grad_kv(uint b, uint first) {
  block_t k[ROWS][E4];
  block_t v[ROWS][EV4];
  block_t dk[ROWS][E4];
  block_t dv[ROWS][EV4];
  for (uint t = 0; t < ROWS; ++t) {
    const uint row = row_index(b, p.S, min(first + t, p.S - 1u));
    for (uint c = 0; c < E4; ++c) {
      k[t][c] = k_data_block(p.offsets[OP_K] + row * E, c, E);
      dk[t][c] = block_t(0);
    }
    for (uint c = 0; c < EV4; ++c) {
      v[t][c] = v_data_block(p.offsets[OP_V] + row * EV, c, EV);
      dv[t][c] = block_t(0);
    }
  }
  // With causality, queries before the block's first key see none of its keys.
  const uint first_query = (p.flags & FLAG_CAUSAL) != 0u ? first : 0u;
  block_t q[E4];
  block_t gout[EV4];
  for (uint i = first_query; i < p.L; ++i) {
    const uint row = row_index(b, p.L, i);
    for (uint c = 0; c < E4; ++c) q[c] = q_data_block(p.offsets[OP_Q] + row * E, c, E);
    for (uint c = 0; c < EV4; ++c) gout[c] = gout_data_block(p.offsets[OP_GOUT] + row * EV, c, EV);
    const compute_t lse = lse_values[p.offsets[OP_LSE] + row];
    const compute_t delta = delta_values[p.offsets[OP_DELTA] + row];
    for (uint t = 0; t < ROWS; ++t) {
      block_t dot = block_t(0);
      for (uint c = 0; c < E4; ++c) dot = fma(q[c], k[t][c], dot);
      const compute_t weight = weight_of(score(sum_of(dot), b, i, min(first + t, p.S - 1u)), lse);
      block_t dp = block_t(0);
      for (uint c = 0; c < EV4; ++c) {
        dp = fma(gout[c], v[t][c], dp);
        dv[t][c] = fma(block_t(weight), gout[c], dv[t][c]);
      }
      const block_t ds = block_t(weight * (sum_of(dp) - delta));
      for (uint c = 0; c < E4; ++c) dk[t][c] = fma(ds, q[c], dk[t][c]);
    }
  }
  const compute_t scale = scalar_from_bits(p.scale);
  for (uint t = 0; t < ROWS; ++t) {
    const uint j = first + t;
    if (j >= p.S) break;
    const uint row = row_index(b, p.S, j);
    for (uint c = 0; c < E4; ++c) dst0_store_block(p.offsets[OP_DST0] + row * E, c, E, scale * dk[t][c]);
    for (uint c = 0; c < EV4; ++c) dst1_store_block(p.offsets[OP_DST1] + row * EV, c, EV, dv[t][c]);
  }
}

void main() {
  const uint b = gl_WorkGroupID.y;
  const uint first = (gl_WorkGroupID.x * WORKGROUP_SIZE + gl_LocalInvocationID.x) * ROWS;
  const uint rows = MODE == MODE_GRAD_KV ? p.S : p.L;
  if (first >= rows) return;
  if (MODE == MODE_FORWARD) {
    forward(b, first);
  } else if (MODE == MODE_GRAD_Q) {
    grad_q(b, first);
  } else {
    grad_kv(b, first);
  }
}
