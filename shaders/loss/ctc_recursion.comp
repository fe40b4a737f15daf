#version 450
// One CTC recursion (runtime/kernels/loss.h, CtcRecursionArgs) over the launch's frames: one workgroup
// per sequence, its invocations over the extended positions, a barrier between frames, so that a whole
// recursion is one dispatch where the tensor ops took three per frame. The host bounds the frames per
// launch so that frames × position blocks stays under llvmpipe's loop limit.
#include "math.glsl"
#include "push_constants.glsl"

layout(constant_id = 0) const uint BACKWARD = 0;
// Invocations per workgroup (specialization constant 1): the positions rounded up to a power of two, 32
// to 256, so that a short sequence does not leave most of a workgroup idle. 256 is the declared size, as
// every shader declares (tests/reflection_test.cpp); the launcher always sets it.
layout(local_size_x = 256, local_size_x_id = 1) in;

// Read and written by the workgroup's invocations across frames: `coherent`, with a buffer memory
// barrier before each frame's barrier, makes one frame's writes visible to the next frame's reads.
layout(set = 0, binding = 0) coherent buffer Table { compute_t table[]; };
layout(set = 0, binding = 1) readonly buffer Emissions { compute_t emissions[]; };
layout(set = 0, binding = 2) readonly buffer Moves { compute_t moves[]; };

struct Params {
  uint table_offset;  // of the launch's first table row (Forward: the row before its first frame)
  uint emissions_offset;  // of the launch's first frame
  uint moves_offset;
  uint batch;
  uint positions;
  uint first_sequence;
  uint frames;  // of this launch
};
DECLARE_PUSH_CONSTANTS(Params)

compute_t logsumexp3(compute_t a, compute_t b, compute_t c) {
  if (m_isnan(a) || m_isnan(b) || m_isnan(c)) return a + b + c;
  const compute_t m = max(max(a, b), c);
  if (m_isinf(m)) return m;  // every value -inf, or one +inf: exp(inf - inf) would make NaN
  return m + m_log(m_exp(a - m) + m_exp(b - m) + m_exp(c - m));
}

void main() {
  COPY_PUSH_CONSTANTS();
  const uint n = p.first_sequence + gl_WorkGroupID.x;
  const uint width = p.positions + 2u;
  const uint row_stride = p.batch * width;
  const uint frame_emissions = p.batch * p.positions;
  const uint sequence_moves = p.moves_offset + n * p.positions * 3u;
  // Forward, frame i of the launch reads row i of its window and writes row i + 1 from column 2;
  // Backward, it reads row i + 1 and writes row i from column 0, last frame first.
  const uint write_column = BACKWARD != 0u ? 0u : 2u;
  for (uint k = 0u; k < p.frames; ++k) {
    const uint frame = BACKWARD != 0u ? p.frames - 1u - k : k;
    const uint read_row = BACKWARD != 0u ? frame + 1u : frame;
    const uint write_row = BACKWARD != 0u ? frame : frame + 1u;
    const uint read_base = p.table_offset + read_row * row_stride + n * width;
    const uint write_base = p.table_offset + write_row * row_stride + n * width + write_column;
    const uint emission_base = p.emissions_offset + frame * frame_emissions + n * p.positions;
    for (uint s = gl_LocalInvocationID.x; s < p.positions; s += gl_WorkGroupSize.x) {
      const uint move = sequence_moves + 3u * s;
      const compute_t best = logsumexp3(table[read_base + s] + moves[move], table[read_base + s + 1u] + moves[move + 1u],
                                        table[read_base + s + 2u] + moves[move + 2u]);
      table[write_base + s] = best + emissions[emission_base + s];
    }
    memoryBarrierBuffer();
    barrier();
  }
}
