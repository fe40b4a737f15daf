# Variants of the reduce kernels (see variants.cmake): one module per compute class; operand dtypes,
# the op and the pass are specialization constants.
list(APPEND EMBER_SHADER_VARIANTS
  "reduce_f32|reduce.comp|COMPUTE_F32=1"
  "reduce_f64|reduce.comp|COMPUTE_F64=1"
  "reduce_i32|reduce.comp|COMPUTE_I32=1"
  "reduce_i64|reduce.comp|COMPUTE_I64=1"
)
