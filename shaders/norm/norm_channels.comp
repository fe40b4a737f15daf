#version 450
// Per-channel reductions of the norm kernels over a contiguous input of `samples` samples of `channels`
// channels of `inner` elements (one launch piece of whole samples; the host splits a tensor past one
// binding into pieces):
//   MODE_STATS        Welford's (count, mean, M2) of `in`: batch norm's statistics
//   MODE_BN_BACKWARD  Σ dy and Σ dy (in - mean[c]): batch norm's backward sums
//   MODE_AFFINE_GRAD  Σ dy (in - mean[row]) rstd[row] and Σ dy, where row = sample * groups + group of c:
//                     group norm's (and layer norm's) weight and bias gradients
//
// STAGE_ELEMENTS: workgroup w reduces chunk w / channels of channel w % channels: a run of the piece's
// samples × inner positions, 256 lanes apart, merged in shared memory as a tree. It finalises at once
// (FLAG_FINALIZE, the whole reduction was one chunk) or writes its state to the scratch at slot
// (state_base + chunk) * channels + channel. STAGE_COLUMNS, for inner == 1: invocation c of a tile of
// 256 channels walks one chunk of the samples of channel c by itself, with no barrier (neighbouring
// invocations read neighbouring channels), and finalises or stores its state the same way.
// STAGE_MERGE: workgroup c merges channel c's `states`
// states and finalises. Finalising writes the mode's results:
//   MODE_STATS        mean and invstd = 1 / sqrt(M2 / count + eps); running stats r = (1 - m) r + m s,
//                     the variance unbiased, M2 / (count - 1)
//   MODE_BN_BACKWARD  grad_weight = Σ dy (in - mean) invstd, grad_bias = Σ dy, and both sums to the
//                     scratch at sums_offset + 2c (the apply kernel's grad_in reads them)
//   MODE_AFFINE_GRAD  grad_weight and grad_bias
#include "typed_operands.glsl"
#include "push_constants.glsl"

#define WORKGROUP_SIZE 256
layout(local_size_x = WORKGROUP_SIZE) in;

layout(constant_id = 0) const uint IN_DT = DT_F32;    // in and dy
layout(constant_id = 1) const uint STAT_DT = DT_F32;  // mean and invstd (rstd)
layout(constant_id = 2) const uint PARAM_DT = DT_F32;  // running stats, or grad_weight and grad_bias
layout(constant_id = 3) const uint MODE = 0;
layout(constant_id = 4) const uint STAGE = 0;

#define MODE_STATS 0u
#define MODE_BN_BACKWARD 1u
#define MODE_AFFINE_GRAD 2u
#define STAGE_ELEMENTS 0u
#define STAGE_MERGE 1u
#define STAGE_COLUMNS 2u

#define FLAG_FINALIZE 1u
#define FLAG_RUNNING 2u
#define FLAG_GRAD_WEIGHT 4u
#define FLAG_GRAD_BIAS 8u
#define FLAG_FROM_VAR 16u  // MODE_BN_BACKWARD: the invstd operand holds variances

DECLARE_OPERAND(0, src, readonly)
DEFINE_LOAD(src, IN_DT)
DECLARE_OPERAND(1, dy, readonly)
DEFINE_LOAD(dy, IN_DT)
DECLARE_OPERAND(2, stat_a, )  // mean
DEFINE_LOAD(stat_a, STAT_DT)
DEFINE_STORE(stat_a, STAT_DT)
DECLARE_OPERAND(3, stat_b, )  // invstd or rstd (variances with FLAG_FROM_VAR)
DEFINE_LOAD(stat_b, STAT_DT)
DEFINE_STORE(stat_b, STAT_DT)
DECLARE_OPERAND(4, param_a, )  // running_mean, or grad_weight
DEFINE_LOAD(param_a, PARAM_DT)
DEFINE_STORE(param_a, PARAM_DT)
DECLARE_OPERAND(5, param_b, )  // running_var, or grad_bias
DEFINE_LOAD(param_b, PARAM_DT)
DEFINE_STORE(param_b, PARAM_DT)
layout(set = 0, binding = 6) buffer States { compute_t states[]; };  // 3 values a state

struct Params {
  uint in_offset;  // first element of each operand in its window
  uint dy_offset;
  uint stat_a_offset;
  uint stat_b_offset;
  uint param_a_offset;
  uint param_b_offset;
  uint channels;
  uint inner;
  uint samples;
  uint group_channels;  // MODE_AFFINE_GRAD: channels per group
  uint groups;
  uint chunks;        // STAGE_ELEMENTS: chunks per channel
  uint chunk_length;  // positions (sample, inner) per chunk; STAGE_COLUMNS: samples per chunk
  uint state_base;    // STAGE_ELEMENTS: the piece's first state slot; STAGE_MERGE: states per channel
  uint sums_offset;   // MODE_BN_BACKWARD: where the per-channel sums go in the scratch
  uint flags;
  uvec2 eps;          // compute_t bits
  uvec2 momentum;
};
DECLARE_PUSH_CONSTANTS(Params)

// a, b and count: MODE_STATS (mean, M2, count); otherwise two sums (count unused).
struct State {
  compute_t a;
  compute_t b;
  compute_t count;
};

State merge(State x, State y) {
  if (MODE != MODE_STATS) return State(x.a + y.a, x.b + y.b, compute_t(0));
  const compute_t count = x.count + y.count;
  if (count == compute_t(0)) return x;
  const compute_t delta = y.a - x.a;
  const compute_t share = y.count / count;
  return State(x.a + delta * share, x.b + y.b + delta * delta * x.count * share, count);
}

shared compute_t shared_a[WORKGROUP_SIZE];
shared compute_t shared_b[WORKGROUP_SIZE];
shared compute_t shared_count[WORKGROUP_SIZE];

// The workgroup's states merged as a pairwise tree; every invocation gets the total.
State workgroup_merge(State s) {
  const uint lane = gl_LocalInvocationID.x;
  shared_a[lane] = s.a;
  shared_b[lane] = s.b;
  shared_count[lane] = s.count;
  barrier();
  for (uint width = WORKGROUP_SIZE / 2; width > 0u; width >>= 1) {
    if (lane < width) {
      const State merged = merge(State(shared_a[lane], shared_b[lane], shared_count[lane]),
                                 State(shared_a[lane + width], shared_b[lane + width], shared_count[lane + width]));
      shared_a[lane] = merged.a;
      shared_b[lane] = merged.b;
      shared_count[lane] = merged.count;
    }
    barrier();
  }
  return State(shared_a[0], shared_b[0], shared_count[0]);
}

compute_t invstd_of(uint c) {
  const compute_t value = stat_b_load(p.stat_b_offset + c);
  if ((p.flags & FLAG_FROM_VAR) != 0u) return compute_t(1) / sqrt(value + scalar_from_bits(p.eps));
  return value;
}

void finalize(uint c, State s) {
  if (MODE == MODE_STATS) {
    const compute_t eps = scalar_from_bits(p.eps);
    stat_a_store(p.stat_a_offset + c, s.a);
    stat_b_store(p.stat_b_offset + c, compute_t(1) / sqrt(s.b / s.count + eps));
    if ((p.flags & FLAG_RUNNING) != 0u) {
      const compute_t momentum = scalar_from_bits(p.momentum);
      const compute_t keep = compute_t(1) - momentum;
      param_a_store(p.param_a_offset + c, keep * param_a_load(p.param_a_offset + c) + momentum * s.a);
      param_b_store(p.param_b_offset + c,
                    keep * param_b_load(p.param_b_offset + c) + momentum * (s.b / (s.count - compute_t(1))));
    }
  } else if (MODE == MODE_BN_BACKWARD) {
    if ((p.flags & FLAG_GRAD_WEIGHT) != 0u) param_a_store(p.param_a_offset + c, s.b * invstd_of(c));
    if ((p.flags & FLAG_GRAD_BIAS) != 0u) param_b_store(p.param_b_offset + c, s.a);
    states[p.sums_offset + 2u * c] = s.a;
    states[p.sums_offset + 2u * c + 1u] = s.b;
  } else {
    if ((p.flags & FLAG_GRAD_WEIGHT) != 0u) param_a_store(p.param_a_offset + c, s.a);
    if ((p.flags & FLAG_GRAD_BIAS) != 0u) param_b_store(p.param_b_offset + c, s.b);
  }
}

// One chunk of one channel's (sample, inner) positions.
State reduce_elements(uint c, uint chunk) {
  State s = State(compute_t(0), compute_t(0), compute_t(0));
  const uint length = p.samples * p.inner;
  const uint first = chunk * p.chunk_length;
  const uint end = min(length, first + p.chunk_length);
  uint t = first + gl_LocalInvocationID.x;
  if (t >= end) return s;
  // (sample_index, position) of t, moved along by WORKGROUP_SIZE without dividing again.
  uint sample_index = t / p.inner;
  uint j = t - sample_index * p.inner;
  const uint step_samples = WORKGROUP_SIZE / p.inner;
  const uint step_j = WORKGROUP_SIZE - step_samples * p.inner;
  const uint group = MODE == MODE_AFFINE_GRAD ? c / p.group_channels : 0u;
  compute_t mean_c = compute_t(0);
  if (MODE == MODE_BN_BACKWARD) mean_c = stat_a_load(p.stat_a_offset + c);
  for (; t < end; t += WORKGROUP_SIZE) {
    const uint offset = (sample_index * p.channels + c) * p.inner + j;
    const compute_t x = src_load(p.in_offset + offset);
    if (MODE == MODE_STATS) {
      s.count += compute_t(1);
      const compute_t delta = x - s.a;
      s.a += delta / s.count;
      s.b += delta * (x - s.a);
    } else if (MODE == MODE_BN_BACKWARD) {
      const compute_t g = dy_load(p.dy_offset + offset);
      s.a += g;
      s.b += g * (x - mean_c);
    } else {
      const uint row = sample_index * p.groups + group;
      const compute_t g = dy_load(p.dy_offset + offset);
      const compute_t x_hat = (x - stat_a_load(p.stat_a_offset + row)) * stat_b_load(p.stat_b_offset + row);
      s.a += g * x_hat;
      s.b += g;
    }
    j += step_j;
    sample_index += step_samples;
    if (j >= p.inner) {
      j -= p.inner;
      sample_index += 1u;
    }
  }
  return s;
}

// STAGE_COLUMNS (inner == 1): one invocation per channel walks a chunk of the samples on its own,
// with no barrier; neighbouring invocations read neighbouring channels.
State reduce_column(uint c, uint chunk) {
  State s = State(compute_t(0), compute_t(0), compute_t(0));
  const uint first = chunk * p.chunk_length;
  const uint end = min(p.samples, first + p.chunk_length);
  const uint group = MODE == MODE_AFFINE_GRAD ? c / p.group_channels : 0u;
  compute_t mean_c = compute_t(0);
  if (MODE == MODE_BN_BACKWARD) mean_c = stat_a_load(p.stat_a_offset + c);
  for (uint n = first; n < end; ++n) {
    const uint offset = n * p.channels + c;
    const compute_t x = src_load(p.in_offset + offset);
    if (MODE == MODE_STATS) {
      s.count += compute_t(1);
      const compute_t delta = x - s.a;
      s.a += delta / s.count;
      s.b += delta * (x - s.a);
    } else if (MODE == MODE_BN_BACKWARD) {
      const compute_t g = dy_load(p.dy_offset + offset);
      s.a += g;
      s.b += g * (x - mean_c);
    } else {
      const uint row = n * p.groups + group;
      const compute_t g = dy_load(p.dy_offset + offset);
      s.a += g * (x - stat_a_load(p.stat_a_offset + row)) * stat_b_load(p.stat_b_offset + row);
      s.b += g;
    }
  }
  return s;
}

void store_state(uint slot, State s) {
  states[3u * slot] = s.a;
  states[3u * slot + 1u] = s.b;
  states[3u * slot + 2u] = s.count;
}

State load_state(uint slot) {
  return State(states[3u * slot], states[3u * slot + 1u], states[3u * slot + 2u]);
}

void main() {
  COPY_PUSH_CONSTANTS();
  const uint workgroup = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (STAGE == STAGE_COLUMNS) {
    const uint tiles = (p.channels + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
    const uint chunk = workgroup / tiles;
    const uint c = (workgroup - chunk * tiles) * WORKGROUP_SIZE + gl_LocalInvocationID.x;
    if (chunk >= p.chunks || c >= p.channels) return;
    const State total = reduce_column(c, chunk);
    if ((p.flags & FLAG_FINALIZE) != 0u) {
      finalize(c, total);
    } else {
      store_state((p.state_base + chunk) * p.channels + c, total);
    }
  } else if (STAGE == STAGE_ELEMENTS) {
    // Whole workgroups leave together, so the tree's barriers see every invocation.
    if (workgroup >= p.channels * p.chunks) return;
    const uint c = workgroup % p.channels;
    const uint chunk = workgroup / p.channels;
    const State total = workgroup_merge(reduce_elements(c, chunk));
    if (gl_LocalInvocationID.x != 0u) return;
    if ((p.flags & FLAG_FINALIZE) != 0u) {
      finalize(c, total);
    } else {
      store_state((p.state_base + chunk) * p.channels + c, total);
    }
  } else {
    if (workgroup >= p.channels) return;
    const uint c = workgroup;
    State s = State(compute_t(0), compute_t(0), compute_t(0));
    for (uint k = gl_LocalInvocationID.x; k < p.state_base; k += WORKGROUP_SIZE) {
      s = merge(s, load_state(k * p.channels + c));
    }
    const State total = workgroup_merge(s);
    if (gl_LocalInvocationID.x == 0u) finalize(c, total);
  }
}
