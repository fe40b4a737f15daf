# Variants of the attention kernels (see variants.cmake): float32 compute (also for float16 and bfloat16
# operands) and float64. The operands' dtype, the feature counts, the mode and the rows per invocation
# are specialization constants.
list(APPEND EMBER_SHADER_VARIANTS
  "attention_f32|attention.comp|COMPUTE_F32=1"
  "attention_f64|attention.comp|COMPUTE_F64=1"
)
