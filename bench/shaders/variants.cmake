# Reference shaders for the bandwidth benchmarks, embedded in ember-bench only: the plainest
# descriptor-based float add and copy, one element per invocation, that ember's kernels are compared with.
list(APPEND EMBER_SHADER_VARIANTS
  "reference_add|reference_add.comp"
  "reference_copy|reference_copy.comp"
)
