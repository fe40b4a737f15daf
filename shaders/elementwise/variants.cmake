# Variants of the elementwise kernels: one module per compute class, and float32 ones that read their
# inputs' blocks through texel views (TEXEL_READS, contiguous.glsl); ops and dtypes are specialization
# constants (see typed_operands.glsl).
list(APPEND EMBER_SHADER_VARIANTS
  "unary_f32|unary.comp|COMPUTE_F32=1"
  "unary_f32_texel|unary.comp|COMPUTE_F32=1,TEXEL_READS=1"
  "unary_f64|unary.comp|COMPUTE_F64=1"
  "unary_i32|unary.comp|COMPUTE_I32=1"
  "unary_i64|unary.comp|COMPUTE_I64=1"
  "binary_f32|binary.comp|COMPUTE_F32=1"
  "binary_f32_texel|binary.comp|COMPUTE_F32=1,TEXEL_READS=1"
  "binary_f64|binary.comp|COMPUTE_F64=1"
  "binary_i32|binary.comp|COMPUTE_I32=1"
  "binary_i64|binary.comp|COMPUTE_I64=1"
  "ternary_f32|ternary.comp|COMPUTE_F32=1"
  "ternary_f32_texel|ternary.comp|COMPUTE_F32=1,TEXEL_READS=1"
  "ternary_f64|ternary.comp|COMPUTE_F64=1"
  "ternary_i32|ternary.comp|COMPUTE_I32=1"
  "ternary_i64|ternary.comp|COMPUTE_I64=1"
  "sequence_f32|sequence.comp|COMPUTE_F32=1"
  "sequence_f64|sequence.comp|COMPUTE_F64=1"
  "sequence_i32|sequence.comp|COMPUTE_I32=1"
  "sequence_i64|sequence.comp|COMPUTE_I64=1"
)
