#version 450
// The CTC loss's gradient (runtime/kernels/loss.h, CtcGradientArgs) for the launch's rows, a row being
// one frame t of one sequence n, in two modes:
//   MODE_OCCUPANCY  one invocation per row: shift = max over positions of alpha + beta (0 where that is
//                   -inf), then each position adds exp(alpha + beta - shift) to the gradient cell of its
//                   label (which starts at zero), so that a cell holds the row's occupancy of its class.
//   MODE_FINISH     one invocation per cell: exp(lp) - exp(log(occupancy) + shift + nll - lp).
// Rows past a sequence's frames, and with zero_infinity those of an infinite loss, stay zero.
#include "math.glsl"
#include "push_constants.glsl"
#include "divide.glsl"

layout(constant_id = 0) const uint MODE = 0;
#define MODE_OCCUPANCY 0u
#define MODE_FINISH 1u
layout(local_size_x = 256) in;

layout(set = 0, binding = 0) buffer Grad { compute_t grad[]; };
layout(set = 0, binding = 1) readonly buffer LogProbs { compute_t log_probs[]; };
layout(set = 0, binding = 2) readonly buffer Alpha { compute_t alpha[]; };
layout(set = 0, binding = 3) readonly buffer Beta { compute_t beta[]; };
layout(set = 0, binding = 4) readonly buffer Labels { int labels[]; };
layout(set = 0, binding = 5) readonly buffer Nll { compute_t nll[]; };
layout(set = 0, binding = 6) readonly buffer Lengths { int input_lengths[]; };
layout(set = 0, binding = 7) buffer Shift { compute_t shift[]; };

struct Params {
  uint grad_offset;  // of the launch's first row, as the other row offsets
  uint log_probs_offset;
  uint alpha_offset;
  uint beta_offset;
  uint shift_offset;
  uint labels_offset;
  uint nll_offset;
  uint lengths_offset;
  uint first_row;  // of the whole, below 2^24
  uint rows;       // of the launch; rows × classes below 2^24
  uint batch;
  uint positions;
  uint classes;
  uint zero_infinity;
};
DECLARE_PUSH_CONSTANTS(Params)

// Whether row i of the launch keeps a zero gradient; `n` is its sequence.
bool zero_row(uint i, out uint n) {
  const uint r = p.first_row + i;
  const uint t = divide_small(r, p.batch);
  n = r - t * p.batch;
  if (int(t) >= input_lengths[p.lengths_offset + n]) return true;
  return p.zero_infinity != 0u && nll[p.nll_offset + n] == mc_inf();
}

void main() {
  COPY_PUSH_CONSTANTS();
  const uint width = p.positions + 2u;
  if (MODE == MODE_OCCUPANCY) {
    const uint i = gl_GlobalInvocationID.x;
    uint n;
    if (i >= p.rows || zero_row(i, n)) return;
    const uint a = p.alpha_offset + i * width + 2u, b = p.beta_offset + i * width;
    compute_t m = -mc_inf();
    for (uint s = 0u; s < p.positions; ++s) m = nan_max(m, alpha[a + s] + beta[b + s]);
    if (m == -mc_inf()) m = compute_t(0);
    shift[p.shift_offset + i] = m;
    const uint g = p.grad_offset + i * p.classes, l = p.labels_offset + n * p.positions;
    for (uint s = 0u; s < p.positions; ++s) grad[g + uint(labels[l + s])] += m_exp(alpha[a + s] + beta[b + s] - m);
    return;
  }
  const uint e = gl_GlobalInvocationID.x;
  if (e >= p.rows * p.classes) return;
  const uint i = divide_small(e, p.classes);
  uint n;
  if (zero_row(i, n)) return;
  const uint cell = e - i * p.classes;
  const compute_t lp = log_probs[p.log_probs_offset + i * p.classes + cell];
  const compute_t occupancy = grad[p.grad_offset + i * p.classes + cell];
  grad[p.grad_offset + i * p.classes + cell] =
      m_exp(lp) - m_exp(m_log(occupancy) + shift[p.shift_offset + i] + nll[p.nll_offset + n] - lp);
}
