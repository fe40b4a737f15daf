// What the matmul shaders share: operand bindings, the push-constant block, strided addressing and the
// epilogue out = act(alpha * acc + beta * bias). Operand dtypes are specialization constants 0-3
// (typed_operands.glsl); tile sizes follow from id 4 on, declared by each shader.
//
// Each launch covers `batch` matrices (workgroup z) of a window the host bound for every operand;
// offsets[] is the operand's first element in its window and the strides count elements.
#ifndef EMBER_MATMUL_COMMON_GLSL
#define EMBER_MATMUL_COMMON_GLSL

#include "typed_operands.glsl"
#include "activations.glsl"

// 256 invocations, unless the including shader sizes its workgroups itself (REGISTER_WORKGROUP).
#ifndef REGISTER_WORKGROUP
#define WORKGROUP_SIZE 256
layout(local_size_x = WORKGROUP_SIZE) in;
#endif

layout(constant_id = 0) const uint OUT_DT = DT_F32;
layout(constant_id = 1) const uint A_DT = DT_F32;
layout(constant_id = 2) const uint B_DT = DT_F32;
layout(constant_id = 3) const uint BIAS_DT = DT_F32;

// Operand order in offsets[] and the stride arrays.
#define OP_OUT 0
#define OP_A 1
#define OP_B 2
#define OP_BIAS 3

DECLARE_OPERAND(0, out_data, writeonly)
DECLARE_OPERAND(1, a_data, readonly)
DECLARE_OPERAND(2, b_data, readonly)
DECLARE_OPERAND(3, bias_data, readonly)
DEFINE_STORE(out_data, OUT_DT)
DEFINE_LOAD(a_data, A_DT)
DEFINE_LOAD(b_data, B_DT)
DEFINE_LOAD(bias_data, BIAS_DT)

// 112 bytes. Rows and columns are (M, N) for out and bias, (M, K) for A and (K, N) for B.
layout(push_constant) uniform Params {
  uvec2 alpha;  // compute_t bits; first, where their 8-byte alignment needs no padding
  uvec2 beta;
  uint M, N, K;
  uint flags;    // MATMUL_HAS_BIAS, MATMUL_A_K_FAST, MATMUL_B_N_FAST
  uint lanes_n;  // matmul_register.comp: invocations side by side along N (divides 256)
  uint offsets[4];
  uint batch_strides[4];
  uint row_strides[4];
  uint col_strides[4];
  uint row_sums_offset;  // MATMUL_ROW_SUMS: A's row sums, at offset + batch · strides.x + row · strides.y
  uvec2 row_sums_strides;
} p;

#define MATMUL_HAS_BIAS 1u  // beta != 0 and a bias was given: bias is never read otherwise
#define MATMUL_A_K_FAST 2u  // A's elements are closer along K than along M (tile loads walk K first)
#define MATMUL_B_N_FAST 4u  // B's elements are closer along N than along K
#define MATMUL_ROW_SUMS 8u  // matmul_register.comp (texel reads, shared A) also writes A's row sums
// The activation the store applies (float compute only) is the specialization constant ACTIVATION, which
// each shader declares after its tile sizes: as a push-constant flag, the epilogue's code slowed the
// register kernel's k loop on llvmpipe by 6 to 27% even where no activation ran.
#define ACTIVATION_NONE 0u
#define ACTIVATION_RELU 1u
#define ACTIVATION_GELU 2u
#define ACTIVATION_GELU_TANH 3u

// Element index of (row, col) of operand `op` in matrix `batch` of this launch.
uint element_index(uint op, uint batch, uint row, uint col) {
  return p.offsets[op] + batch * p.batch_strides[op] + row * p.row_strides[op] + col * p.col_strides[op];
}

// acc + a * b: one fused multiply-add for floats; for integers (COMPUTE_I32 and COMPUTE_I64) a product and
// a sum that wrap around in two's complement, as PyTorch's integer matmul on the CPU does.
#if COMPUTE_IS_FLOAT
#define MULTIPLY_ADD(a, b, acc) fma(a, b, acc)
#else
#define MULTIPLY_ADD(a, b, acc) ((acc) + (a) * (b))
#endif

// act(alpha * acc + beta * bias[bias_index]); with no bias the bias term is absent, so a NaN there never
// reaches out (PyTorch's addmm with beta == 0). relu keeps NaN, as torch.relu does.
compute_t epilogue(compute_t acc, uint bias_index) {
  compute_t value = scalar_from_bits(p.alpha) * acc;
  if ((p.flags & MATMUL_HAS_BIAS) != 0u) value += scalar_from_bits(p.beta) * bias_data_load(bias_index);
#if COMPUTE_IS_FLOAT
  if (ACTIVATION == ACTIVATION_RELU) {
    value = relu(value);
  } else if (ACTIVATION == ACTIVATION_GELU) {
    value = gelu_erf(value);
  } else if (ACTIVATION == ACTIVATION_GELU_TANH) {
    value = gelu_tanh_approximation(value);
  }
#endif
  return value;
}

// out[batch, m, n] = epilogue(acc, bias[batch, m, n]).
void store_result(uint batch, uint m, uint n, compute_t acc) {
  out_data_store(element_index(OP_OUT, batch, m, n), epilogue(acc, element_index(OP_BIAS, batch, m, n)));
}

#endif
