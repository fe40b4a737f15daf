# Variants of the index kernels (see variants.cmake). gather, triangle and nonzero move elements by
# width; scatter computes in out's compute class (scatter_ordered: Assign that keeps the last of
# colliding positions, in two passes).
list(APPEND EMBER_SHADER_VARIANTS
  "gather_8|gather.comp|ELEM_BITS=8"
  "gather_16|gather.comp|ELEM_BITS=16"
  "gather_32|gather.comp|ELEM_BITS=32"
  "gather_64|gather.comp|ELEM_BITS=64"
  "triangle_8|triangle.comp|ELEM_BITS=8"
  "triangle_16|triangle.comp|ELEM_BITS=16"
  "triangle_32|triangle.comp|ELEM_BITS=32"
  "triangle_64|triangle.comp|ELEM_BITS=64"
  "nonzero_8|nonzero.comp|ELEM_BITS=8"
  "nonzero_16|nonzero.comp|ELEM_BITS=16"
  "nonzero_32|nonzero.comp|ELEM_BITS=32"
  "nonzero_64|nonzero.comp|ELEM_BITS=64"
  "scatter_f32|scatter.comp|COMPUTE_F32=1"
  "scatter_f64|scatter.comp|COMPUTE_F64=1"
  "scatter_i32|scatter.comp|COMPUTE_I32=1"
  "scatter_i64|scatter.comp|COMPUTE_I64=1"
  "scatter_value_f32|scatter.comp|COMPUTE_F32=1,SCALAR_SRC=1"
  "scatter_value_f64|scatter.comp|COMPUTE_F64=1,SCALAR_SRC=1"
  "scatter_value_i32|scatter.comp|COMPUTE_I32=1,SCALAR_SRC=1"
  "scatter_value_i64|scatter.comp|COMPUTE_I64=1,SCALAR_SRC=1"
  "scatter_ordered_f32|scatter.comp|COMPUTE_F32=1,ORDERED=1"
  "scatter_ordered_f64|scatter.comp|COMPUTE_F64=1,ORDERED=1"
  "scatter_ordered_i32|scatter.comp|COMPUTE_I32=1,ORDERED=1"
  "scatter_ordered_i64|scatter.comp|COMPUTE_I64=1,ORDERED=1"
)
