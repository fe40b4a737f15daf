# Variants of the reduce and scan kernels (see variants.cmake): one module per compute class; operand
# dtypes, the op and (for reduce) the pass are specialization constants. reduce_*_subgroup merge within
# subgroups by shuffles (devices that have them, reduce.comp).
list(APPEND EMBER_SHADER_VARIANTS
  "reduce_f32|reduce.comp|COMPUTE_F32=1"
  "reduce_f64|reduce.comp|COMPUTE_F64=1"
  "reduce_i32|reduce.comp|COMPUTE_I32=1"
  "reduce_i64|reduce.comp|COMPUTE_I64=1"
  "reduce_f32_subgroup|reduce.comp|COMPUTE_F32=1,SUBGROUP_MERGE=1"
  "reduce_f32_subgroup_texel|reduce.comp|COMPUTE_F32=1,SUBGROUP_MERGE=1,TEXEL_READS=1"
  "reduce_f64_subgroup|reduce.comp|COMPUTE_F64=1,SUBGROUP_MERGE=1"
  "reduce_i32_subgroup|reduce.comp|COMPUTE_I32=1,SUBGROUP_MERGE=1"
  "reduce_i64_subgroup|reduce.comp|COMPUTE_I64=1,SUBGROUP_MERGE=1"
  "scan_f32|scan.comp|COMPUTE_F32=1"
  "scan_f64|scan.comp|COMPUTE_F64=1"
  "scan_i32|scan.comp|COMPUTE_I32=1"
  "scan_i64|scan.comp|COMPUTE_I64=1"
)
