#version 450
// Batch norm's elementwise passes over a contiguous piece of whole samples, [samples, channels, inner]:
//   MODE_FORWARD   out = (in - mean[c]) invstd[c] weight[c] + bias[c]
//   MODE_BACKWARD  out = weight[c] invstd[c] (dy - Σdy[c] / count - (in - mean[c]) invstd[c]² Σdy(in - mean)[c]
//                  / count), the sums from the scratch that norm_channels.comp wrote (FLAG_TRAINING), or
//                  weight[c] invstd[c] dy (eval)
// with invstd = 1 / sqrt(var + eps) where the operand holds variances (FLAG_FROM_VAR), weight 1 and
// bias 0 where absent. Each invocation walks elements a grid apart, keeping its channel up to date
// without dividing per element.
#include "typed_operands.glsl"

#define WORKGROUP_SIZE 256
layout(local_size_x = WORKGROUP_SIZE) in;

layout(constant_id = 0) const uint IN_DT = DT_F32;  // in, dy and out
layout(constant_id = 1) const uint STAT_DT = DT_F32;
layout(constant_id = 2) const uint PARAM_DT = DT_F32;  // weight and bias
layout(constant_id = 3) const uint MODE = 0;

#define MODE_FORWARD 0u
#define MODE_BACKWARD 1u

#define FLAG_WEIGHT 1u
#define FLAG_BIAS 2u
#define FLAG_FROM_VAR 4u
#define FLAG_TRAINING 8u

DECLARE_OPERAND(0, dst, writeonly)
DEFINE_STORE(dst, IN_DT)
DECLARE_OPERAND(1, src, readonly)
DEFINE_LOAD(src, IN_DT)
DECLARE_OPERAND(2, dy, readonly)
DEFINE_LOAD(dy, IN_DT)
DECLARE_OPERAND(3, mean, readonly)
DEFINE_LOAD(mean, STAT_DT)
DECLARE_OPERAND(4, invstd, readonly)
DEFINE_LOAD(invstd, STAT_DT)
DECLARE_OPERAND(5, weight, readonly)
DEFINE_LOAD(weight, PARAM_DT)
DECLARE_OPERAND(6, bias, readonly)
DEFINE_LOAD(bias, PARAM_DT)
layout(set = 0, binding = 7) readonly buffer Sums { compute_t sums[]; };

layout(push_constant) uniform Params {
  uint out_offset;
  uint in_offset;
  uint dy_offset;
  uint mean_offset;
  uint invstd_offset;
  uint weight_offset;
  uint bias_offset;
  uint sums_offset;
  uint numel;  // of the piece
  uint channels;
  uint inner;
  uint flags;
  uvec2 eps;    // compute_t bits
  uvec2 count;  // compute_t bits: elements per channel over the whole batch
} p;

void main() {
  const compute_t eps = scalar_from_bits(p.eps);
  const compute_t count = scalar_from_bits(p.count);
  const bool has_weight = (p.flags & FLAG_WEIGHT) != 0u;
  const bool has_bias = (p.flags & FLAG_BIAS) != 0u;
  const bool from_var = (p.flags & FLAG_FROM_VAR) != 0u;
  const bool training = (p.flags & FLAG_TRAINING) != 0u;
  uint t = gl_GlobalInvocationID.x;
  if (t >= p.numel) return;
  const uint step = gl_NumWorkGroups.x * WORKGROUP_SIZE;
  // (channel, j) of t, and how far one grid step moves them.
  const uint row = t / p.inner;
  uint j = t - row * p.inner;
  uint c = row % p.channels;
  const uint step_rows = step / p.inner;
  const uint step_j = step - step_rows * p.inner;
  const uint step_c = step_rows % p.channels;
  for (; t < p.numel; t += step) {
    const compute_t m = mean_load(p.mean_offset + c);
    const compute_t v = invstd_load(p.invstd_offset + c);
    const compute_t istd = from_var ? compute_t(1) / sqrt(v + eps) : v;
    const compute_t w = has_weight ? weight_load(p.weight_offset + c) : compute_t(1);
    const compute_t x = src_load(p.in_offset + t);
    if (MODE == MODE_FORWARD) {
      const compute_t b = has_bias ? bias_load(p.bias_offset + c) : compute_t(0);
      dst_store(p.out_offset + t, (x - m) * (istd * w) + b);
    } else {
      compute_t g = dy_load(p.dy_offset + t);
      if (training) {
        const compute_t sum_dy = sums[p.sums_offset + 2u * c];
        const compute_t sum_dy_xmu = sums[p.sums_offset + 2u * c + 1u];
        g = g - sum_dy / count - (x - m) * (istd * istd) * (sum_dy_xmu / count);
      }
      dst_store(p.out_offset + t, g * (istd * w));
    }
    j += step_j;
    c += step_c;
    if (j >= p.inner) {
      j -= p.inner;
      c += 1u;
    }
    if (c >= p.channels) c -= p.channels;
  }
}
