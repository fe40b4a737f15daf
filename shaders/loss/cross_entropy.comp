#version 450
// Cross-entropy over class indices (runtime/kernels/loss.h) for a piece of whole samples: row r is
// sample r / inner's scores at position r % inner, `classes` of them `inner` apart. Groups of 2^k
// invocations (`lanes`) share a row and merge as a tree in shared memory; a workgroup serves
// 256 / lanes rows at a time and walks the piece's rows a grid apart.
//   MODE_FORWARD   logsumexp in two passes (the row's maximum m, then Σ exp(x - m): one exponential an
//                  element, where an online maximum runs both of its branches on llvmpipe), then with
//                  label smoothing Σ w[c] (x[c] - lse) in a third pass over the row; each row's loss.
//                  Reduction None stores it; Mean and Sum add (loss, w[t]) over the workgroup and store
//                  the pair in the partials, or the result itself when one workgroup saw every row
//                  (FLAG_DIRECT). An out-of-range target sets the status words (the first to claim).
//   MODE_FINAL     one workgroup adds the partials and stores the result and the total weight.
//   MODE_BACKWARD  each row's gradient from the forward's logsumexp (and total weight for Mean).
#include "math.glsl"
#include "push_constants.glsl"

#define WORKGROUP_SIZE 256
layout(local_size_x = WORKGROUP_SIZE) in;

layout(constant_id = 0) const uint IN_DT = DT_F32;      // scores, out, grad_in and grad_out
layout(constant_id = 1) const uint WEIGHT_DT = DT_F32;
layout(constant_id = 2) const uint MODE = 0;
#define MODE_FORWARD 0u
#define MODE_FINAL 1u
#define MODE_BACKWARD 2u

#define FLAG_WEIGHT 1u
#define FLAG_LOG_SOFTMAX 2u
#define FLAG_WRITE_LSE 4u
#define FLAG_DIRECT 8u
#define REDUCTION_NONE 0u
#define REDUCTION_MEAN 1u
#define REDUCTION_SUM 2u

DECLARE_OPERAND(0, dst, writeonly)
DEFINE_STORE(dst, IN_DT)
// QUADS (cross_entropy_f32_quads): float32 scores, one position a sample (inner 1), rows of a multiple of
// four classes that start on 16-byte words (and so do the gradients backward; the host checks). A lane
// takes four adjacent classes at a time, read as one texel and written as one 16-byte word: llvmpipe
// loads and stores a storage buffer one lane at a time.
#if defined(QUADS)
#define WIDTH 4u
layout(set = 0, binding = 1) uniform utextureBuffer src_texels;
layout(set = 0, binding = 0) writeonly buffer DstWords { uvec4 dst_words[]; };
#else
#define WIDTH 1u
DECLARE_OPERAND(1, src, readonly)
DEFINE_LOAD(src, IN_DT)
#endif
layout(set = 0, binding = 2) readonly buffer Target { uvec2 target[]; };
DECLARE_OPERAND(3, weight, readonly)
DEFINE_LOAD(weight, WEIGHT_DT)
layout(set = 0, binding = 4) buffer Lse { compute_t lse_values[]; };
layout(set = 0, binding = 5) buffer Total { compute_t total_weight[]; };
// The partials (forward) or grad_out (backward).
DECLARE_OPERAND(6, gout, readonly)
DEFINE_LOAD(gout, IN_DT)
layout(set = 0, binding = 6) buffer Partials { compute_t partials[]; };
layout(set = 0, binding = 7) buffer Status { uint status[]; };

struct Params {
  uint out_offset;
  uint in_offset;
  uint target_offset;
  uint weight_offset;
  uint lse_offset;
  uint gout_offset;
  uint rows;  // of the piece (MODE_FINAL: partials)
  uint classes;
  uint inner;
  uint lanes_log2;
  uint flags;
  uint reduction;
  uint partial_base;  // the piece's first partial
  uint padding;
  uvec2 ignore_index;  // int64 bits
  uvec2 smoothing;     // compute_t bits
};
DECLARE_PUSH_CONSTANTS(Params)

shared compute_t shared_values[WORKGROUP_SIZE];

#define MERGE_SUM 0u
#define MERGE_MAX 1u

// `value` summed, or its maximum taken, over each group of `lanes` invocations. Every invocation of the
// workgroup calls it and gets its group's result.
compute_t group_merge(compute_t value, uint lane, uint lanes, uint how) {
  if (lanes == 1u) return value;
  const uint slot = gl_LocalInvocationID.x;
  shared_values[slot] = value;
  barrier();
  for (uint width = lanes >> 1; width > 0u; width >>= 1) {
    if (lane < width) {
      const compute_t other = shared_values[slot + width];
      shared_values[slot] = how == MERGE_SUM ? shared_values[slot] + other : max(shared_values[slot], other);
    }
    barrier();
  }
  const compute_t merged = shared_values[slot - lane];
  barrier();  // shared memory is reused next
  return merged;
}

// The workgroup's (loss, weight) totals, which end the forward: the result, or one partial pair.
void store_totals(compute_t loss, compute_t weight_sum, bool partial) {
  loss = group_merge(loss, gl_LocalInvocationID.x, WORKGROUP_SIZE, MERGE_SUM);
  weight_sum = group_merge(weight_sum, gl_LocalInvocationID.x, WORKGROUP_SIZE, MERGE_SUM);
  if (gl_LocalInvocationID.x != 0u) return;
  if (partial) {
    partials[2u * (p.partial_base + gl_WorkGroupID.x)] = loss;
    partials[2u * (p.partial_base + gl_WorkGroupID.x) + 1u] = weight_sum;
  } else {
    dst_store(p.out_offset, p.reduction == REDUCTION_MEAN ? loss / weight_sum : loss);
    total_weight[0] = weight_sum;
  }
}

// Scores c to c + WIDTH - 1 of the row at `base`.
void scores_at(uint base, uint c, out compute_t xs[WIDTH]) {
#if defined(QUADS)
  const vec4 x4 = uintBitsToFloat(texelFetch(src_texels, int((p.in_offset + base + c) >> 2)));
  for (uint e = 0u; e < WIDTH; ++e) xs[e] = x4[e];
#else
  xs[0] = src_load(p.in_offset + base + c * p.inner);
#endif
}

compute_t score_at(uint base, uint c) {
#if defined(QUADS)
  const uint i = p.in_offset + base + c;
  return uintBitsToFloat(texelFetch(src_texels, int(i >> 2))[i & 3u]);
#else
  return src_load(p.in_offset + base + c * p.inner);
#endif
}

// Gradients of classes c to c + WIDTH - 1 of the row at `base`.
void store_gradients(uint base, uint c, compute_t ds[WIDTH]) {
#if defined(QUADS)
  dst_words[(p.out_offset + base + c) >> 2] = floatBitsToUint(vec4(ds[0], ds[1], ds[2], ds[3]));
#else
  dst_store(p.out_offset + base + c * p.inner, ds[0]);
#endif
}

compute_t class_weight(uint c) {
  return (p.flags & FLAG_WEIGHT) != 0u ? weight_load(p.weight_offset + c) : compute_t(1);
}

void forward_final() {
  // One workgroup: the partials' (loss, weight) pairs added as a tree.
  compute_t loss = compute_t(0), weight_sum = compute_t(0);
  for (uint i = gl_LocalInvocationID.x; i < p.rows; i += WORKGROUP_SIZE) {
    loss += partials[2u * i];
    weight_sum += partials[2u * i + 1u];
  }
  store_totals(loss, weight_sum, false);
}

void main() {
  COPY_PUSH_CONSTANTS();
  if (MODE == MODE_FINAL) {
    forward_final();
    return;
  }
  const uint lanes = 1u << p.lanes_log2;
  const uint lane = gl_LocalInvocationID.x & (lanes - 1u);
  const uint rows_per_workgroup = WORKGROUP_SIZE >> p.lanes_log2;
  const uint blocks = (p.rows + rows_per_workgroup - 1u) / rows_per_workgroup;
  const bool log_softmax = (p.flags & FLAG_LOG_SOFTMAX) != 0u;
  const int64_t ignore_index = int64_t(pack64(p.ignore_index));
  const compute_t smoothing = scalar_from_bits(p.smoothing);
  const compute_t classes = compute_t(p.classes);
  compute_t acc_loss = compute_t(0), acc_weight = compute_t(0);
  // Uniform across the workgroup, so that every invocation reaches the barriers.
  for (uint block = gl_WorkGroupID.x; block < blocks; block += gl_NumWorkGroups.x) {
    const uint row = block * rows_per_workgroup + (gl_LocalInvocationID.x >> p.lanes_log2);
    const bool in_range = row < p.rows;
    const uint sample_index = in_range ? row / p.inner : 0u;
    const uint base = sample_index * p.classes * p.inner + (row - sample_index * p.inner);
    const int64_t t = in_range ? int64_t(pack64(target[p.target_offset + row])) : ignore_index;
    const bool counted = t != ignore_index && t >= 0 && t < int64_t(p.classes);
    if (MODE == MODE_FORWARD && in_range && lane == 0u && t != ignore_index && !counted) {
      if (atomicCompSwap(status[0], 0u, 1u) == 0u) {
        const uvec2 bits = unpack32(uint64_t(t));
        status[1] = bits.x;
        status[2] = bits.y;
      }
    }
    // logsumexp of the row (0 without log_softmax). As PyTorch's log_softmax, a row with +inf, or of
    // -inf only, gets NaN (inf - inf); GLSL's max may drop a NaN, but the sum does not.
    compute_t lse = compute_t(0);
    compute_t xs[WIDTH];
    if (MODE == MODE_FORWARD && log_softmax) {
      compute_t m = -mc_inf(), s = compute_t(0);
      for (uint c = WIDTH * lane; in_range && c < p.classes; c += WIDTH * lanes) {
        scores_at(base, c, xs);
        for (uint e = 0u; e < WIDTH; ++e) m = max(m, xs[e]);
      }
      m = group_merge(m, lane, lanes, MERGE_MAX);
      for (uint c = WIDTH * lane; in_range && c < p.classes; c += WIDTH * lanes) {
        scores_at(base, c, xs);
        for (uint e = 0u; e < WIDTH; ++e) s += m_exp(xs[e] - m);
      }
      lse = m + m_log(group_merge(s, lane, lanes, MERGE_SUM));
    } else if (MODE == MODE_BACKWARD && log_softmax && in_range) {
      lse = lse_values[p.lse_offset + row];
    }
    // Σ w[c] (x[c] - lse) forward, Σ w[c] backward: the smoothing term's parts.
    compute_t smooth_sum = compute_t(0);
    if (smoothing > compute_t(0) && (MODE == MODE_FORWARD || (p.flags & FLAG_WEIGHT) != 0u)) {
      compute_t part = compute_t(0);
      for (uint c = WIDTH * lane; in_range && counted && c < p.classes; c += WIDTH * lanes) {
        if (MODE == MODE_FORWARD) scores_at(base, c, xs);
        for (uint e = 0u; e < WIDTH; ++e) {
          const compute_t w = class_weight(c + e);
          part += MODE == MODE_FORWARD ? w * (xs[e] - lse) : w;
        }
      }
      smooth_sum = group_merge(part, lane, lanes, MERGE_SUM);
    } else if (MODE == MODE_BACKWARD) {
      smooth_sum = classes;  // Σ w[c] without weights
    }
    if (!in_range) continue;
    const compute_t wt = counted ? class_weight(uint(t)) : compute_t(0);

    if (MODE == MODE_FORWARD) {
      if (lane != 0u) continue;
      if ((p.flags & FLAG_WRITE_LSE) != 0u) lse_values[p.lse_offset + row] = lse;
      compute_t loss = compute_t(0);
      if (counted) {
        loss = (compute_t(1) - smoothing) * (-wt * (score_at(base, uint(t)) - lse));
        if (smoothing > compute_t(0)) loss += smoothing / classes * (-smooth_sum);
      }
      if (p.reduction == REDUCTION_NONE) {
        dst_store(p.out_offset + row, loss);
      } else {
        acc_loss += loss;
        acc_weight += wt;
      }
      continue;
    }

    // MODE_BACKWARD
    compute_t g;
    if (p.reduction == REDUCTION_NONE) {
      g = gout_load(p.gout_offset + row);
    } else {
      g = gout_load(p.gout_offset);
      if (p.reduction == REDUCTION_MEAN) g /= total_weight[0];
    }
    for (uint c = WIDTH * lane; c < p.classes; c += WIDTH * lanes) {
      compute_t ds[WIDTH];
      if (counted && log_softmax) scores_at(base, c, xs);
      for (uint e = 0u; e < WIDTH; ++e) {
        compute_t d = compute_t(0);
        if (counted) {
          const compute_t hit = c + e == uint(t) ? compute_t(1) : compute_t(0);
          if (log_softmax) {
            const compute_t prob = m_exp(xs[e] - lse);
            d = (compute_t(1) - smoothing) * wt * (prob - hit);
            if (smoothing > compute_t(0)) d += smoothing / classes * (prob * smooth_sum - class_weight(c + e));
          } else {
            d = -wt * hit;
          }
          d *= g;
        }
        ds[e] = d;
      }
      store_gradients(base, c, ds);
    }
  }
  if (MODE != MODE_FORWARD || p.reduction == REDUCTION_NONE) return;
  // The workgroup's (loss, weight) over every row it took.
  store_totals(acc_loss, acc_weight, (p.flags & FLAG_DIRECT) == 0u);
}
