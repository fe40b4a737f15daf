# Variants of the upsample kernels (see variants.cmake): float32 compute (also for float16, bfloat16 and
# uint8) and float64. The dtype and the op are specialization constants.
list(APPEND EMBER_SHADER_VARIANTS
  "upsample_f32|upsample.comp|COMPUTE_F32=1"
  "upsample_f64|upsample.comp|COMPUTE_F64=1"
  "upsample_backward_f32|upsample_backward.comp|COMPUTE_F32=1"
  "upsample_backward_f64|upsample_backward.comp|COMPUTE_F64=1"
)
