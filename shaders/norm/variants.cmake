# Variants of the norm kernels (see variants.cmake): float32 compute (also for float16 and bfloat16)
# and float64. Operand dtypes, the mode and the stage are specialization constants.
list(APPEND EMBER_SHADER_VARIANTS
  "norm_channels_f32|norm_channels.comp|COMPUTE_F32=1"
  "norm_channels_f64|norm_channels.comp|COMPUTE_F64=1"
  "norm_apply_f32|norm_apply.comp|COMPUTE_F32=1"
  "norm_apply_f32_quads|norm_apply.comp|COMPUTE_F32=1,QUADS=1"
  "norm_apply_f64|norm_apply.comp|COMPUTE_F64=1"
  "norm_rows_f32|norm_rows.comp|COMPUTE_F32=1"
  "norm_rows_f32_quads|norm_rows.comp|COMPUTE_F32=1,QUADS=1"
  "norm_rows_f64|norm_rows.comp|COMPUTE_F64=1"
)
