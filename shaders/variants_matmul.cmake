# Variants of the matmul kernels (see variants.cmake).
list(APPEND EMBER_SHADER_VARIANTS
)
