# Variants of the pool kernels (see variants.cmake): float32 compute (also for float16 and bfloat16) and
# float64. The dtype and the op are specialization constants.
list(APPEND EMBER_SHADER_VARIANTS
  "pool_f32|pool.comp|COMPUTE_F32=1"
  "pool_f64|pool.comp|COMPUTE_F64=1"
  "pool_backward_f32|pool_backward.comp|COMPUTE_F32=1"
  "pool_f32_texel|pool.comp|COMPUTE_F32=1,TEXEL_READS=1"
  "pool_backward_f32_texel|pool_backward.comp|COMPUTE_F32=1,TEXEL_READS=1"
  "pool_backward_f64|pool_backward.comp|COMPUTE_F64=1"
  "pool_pairs_f32|pool_pairs.comp|COMPUTE_F32=1"
  "pool_pairs_backward_f32|pool_pairs.comp|COMPUTE_F32=1,BACKWARD=1"
  "pool_pairs_backward_rows_f32|pool_pairs.comp|COMPUTE_F32=1,BACKWARD=1,WINDOW_ROWS=1"
)
