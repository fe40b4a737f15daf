// What the convolution shaders share: bindings, the push-constant block, and each direction seen as a
// GEMM, out[m, n] = Σ_k A[m, k] · B[k, n] per group (and per split of K for the weight gradient):
//
//   direction      rows m        columns n              k                    A            B (gathered)
//   CONV_FORWARD   out channel   (batch, out position)  (in channel, kernel)  weight       input
//   CONV_INPUT_GRAD in channel   (batch, in position)   (out channel, kernel) weight       grad_output
//   CONV_WEIGHT_GRAD out channel (in channel, kernel)   (batch, out position) grad_output  input
//
// B is never materialised (implicit GEMM): a column and a k name an element of the gathered operand, or
// a position outside it that reads as zero. Every operand is contiguous (see runtime/kernels/conv.h).
// Spatial dims are always three here: the host gives a 2-d convolution a leading dim of size 1 and a 1-d
// one two, and SPATIAL3 (a specialization constant) drops dim 0's arithmetic when it is unused.
#ifndef EMBER_CONV_COMMON_GLSL
#define EMBER_CONV_COMMON_GLSL

#include "typed_operands.glsl"
#include "activations.glsl"

#define WORKGROUP_SIZE 256
layout(local_size_x = WORKGROUP_SIZE) in;

layout(constant_id = 0) const uint OUT_DT = DT_F32;
layout(constant_id = 1) const uint A_DT = DT_F32;
layout(constant_id = 2) const uint B_DT = DT_F32;
layout(constant_id = 3) const uint BIAS_DT = DT_F32;

DECLARE_OPERAND(0, out_data, writeonly)
DECLARE_OPERAND(2, b_data, readonly)
DECLARE_OPERAND(3, bias_data, readonly)
DEFINE_STORE(out_data, OUT_DT)
DEFINE_LOAD(b_data, B_DT)
DEFINE_LOAD(bias_data, BIAS_DT)

#if defined(A_UNIFORM)
// A through a uniform buffer: a window of at most 64 KiB of it (the host plans launches so that each one's
// share of A fits), whose address every invocation of a workgroup shares at every k. llvmpipe loads a
// uniform buffer at such an address once, not once per invocation as it loads storage buffers: A's loads
// become nearly free and only B's remain.
layout(set = 0, binding = 1, std140) uniform AWindow { uvec4 a_words[4096]; };
uint a_word(uint w) { return a_words[w >> 2][w & 3u]; }
compute_t a_data_load(uint i) {
  if (A_DT == DT_F32) return compute_t(uintBitsToFloat(a_word(i)));
  if (A_DT == DT_F16 || A_DT == DT_BF16) {
    const uint word = a_word(i >> 1);
    const uint bits = (i & 1u) != 0u ? word >> 16 : word & 0xffffu;
    return compute_t(A_DT == DT_F16 ? half_bits_to_float(bits) : bfloat16_bits_to_float(bits));
  }
  return compute_t(F64_FROM_BITS(uvec2(a_word(2u * i), a_word(2u * i + 1u))));
}
#else
DECLARE_OPERAND(1, a_data, readonly)
DEFINE_LOAD(a_data, A_DT)
#endif

#define OP_OUT 0
#define OP_A 1
#define OP_B 2
#define OP_BIAS 3

// 128 bytes, lavapipe's limit.
layout(push_constant) uniform Params {
  uint offsets[4];  // each operand's first element in its window
  uint batch;       // in this launch
  uint in_channels;
  uint out_channels;
  uint groups;
  uint in_size[3];
  uint out_size[3];
  uint kernel_size[3];
  uint stride[3];
  uint padding[3];
  uint dilation[3];
  uint k_first;      // the first k of this launch
  uint k_per_split;  // the k of one split (workgroup z / groups)
  uint flags;        // CONV_HAS_BIAS, CONV_ACCUMULATE, CONV_BIAS_COLUMN, CONV_RELU; bits 8-23:
                     // conv_register.comp's invocations along n
  uint row_first;    // A_UNIFORM: this launch's rows [row_first, row_first + row_count) of each group
  uint row_count;
  uint a_base;       // A_UNIFORM: A's element (in the launch's view of A) at offsets[OP_A] of the window
} p;

#define CONV_HAS_BIAS 1u

// Each launch sums k over [k_first + split·k_per_split, + k_per_split) only: llvmpipe ends a shader
// invocation's loops after 65535 iterations in all (gallivm's loop limiter, one budget for every loop of
// the invocation), so the host keeps each invocation's share of k well below that and sums longer
// reductions over launches (CONV_ACCUMULATE) or splits.
#define CONV_ACCUMULATE 2u  // out += the sum: the bias binding is out's own window, read before the write
// The weight gradient of conv_register.comp: one more column, n = gemm_n(), whose B is all ones, so that
// its results are the bias gradient (Σ_k A[m, k], A being grad_output) beside the weight gradient's.
#define CONV_BIAS_COLUMN 4u
// The forward's relu, applied as the last launch of a sum stores (a select: unlike matmul's GELU, it
// costs the k loop nothing, so it is a flag and not a specialization constant).
#define CONV_RELU 8u

// The stored value: relu(value) with CONV_RELU, keeping NaN as torch.relu does.
compute_t conv_epilogue(compute_t value) {
  if ((p.flags & CONV_RELU) == 0u) return value;
  return relu(value);
}

uint lanes_n() { return (p.flags >> 8) & 0xffffu; }

uint in_plane() { return p.in_size[0] * p.in_size[1] * p.in_size[2]; }
uint out_plane() { return p.out_size[0] * p.out_size[1] * p.out_size[2]; }
uint kernel_volume() { return p.kernel_size[0] * p.kernel_size[1] * p.kernel_size[2]; }
uint in_per_group() { return p.in_channels / p.groups; }
uint out_per_group() { return p.out_channels / p.groups; }

// The GEMM of one group.
#if defined(CONV_FORWARD)
uint gemm_m() { return out_per_group(); }
uint gemm_n() { return p.batch * out_plane(); }
uint gemm_k() { return in_per_group() * kernel_volume(); }
#elif defined(CONV_INPUT_GRAD)
uint gemm_m() { return in_per_group(); }
uint gemm_n() { return p.batch * in_plane(); }
uint gemm_k() { return out_per_group() * kernel_volume(); }
#elif defined(CONV_WEIGHT_GRAD)
uint gemm_m() { return out_per_group(); }
uint gemm_n() { return in_per_group() * kernel_volume(); }
uint gemm_k() { return p.batch * out_plane(); }
#else
#error define CONV_FORWARD, CONV_INPUT_GRAD or CONV_WEIGHT_GRAD
#endif

// The columns of out: the GEMM's, and the weight gradient's bias column (CONV_BIAS_COLUMN).
uint out_columns() {
#if defined(CONV_WEIGHT_GRAD)
  return gemm_n() + ((p.flags & CONV_BIAS_COLUMN) != 0u ? 1u : 0u);
#else
  return gemm_n();
#endif
}

// Splits a row-major position over `sizes` into its coordinates.
uvec3 coordinates(uint linear, uvec3 sizes) {
  uvec3 c;
  c.z = linear % sizes.z;
  linear /= sizes.z;
  c.y = linear % sizes.y;
  c.x = linear / sizes.y;
  return c;
}

uint linear_of(uvec3 c, uvec3 sizes) { return (c.x * sizes.y + c.y) * sizes.z + c.z; }

uvec3 in_sizes() { return uvec3(p.in_size[0], p.in_size[1], p.in_size[2]); }
uvec3 out_sizes() { return uvec3(p.out_size[0], p.out_size[1], p.out_size[2]); }
uvec3 kernel_sizes() { return uvec3(p.kernel_size[0], p.kernel_size[1], p.kernel_size[2]); }
ivec3 strides3() { return ivec3(p.stride[0], p.stride[1], p.stride[2]); }
ivec3 padding3() { return ivec3(p.padding[0], p.padding[1], p.padding[2]); }
ivec3 dilation3() { return ivec3(p.dilation[0], p.dilation[1], p.dilation[2]); }

// Where the result (m, n) of group g and split `split` goes, and how far apart rows are there.
uint out_row_stride() {
#if defined(CONV_FORWARD)
  return out_plane();
#elif defined(CONV_INPUT_GRAD)
  return in_plane();
#else
  return out_columns();
#endif
}

uint out_column_index(uint g, uint split, uint n) {
#if defined(CONV_FORWARD)
  const uint plane = out_plane();
  return p.offsets[OP_OUT] + ((n / plane) * p.out_channels + g * out_per_group()) * plane + n % plane;
#elif defined(CONV_INPUT_GRAD)
  const uint plane = in_plane();
  return p.offsets[OP_OUT] + ((n / plane) * p.in_channels + g * in_per_group()) * plane + n % plane;
#else
  return p.offsets[OP_OUT] + split * (p.out_channels * out_columns()) + g * out_per_group() * out_columns() + n;
#endif
}

// The bias of row m of group g (the output channel of the forward, the input channel of the input
// gradient, which is a transposed convolution's forward), or 0 without one. The weight gradient has none,
// but reads the flag too, so that every module keeps the same specialization constants.
compute_t row_bias(uint g, uint m) {
  return (p.flags & CONV_HAS_BIAS) != 0u ? bias_data_load(p.offsets[OP_BIAS] + g * gemm_m() + m) : compute_t(0);
}

// out = conv_epilogue(acc + bias) (row_bias of its row, which the caller loads once per row: the bias
// binding may alias out, so the compiler could not hoist it).
void store_result(uint m, uint column_index, compute_t acc, compute_t bias) {
  const uint index = column_index + m * out_row_stride();
  acc += bias;
  if ((p.flags & CONV_ACCUMULATE) != 0u) acc += bias_data_load(index);
  out_data_store(index, conv_epilogue(acc));
}

#endif
