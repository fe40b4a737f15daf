# Variants of the reduce kernels (see variants.cmake).
list(APPEND EMBER_SHADER_VARIANTS
)
