# Variants of the dropout kernel (see variants.cmake): float32 compute (also for float16 and bfloat16)
# and float64. The dtype and the mode (draw or apply a mask) are specialization constants.
list(APPEND EMBER_SHADER_VARIANTS
  "dropout_f32|dropout.comp|COMPUTE_F32=1"
  "dropout_f64|dropout.comp|COMPUTE_F64=1"
)
