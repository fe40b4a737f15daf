# Variants of the memory kernels: name|source|defines, one per element width. Every family keeps its
# rows in its own variants.cmake; cmake/EmberShaders.cmake embeds each row as one SPIR-V module.
list(APPEND EMBER_SHADER_VARIANTS
  "fill_8|fill.comp|ELEM_BITS=8"
  "fill_16|fill.comp|ELEM_BITS=16"
  "fill_32|fill.comp|ELEM_BITS=32"
  "fill_64|fill.comp|ELEM_BITS=64"
  "copy_8|copy.comp|ELEM_BITS=8"
  "copy_16|copy.comp|ELEM_BITS=16"
  "copy_32|copy.comp|ELEM_BITS=32"
  "copy_64|copy.comp|ELEM_BITS=64"
)
