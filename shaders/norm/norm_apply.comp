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
#include "push_constants.glsl"

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

// QUADS (norm_apply_f32_quads): float32 channels of a multiple of four elements, in, dy and out starting on
// 16-byte words (the host checks). An invocation takes four elements of one channel at a time: in and dy
// through texel views at bindings 1 and 2, one 16-byte store, the channel's values loaded once for the
// four. llvmpipe loads and stores a storage buffer one lane at a time, and the element-wise walk made six
// such accesses per element forward. The formula per element is the same.
DECLARE_OPERAND(0, dst, writeonly)
DEFINE_STORE(dst, IN_DT)
#if defined(QUADS)
layout(set = 0, binding = 1) uniform utextureBuffer in_texels;
layout(set = 0, binding = 2) uniform utextureBuffer dy_texels;
layout(set = 0, binding = 0) writeonly buffer DstWords { uvec4 dst_words[]; };
#define ELEMENTS_PER_STEP 4u
#else
DECLARE_OPERAND(1, src, readonly)
DEFINE_LOAD(src, IN_DT)
DECLARE_OPERAND(2, dy, readonly)
DEFINE_LOAD(dy, IN_DT)
#define ELEMENTS_PER_STEP 1u
#endif
DECLARE_OPERAND(3, mean, readonly)
DEFINE_LOAD(mean, STAT_DT)
DECLARE_OPERAND(4, invstd, readonly)
DEFINE_LOAD(invstd, STAT_DT)
DECLARE_OPERAND(5, weight, readonly)
DEFINE_LOAD(weight, PARAM_DT)
DECLARE_OPERAND(6, bias, readonly)
DEFINE_LOAD(bias, PARAM_DT)
layout(set = 0, binding = 7) readonly buffer Sums { compute_t sums[]; };

struct Params {
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
};
DECLARE_PUSH_CONSTANTS(Params)

// Channel c's values for its elements: mean, invstd, weight, bias, and backward in training the two sums.
struct Channel {
  compute_t m, istd, w, b, sum_dy, sum_dy_xmu;
};

Channel channel_values(uint c, compute_t eps) {
  Channel ch;
  ch.m = mean_load(p.mean_offset + c);
  const compute_t v = invstd_load(p.invstd_offset + c);
  ch.istd = (p.flags & FLAG_FROM_VAR) != 0u ? compute_t(1) / sqrt(v + eps) : v;
  ch.w = (p.flags & FLAG_WEIGHT) != 0u ? weight_load(p.weight_offset + c) : compute_t(1);
  ch.b = MODE == MODE_FORWARD && (p.flags & FLAG_BIAS) != 0u ? bias_load(p.bias_offset + c) : compute_t(0);
  const bool with_sums = MODE == MODE_BACKWARD && (p.flags & FLAG_TRAINING) != 0u;
  ch.sum_dy = with_sums ? sums[p.sums_offset + 2u * c] : compute_t(0);
  ch.sum_dy_xmu = with_sums ? sums[p.sums_offset + 2u * c + 1u] : compute_t(0);
  return ch;
}

// The result for element x (dy backward) of a channel.
compute_t element_result(compute_t x, compute_t dy, Channel ch, compute_t count) {
  if (MODE == MODE_FORWARD) return (x - ch.m) * (ch.istd * ch.w) + ch.b;
  compute_t g = dy;
  if ((p.flags & FLAG_TRAINING) != 0u) {
    g = g - ch.sum_dy / count - (x - ch.m) * (ch.istd * ch.istd) * (ch.sum_dy_xmu / count);
  }
  return g * (ch.istd * ch.w);
}

void main() {
  COPY_PUSH_CONSTANTS();
  const compute_t eps = scalar_from_bits(p.eps);
  const compute_t count = scalar_from_bits(p.count);
  uint t = gl_GlobalInvocationID.x * ELEMENTS_PER_STEP;
  if (t >= p.numel) return;
  const uint step = gl_NumWorkGroups.x * WORKGROUP_SIZE * ELEMENTS_PER_STEP;
  // (channel, j) of t, and how far one grid step moves them.
  const uint row = t / p.inner;
  uint j = t - row * p.inner;
  uint c = row % p.channels;
  const uint step_rows = step / p.inner;
  const uint step_j = step - step_rows * p.inner;
  const uint step_c = step_rows % p.channels;
  for (; t < p.numel; t += step) {
    const Channel ch = channel_values(c, eps);
#if defined(QUADS)
    const vec4 x4 = uintBitsToFloat(texelFetch(in_texels, int((p.in_offset + t) >> 2)));
    const vec4 dy4 =
        MODE == MODE_BACKWARD ? uintBitsToFloat(texelFetch(dy_texels, int((p.dy_offset + t) >> 2))) : vec4(0.0);
    vec4 result;
    for (uint e = 0; e < 4u; ++e) result[e] = element_result(x4[e], dy4[e], ch, count);
    dst_words[(p.out_offset + t) >> 2] = floatBitsToUint(result);
#else
    const compute_t dy = MODE == MODE_BACKWARD ? dy_load(p.dy_offset + t) : compute_t(0);
    dst_store(p.out_offset + t, element_result(src_load(p.in_offset + t), dy, ch, count));
#endif
    j += step_j;
    c += step_c;
    if (j >= p.inner) {
      j -= p.inner;
      c += 1u;
    }
    if (c >= p.channels) c -= p.channels;
  }
}
