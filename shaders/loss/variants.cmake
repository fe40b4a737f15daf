# Variants of the loss kernels (see variants.cmake): float32 compute (also for float16 and bfloat16)
# and float64. The scores' and weight's dtypes and the mode are specialization constants; the CTC
# recursion's direction and workgroup size, and the CTC gradient's mode, too.
list(APPEND EMBER_SHADER_VARIANTS
  "cross_entropy_f32|cross_entropy.comp|COMPUTE_F32=1"
  "cross_entropy_f32_quads|cross_entropy.comp|COMPUTE_F32=1,QUADS=1"
  "cross_entropy_f64|cross_entropy.comp|COMPUTE_F64=1"
  "ctc_recursion_f32|ctc_recursion.comp|COMPUTE_F32=1"
  "ctc_recursion_f64|ctc_recursion.comp|COMPUTE_F64=1"
  "ctc_gradient_f32|ctc_gradient.comp|COMPUTE_F32=1"
  "ctc_gradient_f64|ctc_gradient.comp|COMPUTE_F64=1"
)
