# Variants of the fused optimizer step (optim.comp): float32 arithmetic for float32, float16 and bfloat16
# parameters, float64 arithmetic for float64 ones. The parameters' dtype and the algorithm are
# specialization constants. optim_f32_texel reads float32 parameters through texel buffers.
list(APPEND EMBER_SHADER_VARIANTS
  "optim_f32|optim.comp|COMPUTE_F32"
  "optim_f64|optim.comp|COMPUTE_F64"
  "optim_f32_texel|optim.comp|COMPUTE_F32,TEXEL_READS"
)
