#version 450
#ifdef TEXEL_READS
#extension GL_EXT_samplerless_texture_functions : require
#endif
// One fused optimizer step over many parameters: PyTorch 1.13's single-tensor SGD, Adam (AdamW), RMSprop,
// Adagrad, Adamax, Adadelta, RAdam, Rprop and ASGD, and NAdam's multi-tensor formula
// (torch/optim/<name>.py), each operation in compute_t and in PyTorch's order.
//
// The launch walks a table of segments (binding 0): runs of up to a few million elements of one parameter,
// each with the element offsets of its parameter, gradient, state and step count in the launch's windows
// (bindings 1 to 6: one window of memory per role, see optim_launcher.cpp). Workgroup w takes TILE
// elements of the segment whose first workgroup is the last one at or below w, found by binary search.
//
// The step count of a parameter is a float32 pair: every invocation reads the old count from slot
// `parity`, and invocation 0 of the segment's first workgroup writes the new count into the other slot,
// so that no invocation can read a count written in the same launch. NAdam's mu_product, and ASGD's eta
// and mu, are further pairs after it, kept the same way. Bias corrections (Adam, Adamax, RAdam, NAdam),
// RAdam's rectification, NAdam's momentum cache, ASGD's eta and mu and the decayed learning rate
// (Adagrad) come from them here, so the host never reads them. Every invocation computes them itself:
// on llvmpipe a workgroup barrier, to share them, cost more than the arithmetic.
//
// With FLAG_SKIPPABLE, binding 7 holds a float32 flag (GradScaler's found_inf): where it is nonzero the
// launch changes nothing but the step count's other slot, which gets the old count, and the state of a
// fresh parameter, which gets its initial value; the host flips the parity and marks the state
// initialised without knowing whether the step ran.
//
// An invocation updates ROUNDS runs of ELEMS adjacent elements and looks the table up once for all of
// them (measured on lavapipe, the MLP's Adam step: 8 runs 0.98-1.06 ms against 4 runs' 1.04-1.12, in
// alternating rounds; 16 were slower again, as the weight's 13 workgroups split unevenly over 2 threads).
// Where the launch allows blocks (FLAG_BLOCKS: windows on 16 bytes) and the segment's offsets are
// multiples of four, the runs move as whole words (blocks.glsl); a segment's ragged end, and any other
// segment, goes element by element.
#include "typed_operands.glsl"
#include "blocks.glsl"
#include "math.glsl"

#define WORKGROUP_SIZE 256
#define ELEMS BLOCK_ELEMENTS  // adjacent elements an invocation updates together
#define ROUNDS 8              // of ELEMS elements per invocation, which share the table lookups
#define TILE (WORKGROUP_SIZE * ELEMS * ROUNDS)
layout(local_size_x = WORKGROUP_SIZE) in;

layout(constant_id = 0) const uint DT = DT_F32;  // parameters, gradients and state
layout(constant_id = 1) const uint ALGO = 0;
#define ALGO_SGD 0u
#define ALGO_ADAM 1u
#define ALGO_RMSPROP 2u
#define ALGO_ADAGRAD 3u
#define ALGO_ADAMAX 4u
#define ALGO_ADADELTA 5u
#define ALGO_RADAM 6u
#define ALGO_RPROP 7u
#define ALGO_NADAM 8u
#define ALGO_ASGD 9u

// Flags of the launch.
#define FLAG_MAXIMIZE 1u
#define FLAG_WEIGHT_DECAY 2u  // weight_decay != 0 (L2 on the gradient, or AdamW's decay)
#define FLAG_MOMENTUM 4u      // SGD momentum != 0, RMSprop momentum > 0
#define FLAG_NESTEROV 8u
#define FLAG_AMSGRAD 16u
#define FLAG_DECOUPLED 32u    // AdamW
#define FLAG_CENTERED 64u
#define FLAG_BLOCKS 128u      // every window starts on 16 bytes
#define FLAG_SKIPPABLE 256u   // binding 7 holds the skip flag

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

#ifdef TEXEL_READS
layout(set = 0, binding = 0) uniform utextureBuffer table;
#else
layout(set = 0, binding = 0) readonly buffer Table { uint table[]; };
#endif
#ifdef TEXEL_READS
// Float32 only: the roles are read through uniform texel buffers, uvec4 views of the same memory at
// bindings 8 to 12, and written through their storage buffers. llvmpipe fetches a texel for all lanes
// at once, where it loads a storage buffer lane by lane (docs/PERFORMANCE.md, "The Adam step").
// The gradients are only read, so binding 2 is not declared.
#define DECLARE_READS(TEXELS, NAME)                                                                  \
  layout(set = 0, binding = TEXELS) uniform utextureBuffer NAME##_texels;                            \
  compute_t NAME##_load(uint i) { return float_from_texels(NAME##_texels, i); }                   \
  compute4_t NAME##_load4(uint block) { return uintBitsToFloat(texelFetch(NAME##_texels, int(block))); }
#define DECLARE_ROLE(BINDING, TEXELS, NAME, QUALIFIER) \
  DECLARE_OPERAND(BINDING, NAME, QUALIFIER)           \
  DECLARE_BLOCK_VIEWS(BINDING, NAME, QUALIFIER)       \
  DECLARE_READS(TEXELS, NAME)
#else
#define DECLARE_ROLE(BINDING, TEXELS, NAME, QUALIFIER) \
  DECLARE_OPERAND(BINDING, NAME, QUALIFIER)           \
  DECLARE_BLOCK_VIEWS(BINDING, NAME, QUALIFIER)       \
  DEFINE_LOAD(NAME, DT)                               \
  DEFINE_LOAD4(NAME, DT)
#endif
DECLARE_ROLE(1, 8, param, )
DEFINE_STORE(param, DT)
DEFINE_STORE4(param, DT)
#ifdef TEXEL_READS
DECLARE_READS(9, grad)
#else
DECLARE_ROLE(2, 9, grad, readonly)
#endif
DECLARE_ROLE(3, 10, s0, )
DEFINE_STORE(s0, DT)
DEFINE_STORE4(s0, DT)
DECLARE_ROLE(4, 11, s1, )
DEFINE_STORE(s1, DT)
DEFINE_STORE4(s1, DT)
DECLARE_ROLE(5, 12, s2, )
DEFINE_STORE(s2, DT)
DEFINE_STORE4(s2, DT)
layout(set = 0, binding = 6) buffer Steps { float steps[]; };
layout(set = 0, binding = 7) readonly buffer SkipIf { float skip_if[]; };

// The options, as compute_t bits (scalar_from_bits). Their meaning per algorithm:
//   SGD      h0 -lr, h1 momentum, h2 1 - dampening, h3 weight_decay
//   Adam     h0 lr, h1 beta1, h2 beta2, h3 eps, h4 weight_decay, h5 log(beta1), h6 log(beta2),
//            h7 1 - beta1, h8 1 - beta2, h9 1 - lr weight_decay (AdamW)
//   RMSprop  h0 -lr, h1 alpha, h2 1 - alpha, h3 eps, h4 weight_decay, h5 momentum
//   Adagrad  h0 lr, h1 lr_decay, h2 weight_decay, h3 eps
//   Adamax   h0 lr, h1 beta1, h2 beta2, h3 eps, h4 weight_decay, h5 log(beta1), h7 1 - beta1
//   Adadelta h0 -lr, h1 rho, h2 1 - rho, h3 eps, h4 weight_decay
//   RAdam    as Adam, and h9 rho_inf = 2 / (1 - beta2) - 1
//   Rprop    h0 lr (the first step size), h1 etaminus, h2 etaplus, h3 step_size_min, h4 step_size_max
//   NAdam    h0 lr, h1 beta1, h2 beta2, h3 eps, h4 weight_decay, h6 log(beta2), h7 1 - beta1, h8 1 - beta2,
//            h9 log(0.96) momentum_decay
//   ASGD     h0 lr, h1 lambd, h2 alpha, h3 t0, h4 weight_decay, h5 lambd lr
layout(push_constant) uniform Params {
  uint first_entry;  // word of this launch's first table entry
  uint entries;
  uint flags;
  uint skip_index;  // the skip flag's element in binding 7 (FLAG_SKIPPABLE)
  uvec2 h[10];
} pc;

compute_t hyper(uint i) { return scalar_from_bits(pc.h[i]); }
bool flag(uint f) { return (pc.flags & f) != 0u; }
// Words 4 quad to 4 quad + 3 of a table entry (first_entry is a multiple of 4 with TEXEL_READS).
uvec4 entry_quad(uint entry, uint quad) {
#ifdef TEXEL_READS
  return texelFetch(table, int(pc.first_entry / 4u + entry * (ENTRY_WORDS / 4u) + quad));
#else
  const uint w = pc.first_entry + entry * ENTRY_WORDS + 4u * quad;
  return uvec4(table[w], table[w + 1u], table[w + 2u], table[w + 3u]);
#endif
}

// Which state slots the algorithm keeps under this launch's flags.
bool uses_state(uint slot) {
  if (slot == 0u) return ALGO != ALGO_SGD || flag(FLAG_MOMENTUM);
  if (slot == 1u) {
    return ALGO != ALGO_SGD && ALGO != ALGO_ADAGRAD && ALGO != ALGO_ASGD && (ALGO != ALGO_RMSPROP || flag(FLAG_MOMENTUM));
  }
  return (ALGO == ALGO_ADAM && flag(FLAG_AMSGRAD)) || (ALGO == ALGO_RMSPROP && flag(FLAG_CENTERED));
}

// Adamax's infinity norm on whole vectors (math.glsl's nan_max per lane).
compute4_t nan_max(compute4_t a, compute4_t b) {
  return compute4_t(nan_max(a.x, b.x), nan_max(a.y, b.y), nan_max(a.z, b.z), nan_max(a.w, b.w));
}

// Rprop on one element (st0 prev, st1 step_size). The step size grows or shrinks with the sign of
// g * prev; where the sign flipped, the gradient counts as 0, so the parameter stays and the next step
// starts afresh. As Python, the sign becomes the factor in three rewrites, > 0 to etaplus, < 0 to
// etaminus, then 0 to 1, and the gradient is zeroed where the factor equals etaminus: an etaminus that
// rounded to 0 in the parameter's dtype (h1 arrives rounded) keeps the step size, one that rounded to 1
// zeroes every unflipped gradient too. PyTorch's sign of NaN is 0: a NaN product keeps the step size, a
// NaN gradient moves nothing. Python's step size is a tensor of the parameter's dtype, rounded before
// the parameter moves by it (h0, its first value, arrives rounded).
void rprop(inout compute_t p, compute_t g, inout compute_t prev, inout compute_t size) {
  const compute_t product = g * prev;
  compute_t factor = product > compute_t(0) ? hyper(2) : (product < compute_t(0) ? hyper(1) : compute_t(0));
  if (factor == compute_t(0)) factor = compute_t(1);
  if (factor == hyper(1)) g = compute_t(0);
  size = as_stored(DT, clamp(size * factor, hyper(3), hyper(4)));
  const compute_t direction = g > compute_t(0) ? compute_t(1) : (g < compute_t(0) ? compute_t(-1) : compute_t(0));
  p = p - direction * size;
  prev = g;
}
void rprop(inout compute4_t p, compute4_t g, inout compute4_t prev, inout compute4_t size) {
  for (int c = 0; c < 4; ++c) rprop(p[c], g[c], prev[c], size[c]);
}

// One step of an element (T = compute_t) or of a block of four (T = compute4_t, every operation
// componentwise), in PyTorch's order: p and the state values (st0 to st2, read only where the state is not
// fresh, except Adagrad's, which starts filled) are updated in place.
#define DEFINE_UPDATE(NAME, T)                                                                            \
  void NAME(inout T p, T g, inout T st0, inout T st1, inout T st2, bool fresh, compute_t step_size,       \
            compute_t bc2_sqrt, compute_t extra) {                                                        \
  if (flag(FLAG_MAXIMIZE)) g = -g;                                                                        \
  if (ALGO == ALGO_SGD) {                                                                                 \
    if (flag(FLAG_WEIGHT_DECAY)) g = g + hyper(3) * p;                                                    \
    if (flag(FLAG_MOMENTUM)) {                                                                            \
      const T buf = fresh ? g : st0 * hyper(1) + hyper(2) * g;  /* torch.clone(d_p) on the first step */  \
      st0 = buf;                                                                                          \
      g = flag(FLAG_NESTEROV) ? g + hyper(1) * buf : buf;                                                 \
    }                                                                                                     \
    p = p + hyper(0) * g;                                                                                 \
  } else if (ALGO == ALGO_ADAM) {                                                                         \
    if (flag(FLAG_DECOUPLED)) {                                                                           \
      p = p * hyper(9);                                                                                   \
    } else if (flag(FLAG_WEIGHT_DECAY)) {                                                                 \
      g = g + hyper(4) * p;                                                                               \
    }                                                                                                     \
    const T m = (fresh ? T(0) : st0) * hyper(1) + hyper(7) * g;                                           \
    const T v = (fresh ? T(0) : st1) * hyper(2) + hyper(8) * g * g;                                       \
    st0 = m;                                                                                              \
    st1 = v;                                                                                              \
    T v_used = v;                                                                                         \
    if (flag(FLAG_AMSGRAD)) {                                                                             \
      v_used = max(fresh ? T(0) : st2, v);                                                                \
      st2 = v_used;                                                                                       \
    }                                                                                                     \
    const T denom = sqrt(v_used) / bc2_sqrt + hyper(3);                                                   \
    p = p + (-step_size) * m / denom;                                                                     \
  } else if (ALGO == ALGO_RMSPROP) {                                                                      \
    if (flag(FLAG_WEIGHT_DECAY)) g = g + hyper(4) * p;                                                    \
    const T sq = (fresh ? T(0) : st0) * hyper(1) + hyper(2) * g * g;                                      \
    st0 = sq;                                                                                             \
    T avg;                                                                                                \
    if (flag(FLAG_CENTERED)) {                                                                            \
      const T ga = (fresh ? T(0) : st2) * hyper(1) + hyper(2) * g;                                        \
      st2 = ga;                                                                                           \
      avg = sqrt(sq + compute_t(-1) * ga * ga) + hyper(3);                                                \
    } else {                                                                                              \
      avg = sqrt(sq) + hyper(3);                                                                          \
    }                                                                                                     \
    if (flag(FLAG_MOMENTUM)) {                                                                            \
      const T buf = (fresh ? T(0) : st1) * hyper(5) + g / avg;                                            \
      st1 = buf;                                                                                          \
      p = p + hyper(0) * buf;                                                                             \
    } else {                                                                                              \
      p = p + hyper(0) * g / avg;                                                                         \
    }                                                                                                     \
  } else if (ALGO == ALGO_ADAMAX) {                                                                       \
    if (flag(FLAG_WEIGHT_DECAY)) g = g + hyper(4) * p;                                                    \
    const T m = (fresh ? T(0) : st0) * hyper(1) + hyper(7) * g;                                           \
    const T u = nan_max((fresh ? T(0) : st1) * hyper(2), abs(g) + hyper(3));  /* the infinity norm */     \
    st0 = m;                                                                                              \
    st1 = u;                                                                                              \
    p = p + (-step_size) * m / u;                                                                         \
  } else if (ALGO == ALGO_ADADELTA) {                                                                     \
    if (flag(FLAG_WEIGHT_DECAY)) g = g + hyper(4) * p;                                                    \
    const T sq = (fresh ? T(0) : st0) * hyper(1) + hyper(2) * g * g;                                      \
    const T acc = fresh ? T(0) : st1;                                                                     \
    const T delta = sqrt(acc + hyper(3)) / sqrt(sq + hyper(3)) * g;                                       \
    st0 = sq;                                                                                             \
    st1 = acc * hyper(1) + hyper(2) * delta * delta;                                                      \
    p = p + hyper(0) * delta;                                                                             \
  } else if (ALGO == ALGO_RADAM) {  /* step_size: the first bias correction; extra: the rectification */  \
    if (flag(FLAG_WEIGHT_DECAY)) g = g + hyper(4) * p;                                                    \
    const T m = (fresh ? T(0) : st0) * hyper(1) + hyper(7) * g;                                           \
    const T v = (fresh ? T(0) : st1) * hyper(2) + hyper(8) * g * g;                                       \
    st0 = m;                                                                                              \
    st1 = v;                                                                                              \
    const T corrected = m / step_size;                                                                    \
    if (extra > compute_t(0)) {  /* 0: not rectified */                                                   \
      p = p - corrected * hyper(0) * (bc2_sqrt / (sqrt(v) + hyper(3))) * extra;                           \
    } else {                                                                                              \
      p = p - corrected * hyper(0);                                                                       \
    }                                                                                                     \
  } else if (ALGO == ALGO_RPROP) {  /* fresh state arrives as its initial values (main) */                \
    rprop(p, g, st0, st1);                                                                                \
  } else if (ALGO == ALGO_NADAM) {  /* step_size: the gradient's coefficient; extra: the average's */     \
    if (flag(FLAG_WEIGHT_DECAY)) g = g + hyper(4) * p;                                                    \
    const T m = (fresh ? T(0) : st0) * hyper(1) + hyper(7) * g;                                           \
    const T v = (fresh ? T(0) : st1) * hyper(2) + hyper(8) * g * g;                                       \
    st0 = m;                                                                                              \
    st1 = v;                                                                                              \
    const T denom = sqrt(v) / bc2_sqrt + hyper(3);                                                        \
    p = p + (-step_size) * (g / denom);                                                                   \
    p = p + (-extra) * (m / denom);                                                                       \
  } else if (ALGO == ALGO_ASGD) {  /* step_size: the last step's eta; extra: its mu */                    \
    if (flag(FLAG_WEIGHT_DECAY)) g = g + hyper(4) * p;                                                    \
    p = p * (compute_t(1) - hyper(1) * step_size);                                                        \
    p = p + (-step_size) * g;                                                                             \
    st0 = extra != compute_t(1) ? st0 + (p - st0) * extra : p;  /* the average ax */                      \
  } else {  /* Adagrad; its sum starts at initial_accumulator_value, filled when the state was made */    \
    if (flag(FLAG_WEIGHT_DECAY)) g = g + hyper(2) * p;                                                    \
    const T sum = st0 + g * g;                                                                            \
    st0 = sum;                                                                                            \
    const T std_ = sqrt(sum) + hyper(3);                                                                  \
    p = p + step_size * g / std_;                                                                         \
  }                                                                                                       \
}
DEFINE_UPDATE(update, compute_t)
DEFINE_UPDATE(update4, compute4_t)

void main() {
  const uint group = gl_WorkGroupID.x;
  // The last entry whose first workgroup is at or below this one.
  uint lo = 0u, hi = pc.entries - 1u;
  while (lo < hi) {
    const uint mid = (lo + hi + 1u) >> 1;
    if (entry_quad(mid, 0u)[E_FIRST_GROUP] <= group) lo = mid; else hi = mid - 1u;
  }
  const uint entry = lo;
  const uvec4 words0 = entry_quad(entry, 0u), words1 = entry_quad(entry, 1u);
  const uint count = words0[E_COUNT];
  const uint segment_flags = words0[E_FLAGS];
  const bool fresh = (segment_flags & SEGMENT_FRESH) != 0u;
  const uint start = (group - words0[E_FIRST_GROUP]) * TILE;
  const uint base[5] = {words0[E_PARAM], words1[E_GRAD - 4u], words1[E_STATE0 - 4u], words1[E_STATE0 + 1u - 4u],
                        words1[E_STATE0 + 2u - 4u]};  // param, grad, state 0 to 2
  const bool skip = flag(FLAG_SKIPPABLE) && skip_if[pc.skip_index] != 0.0;

  // The step count, and what the algorithm derives from it.
  compute_t step_size = compute_t(0);  // Adam, Adamax: lr / (1 - beta1^t); RAdam: 1 - beta1^t;
                                       // Adagrad: -lr / (1 + (t - 1) lr_decay)
                                       // NAdam: lr (1 - mu_t) / (1 - mu_product); ASGD: the last eta
  compute_t bc2_sqrt = compute_t(1);   // Adam, RAdam, NAdam: sqrt(1 - beta2^t)
  compute_t extra = compute_t(0);      // RAdam: the variance rectification, 0 where rho_t <= 5;
                                       // NAdam: lr mu_t+1 / (1 - mu_product mu_t+1); ASGD: the last mu
  if (ALGO != ALGO_SGD) {
    const uint steps_base = entry_quad(entry, E_STEPS / 4u)[E_STEPS % 4u];
    const uint parity = (segment_flags & SEGMENT_PARITY) != 0u ? 1u : 0u;
    const float t = (fresh ? 0.0 : steps[steps_base + parity]) + (skip ? 0.0 : 1.0);
    const bool writes_scalars = start == 0u && gl_LocalInvocationID.x == 0u;
    if (writes_scalars) steps[steps_base + (parity ^ 1u)] = t;
    if (ALGO == ALGO_ADAM || ALGO == ALGO_ADAMAX) {
      // 1 - beta^t as -expm1(t log(beta)), which keeps its digits where beta^t is near 1.
      step_size = hyper(0) / -m_expm1(compute_t(t) * hyper(5));
      if (ALGO == ALGO_ADAM) bc2_sqrt = sqrt(-m_expm1(compute_t(t) * hyper(6)));
    } else if (ALGO == ALGO_RADAM) {
      step_size = -m_expm1(compute_t(t) * hyper(5));
      const compute_t bc2 = -m_expm1(compute_t(t) * hyper(6));
      bc2_sqrt = sqrt(bc2);
      const compute_t rho_inf = hyper(9);
      const compute_t rho_t = rho_inf - compute_t(2) * compute_t(t) * m_exp(compute_t(t) * hyper(6)) / bc2;
      if (rho_t > compute_t(5)) {
        extra = sqrt((rho_t - compute_t(4)) * (rho_t - compute_t(2)) * rho_inf /
                     ((rho_inf - compute_t(4)) * (rho_inf - compute_t(2)) * rho_t));
      }
    } else if (ALGO == ALGO_ADAGRAD) {
      step_size = -(hyper(0) / (compute_t(1) + (compute_t(t) - compute_t(1)) * hyper(1)));
    } else if (ALGO == ALGO_NADAM) {
      // The momentum cache mu_t = beta1 (1 - 0.96^(t momentum_decay) / 2), and the float32 product of
      // mu_1 to mu_t, which Python keeps as a tensor.
      const compute_t mu = hyper(1) * (compute_t(1) - compute_t(0.5) * m_exp(compute_t(t) * hyper(9)));
      const compute_t mu_next = hyper(1) * (compute_t(1) - compute_t(0.5) * m_exp(compute_t(t + 1.0) * hyper(9)));
      const float old_product = fresh ? 1.0 : steps[steps_base + 2u + parity];
      const float mu_product = skip ? old_product : old_product * float(mu);
      if (writes_scalars) steps[steps_base + 2u + (parity ^ 1u)] = mu_product;
      bc2_sqrt = sqrt(-m_expm1(compute_t(t) * hyper(6)));
      step_size = hyper(0) * (compute_t(1) - mu) / (compute_t(1) - compute_t(mu_product));
      extra = hyper(0) * mu_next / (compute_t(1) - compute_t(mu_product) * mu_next);
    } else if (ALGO == ALGO_ASGD) {
      // This step moves by the eta and averages with the mu of the last one (a fresh parameter's: lr as a
      // float32 tensor, and 1), and leaves eta = lr / (1 + lambd lr t)^alpha and mu = 1 / max(1, t - t0)
      // for the next, float32 tensors in Python.
      const float old_eta = fresh ? float(hyper(0)) : steps[steps_base + 2u + parity];
      const float old_mu = fresh ? 1.0 : steps[steps_base + 4u + parity];
      if (writes_scalars) {
        const compute_t eta = hyper(0) * m_exp(-hyper(2) * m_log1p(hyper(5) * compute_t(t)));
        const compute_t mu = compute_t(1) / max(compute_t(1), compute_t(t) - hyper(3));
        steps[steps_base + 2u + (parity ^ 1u)] = skip ? old_eta : float(eta);
        steps[steps_base + 4u + (parity ^ 1u)] = skip ? old_mu : float(mu);
      }
      step_size = compute_t(old_eta);
      extra = compute_t(old_mu);
    }
  }

  // A skipped step writes only a fresh parameter's initial state (what st0 to st2 start as: zeros, and
  // Rprop's step size lr; Adagrad's state is made filled, never fresh here).
  if (skip && (!fresh || ALGO == ALGO_ADAGRAD)) return;
  const compute_t initial_s1 = ALGO == ALGO_RPROP ? hyper(0) : compute_t(0);
  const bool read_state = !fresh || ALGO == ALGO_ADAGRAD;
  const bool use0 = uses_state(0u), use1 = uses_state(1u), use2 = uses_state(2u);
  const bool aligned = flag(FLAG_BLOCKS) && base[0] % ELEMS == 0u && base[1] % ELEMS == 0u &&
                       (!use0 || base[2] % ELEMS == 0u) && (!use1 || base[3] % ELEMS == 0u) &&
                       (!use2 || base[4] % ELEMS == 0u);
  const uint lane = gl_LocalInvocationID.x;
  // Whole blocks first. An invocation's runs lie in increasing order, so its first run that is not a
  // whole block ends its part of the loop.
  for (uint round = 0u; round < ROUNDS; ++round) {
    const uint first = start + (round * WORKGROUP_SIZE + lane) * ELEMS;
    if (!aligned || first + ELEMS > count) break;
    const uint b = first / ELEMS;
    compute4_t p = param_load4(base[0] / ELEMS + b), g = grad_load4(base[1] / ELEMS + b);
    compute4_t st0 = compute4_t(0), st1 = compute4_t(initial_s1), st2 = compute4_t(0);
    if (use0 && read_state) st0 = s0_load4(base[2] / ELEMS + b);
    if (use1 && read_state) st1 = s1_load4(base[3] / ELEMS + b);
    if (use2 && read_state) st2 = s2_load4(base[4] / ELEMS + b);
    if (!skip) {
      update4(p, g, st0, st1, st2, fresh, step_size, bc2_sqrt, extra);
      param_store4(base[0] / ELEMS + b, p);
    }
    if (use0) s0_store4(base[2] / ELEMS + b, st0);
    if (use1) s1_store4(base[3] / ELEMS + b, st1);
    if (use2) s2_store4(base[4] / ELEMS + b, st2);
  }

  // Then, element by element, what the blocks left: every run of this invocation where the segment
  // cannot move blocks, else the segment's ragged end (fewer than ELEMS elements) where that run is this
  // invocation's.
  // This is a loop of its own, after the blocks, because llvmpipe 22.3 runs the code of both sides of a
  // branch whatever the lanes take, only masking its effects: inside the rounds, an element path that
  // no lane needed cost the MLP's Adam step about a third of its time (docs/PERFORMANCE.md).
  uint round = 0u, rounds = ROUNDS;
  if (aligned) {
    const uint ragged = count - count % ELEMS;  // the first element past the whole blocks
    uint run = 0u;
    bool mine = false;
    if (ragged < count && ragged >= start) {
      run = (ragged - start) / ELEMS;
      mine = run < ROUNDS * WORKGROUP_SIZE && run % WORKGROUP_SIZE == lane;
    }
    round = mine ? run / WORKGROUP_SIZE : ROUNDS;
    rounds = mine ? round + 1u : ROUNDS;
  }
  for (; round < rounds; ++round) {
    const uint first = start + (round * WORKGROUP_SIZE + lane) * ELEMS;
    if (first >= count) break;
    for (uint i = first; i < min(count, first + ELEMS); ++i) {
      compute_t p = param_load(base[0] + i), g = grad_load(base[1] + i);
      compute_t st0 = compute_t(0), st1 = initial_s1, st2 = compute_t(0);
      if (use0 && read_state) st0 = s0_load(base[2] + i);
      if (use1 && read_state) st1 = s1_load(base[3] + i);
      if (use2 && read_state) st2 = s2_load(base[4] + i);
      if (!skip) {
        update(p, g, st0, st1, st2, fresh, step_size, bc2_sqrt, extra);
        param_store(base[0] + i, p);
      }
      if (use0) s0_store(base[2] + i, st0);
      if (use1) s1_store(base[3] + i, st1);
      if (use2) s2_store(base[4] + i, st2);
    }
  }
}
