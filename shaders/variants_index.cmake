# Variants of the index kernels (see variants.cmake).
list(APPEND EMBER_SHADER_VARIANTS
)
