# The table of shader variants: name, source, then the defines that make the variant. Launchers find a
# variant by its name; each becomes an embedded SPIR-V module. Each kernel family keeps its rows in its
# own variants_<family>.cmake.
set(EMBER_SHADER_VARIANTS
  "fill_8|fill.comp|ELEM_BITS=8"
  "fill_16|fill.comp|ELEM_BITS=16"
  "fill_32|fill.comp|ELEM_BITS=32"
  "fill_64|fill.comp|ELEM_BITS=64"
  "copy_8|copy.comp|ELEM_BITS=8"
  "copy_16|copy.comp|ELEM_BITS=16"
  "copy_32|copy.comp|ELEM_BITS=32"
  "copy_64|copy.comp|ELEM_BITS=64"
  "sum_f32|sum.comp|"
  "sum_partials_f32|sum_partials.comp|"
)
foreach(family elementwise reduce index matmul random math)
  include(${CMAKE_CURRENT_LIST_DIR}/variants_${family}.cmake)
endforeach()
