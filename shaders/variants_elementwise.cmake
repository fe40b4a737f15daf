# Variants of the elementwise kernels (see variants.cmake).
list(APPEND EMBER_SHADER_VARIANTS
)
