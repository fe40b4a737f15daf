# Variants of the matmul kernels (see variants.cmake): a shared-memory tiled kernel for GPUs and a
# register-blocked one for CPU drivers, each per compute class. Tile sizes are specialization constants.
# The integer classes (int8 to int32 in i32, int64 in i64) multiply and add with wraparound.
list(APPEND EMBER_SHADER_VARIANTS
  "matmul_tiled_f32|matmul_tiled.comp|COMPUTE_F32=1"
  "matmul_tiled_f64|matmul_tiled.comp|COMPUTE_F64=1"
  "matmul_tiled_i32|matmul_tiled.comp|COMPUTE_I32=1"
  "matmul_tiled_i64|matmul_tiled.comp|COMPUTE_I64=1"
  "matmul_register_f32|matmul_register.comp|COMPUTE_F32=1"
  "matmul_register_f32_texel|matmul_register.comp|COMPUTE_F32=1,TEXEL_READS=1"
  "matmul_register_f64|matmul_register.comp|COMPUTE_F64=1"
  "matmul_register_i32|matmul_register.comp|COMPUTE_I32=1"
  "matmul_register_i64|matmul_register.comp|COMPUTE_I64=1"
)
