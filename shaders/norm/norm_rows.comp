#version 450
// Group norm (and layer norm) rows over a contiguous piece of whole samples, [samples, channels, inner]:
// row r is sample r / groups's group r % groups, its group_channels channels × inner elements in a row.
// Groups of 2^k invocations (`lanes`) share a row, so a workgroup serves 256 / lanes rows; each lane
// walks the row `lanes` elements apart, and the group merges its lanes as a tree in shared memory.
//   MODE_FORWARD   Welford's mean and M2 of the row; mean[r] and rstd[r] = 1 / sqrt(M2 / n + eps)
//                  (FLAG_WRITE_STATS), then out = (in - mean) rstd weight[c] + bias[c]
//   MODE_BACKWARD  from the forward's mean and rstd, with g = dy weight[c] and x̂ = (in - mean) rstd:
//                  out = rstd (g - Σg / n - x̂ Σ g x̂ / n)
//   MODE_SOFTMAX   (one group, one element per channel) a first pass for the row's maximum m, then
//                  Σ exp(in - m); out = exp(in - m) / Σ, or in - m - log Σ with FLAG_LOG
//   MODE_SOFTMAX_BACKWARD  in = the forward's output y: out = y (dy - Σ dy y), or with FLAG_LOG
//                  dy - exp(y) Σ dy
// The channel of an element, (group * group_channels + position / inner), moves along with the lane's
// position without dividing per element.
#include "typed_operands.glsl"
#include "push_constants.glsl"
#include "math.glsl"

#define WORKGROUP_SIZE 256
layout(local_size_x = WORKGROUP_SIZE) in;

layout(constant_id = 0) const uint IN_DT = DT_F32;  // in, dy and out
layout(constant_id = 1) const uint STAT_DT = DT_F32;
layout(constant_id = 2) const uint PARAM_DT = DT_F32;  // weight and bias
layout(constant_id = 3) const uint MODE = 0;

#define MODE_FORWARD 0u
#define MODE_BACKWARD 1u
#define MODE_SOFTMAX 2u
#define MODE_SOFTMAX_BACKWARD 3u
#define READS_DY (MODE == MODE_BACKWARD || MODE == MODE_SOFTMAX_BACKWARD)

#define FLAG_WEIGHT 1u
#define FLAG_BIAS 2u
#define FLAG_WRITE_STATS 4u
#define FLAG_LOG 8u  // MODE_SOFTMAX and MODE_SOFTMAX_BACKWARD: log-softmax

// QUADS (norm_rows_f32_quads): float32 rows of a multiple of four elements that start on a 16-byte word in
// in, dy and out, each channel of one element (layer norm) or of a multiple of four (the host checks).
// Each lane takes four adjacent elements at a time, read as one texel of in (and dy, through texel views
// at bindings 1 and 2) and written as one 16-byte word: llvmpipe loads and stores a storage buffer one
// lane at a time, so the element-wise walk made five memory accesses per element forward (in twice,
// weight, bias, out). A lane's elements are updated in the order of the element-wise walk; with one lane
// per row, the results are the same to the bit.
DECLARE_OPERAND(0, dst, writeonly)
DEFINE_STORE(dst, IN_DT)
#if defined(QUADS)
layout(set = 0, binding = 1) uniform utextureBuffer in_texels;
layout(set = 0, binding = 2) uniform utextureBuffer dy_texels;
layout(set = 0, binding = 0) writeonly buffer DstWords { uvec4 dst_words[]; };
#else
DECLARE_OPERAND(1, src, readonly)
DEFINE_LOAD(src, IN_DT)
DECLARE_OPERAND(2, dy, readonly)
DEFINE_LOAD(dy, IN_DT)
#endif
DECLARE_OPERAND(3, mean, )
DEFINE_LOAD(mean, STAT_DT)
DEFINE_STORE(mean, STAT_DT)
DECLARE_OPERAND(4, rstd, )
DEFINE_LOAD(rstd, STAT_DT)
DEFINE_STORE(rstd, STAT_DT)
DECLARE_OPERAND(5, weight, readonly)
DEFINE_LOAD(weight, PARAM_DT)
DECLARE_OPERAND(6, bias, readonly)
DEFINE_LOAD(bias, PARAM_DT)

struct Params {
  uint out_offset;
  uint in_offset;
  uint dy_offset;
  uint mean_offset;
  uint rstd_offset;
  uint weight_offset;
  uint bias_offset;
  uint rows;  // of the piece
  uint groups;
  uint group_channels;
  uint inner;
  uint lanes_log2;
  uint flags;
  uint padding;
  uvec2 eps;  // compute_t bits
};
DECLARE_PUSH_CONSTANTS(Params)

shared compute_t shared_a[WORKGROUP_SIZE];
shared compute_t shared_b[WORKGROUP_SIZE];
shared compute_t shared_count[WORKGROUP_SIZE];

// (a, b, count): Welford's (mean, M2, count) forward, (Σg, Σg x̂, unused) backward, (Σ exp(x - m), unused,
// unused) softmax, (Σ dy y or Σ dy, unused, unused) its backward.
struct State {
  compute_t a;
  compute_t b;
  compute_t count;
};

State merge(State x, State y) {
  if (MODE != MODE_FORWARD) return State(x.a + y.a, x.b + y.b, compute_t(0));
  const compute_t count = x.count + y.count;
  if (count == compute_t(0)) return x;
  const compute_t delta = y.a - x.a;
  const compute_t share = y.count / count;
  return State(x.a + delta * share, x.b + y.b + delta * delta * x.count * share, count);
}

// The states of each group of `lanes` consecutive invocations merged as a tree; every invocation of a
// group gets its group's total. Every invocation of the workgroup calls it.
State group_merge(State s, uint lane, uint lanes) {
  if (lanes == 1u) return s;
  const uint slot = gl_LocalInvocationID.x;
  shared_a[slot] = s.a;
  shared_b[slot] = s.b;
  shared_count[slot] = s.count;
  barrier();
  for (uint width = lanes >> 1; width > 0u; width >>= 1) {
    if (lane < width) {
      const State merged = merge(State(shared_a[slot], shared_b[slot], shared_count[slot]),
                                 State(shared_a[slot + width], shared_b[slot + width], shared_count[slot + width]));
      shared_a[slot] = merged.a;
      shared_b[slot] = merged.b;
      shared_count[slot] = merged.count;
    }
    barrier();
  }
  const uint first = slot - lane;
  const State total = State(shared_a[first], shared_b[first], shared_count[first]);
  barrier();  // shared memory is reused by the next rows
  return total;
}

// The largest of each group's values, merged as group_merge merges states. GLSL's max may drop a NaN, but
// a NaN in the row still makes its sum of exponentials, and so the whole row, NaN, as in PyTorch.
compute_t group_max(compute_t v, uint lane, uint lanes) {
  if (lanes == 1u) return v;
  const uint slot = gl_LocalInvocationID.x;
  shared_a[slot] = v;
  barrier();
  for (uint width = lanes >> 1; width > 0u; width >>= 1) {
    if (lane < width) shared_a[slot] = max(shared_a[slot], shared_a[slot + width]);
    barrier();
  }
  const compute_t total = shared_a[slot - lane];
  barrier();  // shared memory is reused by the next pass
  return total;
}

// Adds element x of the row to a lane's state: forward to Welford's, backward (dy and the channel's weight
// wc given) to Σg and Σg x̂.
void add_element(inout State s, compute_t x, compute_t dy, compute_t wc, compute_t m, compute_t r) {
  if (MODE == MODE_SOFTMAX) {
    s.a += m_exp(x - m);
  } else if (MODE == MODE_SOFTMAX_BACKWARD) {
    s.a += (p.flags & FLAG_LOG) != 0u ? dy : dy * x;
  } else if (MODE == MODE_FORWARD) {
    s.count += compute_t(1);
    const compute_t delta = x - s.a;
    s.a += delta / s.count;
    s.b += delta * (x - s.a);
  } else {
    const compute_t g = dy * wc;
    s.a += g;
    s.b += g * (x - m) * r;
  }
}

// Element x's result from the row's statistics (the total of every lane's state backward, over n
// elements): normalized, scaled by wc and shifted by b forward; its input gradient backward; softmax from
// the maximum m and r, 1 / Σ (log Σ for log-softmax).
compute_t row_result(compute_t x, compute_t dy, compute_t wc, compute_t b, compute_t m, compute_t r, State total,
                     compute_t n) {
  if (MODE == MODE_SOFTMAX) return (p.flags & FLAG_LOG) != 0u ? x - m - r : m_exp(x - m) * r;
  if (MODE == MODE_SOFTMAX_BACKWARD) return (p.flags & FLAG_LOG) != 0u ? dy - m_exp(x) * total.a : x * (dy - total.a);
  if (MODE == MODE_FORWARD) return (x - m) * (r * wc) + b;
  const compute_t x_hat = (x - m) * r;
  return r * (dy * wc - total.a / n - x_hat * (total.b / n));
}

#if defined(QUADS)
// Elements i to i + 3 of the row at `base`: in, and dy backward.
void quad_at(uint base, uint i, out vec4 x4, out vec4 dy4) {
  x4 = uintBitsToFloat(texelFetch(in_texels, int((p.in_offset + base + i) >> 2)));
  dy4 = READS_DY ? uintBitsToFloat(texelFetch(dy_texels, int((p.dy_offset + base + i) >> 2))) : vec4(0.0);
}
// The channel of element i + e of a row whose first channel is `first`: each channel holds one element or
// a multiple of four.
uint quad_channel(uint first, uint i, uint e) { return first + (p.inner == 1u ? i + e : i / p.inner); }
#endif

void main() {
  COPY_PUSH_CONSTANTS();
  const uint lanes = 1u << p.lanes_log2;
  const uint rows_per_workgroup = WORKGROUP_SIZE >> p.lanes_log2;
  const uint lane = gl_LocalInvocationID.x & (lanes - 1u);
  const uint length = p.group_channels * p.inner;
  const compute_t n = compute_t(length);
  const bool has_weight = (p.flags & FLAG_WEIGHT) != 0u;
  const bool has_bias = (p.flags & FLAG_BIAS) != 0u;
  const uint blocks = (p.rows + rows_per_workgroup - 1u) / rows_per_workgroup;
  // Uniform across the workgroup, so that every invocation reaches the barriers.
  for (uint block = gl_WorkGroupID.x; block < blocks; block += gl_NumWorkGroups.x) {
    const uint row = block * rows_per_workgroup + (gl_LocalInvocationID.x >> p.lanes_log2);
    const bool in_range = row < p.rows;
    const uint base = row * length;
    const uint first_channel = (row % p.groups) * p.group_channels;
    State s = State(compute_t(0), compute_t(0), compute_t(0));
    compute_t m = compute_t(0), r = compute_t(0);
    if (in_range && MODE == MODE_BACKWARD) {
      m = mean_load(p.mean_offset + row);
      r = rstd_load(p.rstd_offset + row);
    }
    // The lane's position i along the row, its channel within the group and its place j in the channel,
    // moved along `lanes` at a time without dividing.
    const uint step_channels = lanes / p.inner;
    const uint step_j = lanes - step_channels * p.inner;
    const uint lane_channel = lane / p.inner;
    const uint lane_j = lane - lane_channel * p.inner;
    if (MODE == MODE_SOFTMAX) {
      compute_t lane_max = -compute_t(uintBitsToFloat(0x7f800000u));
#if defined(QUADS)
      for (uint i = 4u * lane; in_range && i < length; i += 4u * lanes) {
        vec4 x4, dy4;
        quad_at(base, i, x4, dy4);
        for (uint e = 0; e < 4u; ++e) lane_max = max(lane_max, x4[e]);
      }
#else
      for (uint i = lane; in_range && i < length; i += lanes) lane_max = max(lane_max, src_load(p.in_offset + base + i));
#endif
      m = group_max(lane_max, lane, lanes);
    }
#if defined(QUADS)
    for (uint i = 4u * lane; in_range && i < length; i += 4u * lanes) {
      vec4 x4, dy4;
      quad_at(base, i, x4, dy4);
      for (uint e = 0; e < 4u; ++e) {
        const uint c = quad_channel(first_channel, i, e);
        const compute_t wc = MODE == MODE_BACKWARD && has_weight ? weight_load(p.weight_offset + c) : compute_t(1);
        add_element(s, x4[e], dy4[e], wc, m, r);
      }
    }
#else
    if (in_range) {
      uint channel = lane_channel, j = lane_j;
      for (uint i = lane; i < length; i += lanes) {
        const compute_t wc =
            MODE == MODE_BACKWARD && has_weight ? weight_load(p.weight_offset + first_channel + channel) : compute_t(1);
        const compute_t dy = READS_DY ? dy_load(p.dy_offset + base + i) : compute_t(0);
        add_element(s, src_load(p.in_offset + base + i), dy, wc, m, r);
        j += step_j;
        channel += step_channels;
        if (j >= p.inner) {
          j -= p.inner;
          channel += 1u;
        }
      }
    }
#endif
    const State total = group_merge(s, lane, lanes);
    if (!in_range) continue;
    if (MODE == MODE_SOFTMAX) {
      r = (p.flags & FLAG_LOG) != 0u ? m_log(total.a) : compute_t(1) / total.a;
    } else if (MODE == MODE_FORWARD) {
      m = total.a;
      r = compute_t(1) / sqrt(total.b / n + scalar_from_bits(p.eps));
      if (lane == 0u && (p.flags & FLAG_WRITE_STATS) != 0u) {
        mean_store(p.mean_offset + row, m);
        rstd_store(p.rstd_offset + row, r);
      }
    }
#if defined(QUADS)
    for (uint i = 4u * lane; i < length; i += 4u * lanes) {
      vec4 x4, dy4;
      quad_at(base, i, x4, dy4);
      vec4 result;
      for (uint e = 0; e < 4u; ++e) {
        const uint c = quad_channel(first_channel, i, e);
        const compute_t wc = has_weight ? weight_load(p.weight_offset + c) : compute_t(1);
        const compute_t b = MODE == MODE_FORWARD && has_bias ? bias_load(p.bias_offset + c) : compute_t(0);
        result[e] = row_result(x4[e], dy4[e], wc, b, m, r, total, n);
      }
      dst_words[(p.out_offset + base + i) >> 2] = floatBitsToUint(result);
    }
#else
    uint channel_in_group = lane_channel, j = lane_j;
    for (uint i = lane; i < length; i += lanes) {
      const uint channel = first_channel + channel_in_group;
      const compute_t wc = has_weight ? weight_load(p.weight_offset + channel) : compute_t(1);
      const compute_t b = MODE == MODE_FORWARD && has_bias ? bias_load(p.bias_offset + channel) : compute_t(0);
      const compute_t dy = READS_DY ? dy_load(p.dy_offset + base + i) : compute_t(0);
      dst_store(p.out_offset + base + i, row_result(src_load(p.in_offset + base + i), dy, wc, b, m, r, total, n));
      j += step_j;
      channel_in_group += step_channels;
      if (j >= p.inner) {
        j -= p.inner;
        channel_in_group += 1u;
      }
    }
#endif
  }
}
