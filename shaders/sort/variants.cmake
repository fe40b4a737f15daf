# Variants of the sort kernel (see variants.cmake): 32-bit keys for dtypes up to 32 bits, 64-bit keys
# for int64 and float64. The dtype and the stage are specialization constants.
list(APPEND EMBER_SHADER_VARIANTS
  "sort_32|sort.comp|KEY_BITS=32"
  "sort_64|sort.comp|KEY_BITS=64"
)
