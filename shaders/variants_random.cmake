# Variants of the random kernels (see variants.cmake).
list(APPEND EMBER_SHADER_VARIANTS
)
