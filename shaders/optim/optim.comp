#version 450
// One fused optimizer step over many parameters: PyTorch 1.13's single-tensor SGD, Adam (AdamW), RMSprop
// and Adagrad (torch/optim/<name>.py), each operation in compute_t and in PyTorch's order.
//
// The launch walks a table of segments (binding 0): runs of up to a few million elements of one parameter,
// each with the element offsets of its parameter, gradient, state and step count in the launch's windows
// (bindings 1 to 6: one window of memory per role, see optim_launcher.cpp). Workgroup w takes TILE
// elements of the segment whose first workgroup is the last one at or below w, found by binary search.
//
// The step count of a parameter is a float32 pair: every invocation reads the old count from slot
// `parity`, and invocation 0 of the segment's first workgroup writes the new count into the other slot,
// so that no invocation can read a count written in the same launch. Bias corrections (Adam) and the
// decayed learning rate (Adagrad) come from the count here, so the host never reads it.
#include "typed_operands.glsl"
#include "math.glsl"

#define WORKGROUP_SIZE 256
#define ELEMS 4  // per invocation
#define TILE (WORKGROUP_SIZE * ELEMS)
layout(local_size_x = WORKGROUP_SIZE) in;

layout(constant_id = 0) const uint DT = DT_F32;  // parameters, gradients and state
layout(constant_id = 1) const uint ALGO = 0;
#define ALGO_SGD 0u
#define ALGO_ADAM 1u
#define ALGO_RMSPROP 2u
#define ALGO_ADAGRAD 3u

// Flags of the launch.
#define FLAG_MAXIMIZE 1u
#define FLAG_WEIGHT_DECAY 2u  // weight_decay != 0 (L2 on the gradient, or AdamW's decay)
#define FLAG_MOMENTUM 4u      // SGD momentum != 0, RMSprop momentum > 0
#define FLAG_NESTEROV 8u
#define FLAG_AMSGRAD 16u
#define FLAG_DECOUPLED 32u    // AdamW
#define FLAG_CENTERED 64u

// Flags of a segment.
#define SEGMENT_FRESH 1u   // the state is PyTorch's initial state, whatever the memory holds
#define SEGMENT_PARITY 2u  // the old step count is in slot 1

// A table entry, ENTRY_WORDS uints.
#define ENTRY_WORDS 16u
#define E_FIRST_GROUP 0u
#define E_COUNT 1u
#define E_FLAGS 2u
#define E_PARAM 3u
#define E_GRAD 4u
#define E_STATE0 5u  // E_STATE0 + slot
#define E_STEPS 8u

layout(set = 0, binding = 0) readonly buffer Table { uint table[]; };
DECLARE_OPERAND(1, param, )
DEFINE_LOAD(param, DT)
DEFINE_STORE(param, DT)
DECLARE_OPERAND(2, grad, readonly)
DEFINE_LOAD(grad, DT)
DECLARE_OPERAND(3, s0, )
DEFINE_LOAD(s0, DT)
DEFINE_STORE(s0, DT)
DECLARE_OPERAND(4, s1, )
DEFINE_LOAD(s1, DT)
DEFINE_STORE(s1, DT)
DECLARE_OPERAND(5, s2, )
DEFINE_LOAD(s2, DT)
DEFINE_STORE(s2, DT)
layout(set = 0, binding = 6) buffer Steps { float steps[]; };

// The options, as compute_t bits (scalar_from_bits). Their meaning per algorithm:
//   SGD      h0 -lr, h1 momentum, h2 1 - dampening, h3 weight_decay
//   Adam     h0 lr, h1 beta1, h2 beta2, h3 eps, h4 weight_decay, h5 log(beta1), h6 log(beta2),
//            h7 1 - beta1, h8 1 - beta2, h9 1 - lr weight_decay (AdamW)
//   RMSprop  h0 -lr, h1 alpha, h2 1 - alpha, h3 eps, h4 weight_decay, h5 momentum
//   Adagrad  h0 lr, h1 lr_decay, h2 weight_decay, h3 eps
layout(push_constant) uniform Params {
  uint first_entry;  // word of this launch's first table entry
  uint entries;
  uint flags;
  uint unused;
  uvec2 h[10];
} pc;

shared compute_t shared_step_size;
shared compute_t shared_bc2_sqrt;

compute_t hyper(uint i) { return scalar_from_bits(pc.h[i]); }
bool flag(uint f) { return (pc.flags & f) != 0u; }
uint entry_word(uint entry, uint word) { return table[pc.first_entry + entry * ENTRY_WORDS + word]; }

void main() {
  const uint group = gl_WorkGroupID.x;
  // The last entry whose first workgroup is at or below this one.
  uint lo = 0u, hi = pc.entries - 1u;
  while (lo < hi) {
    const uint mid = (lo + hi + 1u) >> 1;
    if (entry_word(mid, E_FIRST_GROUP) <= group) lo = mid; else hi = mid - 1u;
  }
  const uint entry = lo;
  const uint count = entry_word(entry, E_COUNT);
  const uint segment_flags = entry_word(entry, E_FLAGS);
  const bool fresh = (segment_flags & SEGMENT_FRESH) != 0u;
  const uint start = (group - entry_word(entry, E_FIRST_GROUP)) * TILE;
  const uint p_base = entry_word(entry, E_PARAM);
  const uint g_base = entry_word(entry, E_GRAD);
  const uint s0_base = entry_word(entry, E_STATE0);
  const uint s1_base = entry_word(entry, E_STATE0 + 1u);
  const uint s2_base = entry_word(entry, E_STATE0 + 2u);

  // The step count, and what the algorithm derives from it: invocation 0 computes them once for the
  // workgroup (every invocation would compute the same), the others read them from shared memory.
  compute_t step_size = compute_t(0);  // Adam: lr / (1 - beta1^t); Adagrad: -lr / (1 + (t - 1) lr_decay)
  compute_t bc2_sqrt = compute_t(1);   // Adam: sqrt(1 - beta2^t)
  if (ALGO != ALGO_SGD) {
    if (gl_LocalInvocationID.x == 0u) {
      shared_step_size = compute_t(0);
      shared_bc2_sqrt = compute_t(1);
      const uint steps_base = entry_word(entry, E_STEPS);
      const uint parity = (segment_flags & SEGMENT_PARITY) != 0u ? 1u : 0u;
      const float old_step = fresh ? 0.0 : steps[steps_base + parity];
      const float t = old_step + 1.0;
      if (start == 0u) steps[steps_base + (parity ^ 1u)] = t;
      if (ALGO == ALGO_ADAM) {
        // 1 - beta^t as -expm1(t log(beta)), which keeps its digits where beta^t is near 1.
        const compute_t bc1 = -m_expm1(compute_t(t) * hyper(5));
        const compute_t bc2 = -m_expm1(compute_t(t) * hyper(6));
        shared_step_size = hyper(0) / bc1;
        shared_bc2_sqrt = sqrt(bc2);
      } else if (ALGO == ALGO_ADAGRAD) {
        shared_step_size = -(hyper(0) / (compute_t(1) + (compute_t(t) - compute_t(1)) * hyper(1)));
      }
    }
    barrier();
    step_size = shared_step_size;
    bc2_sqrt = shared_bc2_sqrt;
  }

  for (uint k = 0u; k < ELEMS; ++k) {
    const uint i = start + k * WORKGROUP_SIZE + gl_LocalInvocationID.x;
    if (i >= count) break;
    compute_t p = param_load(p_base + i);
    compute_t g = grad_load(g_base + i);
    if (flag(FLAG_MAXIMIZE)) g = -g;

    if (ALGO == ALGO_SGD) {
      if (flag(FLAG_WEIGHT_DECAY)) g = g + hyper(3) * p;
      if (flag(FLAG_MOMENTUM)) {
        compute_t buf = g;  // torch.clone(d_p) on the first step
        if (!fresh) buf = s0_load(s0_base + i) * hyper(1) + hyper(2) * g;
        s0_store(s0_base + i, buf);
        g = flag(FLAG_NESTEROV) ? g + hyper(1) * buf : buf;
      }
      p = p + hyper(0) * g;
    } else if (ALGO == ALGO_ADAM) {
      if (flag(FLAG_DECOUPLED)) {
        p = p * hyper(9);
      } else if (flag(FLAG_WEIGHT_DECAY)) {
        g = g + hyper(4) * p;
      }
      const compute_t m_old = fresh ? compute_t(0) : s0_load(s0_base + i);
      const compute_t v_old = fresh ? compute_t(0) : s1_load(s1_base + i);
      const compute_t m = m_old * hyper(1) + hyper(7) * g;
      const compute_t v = v_old * hyper(2) + hyper(8) * g * g;
      s0_store(s0_base + i, m);
      s1_store(s1_base + i, v);
      compute_t v_used = v;
      if (flag(FLAG_AMSGRAD)) {
        const compute_t v_max_old = fresh ? compute_t(0) : s2_load(s2_base + i);
        v_used = max(v_max_old, v);
        s2_store(s2_base + i, v_used);
      }
      const compute_t denom = sqrt(v_used) / bc2_sqrt + hyper(3);
      p = p + (-step_size) * m / denom;
    } else if (ALGO == ALGO_RMSPROP) {
      if (flag(FLAG_WEIGHT_DECAY)) g = g + hyper(4) * p;
      const compute_t sq_old = fresh ? compute_t(0) : s0_load(s0_base + i);
      const compute_t sq = sq_old * hyper(1) + hyper(2) * g * g;
      s0_store(s0_base + i, sq);
      compute_t avg;
      if (flag(FLAG_CENTERED)) {
        const compute_t ga_old = fresh ? compute_t(0) : s2_load(s2_base + i);
        const compute_t ga = ga_old * hyper(1) + hyper(2) * g;
        s2_store(s2_base + i, ga);
        avg = sqrt(sq + compute_t(-1) * ga * ga) + hyper(3);
      } else {
        avg = sqrt(sq) + hyper(3);
      }
      if (flag(FLAG_MOMENTUM)) {
        const compute_t buf_old = fresh ? compute_t(0) : s1_load(s1_base + i);
        const compute_t buf = buf_old * hyper(5) + g / avg;
        s1_store(s1_base + i, buf);
        p = p + hyper(0) * buf;
      } else {
        p = p + hyper(0) * g / avg;
      }
    } else {  // Adagrad; its sum starts at initial_accumulator_value, filled when the state was made
      if (flag(FLAG_WEIGHT_DECAY)) g = g + hyper(2) * p;
      const compute_t sum = s0_load(s0_base + i) + g * g;
      s0_store(s0_base + i, sum);
      const compute_t std_ = sqrt(sum) + hyper(3);
      p = p + step_size * g / std_;
    }
    param_store(p_base + i, p);
  }
}
