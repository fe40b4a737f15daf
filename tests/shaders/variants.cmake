# Variants of the math.glsl test harness, embedded in ember-tests only; tests/math_test.cpp drives them;
# texel_copy_test reads a texel buffer for tests/texel_binding_test.cpp.
list(APPEND EMBER_SHADER_VARIANTS
  "math_test_f32|math_test.comp|COMPUTE_F32=1"
  "math_test_f64|math_test.comp|COMPUTE_F64=1"
  "texel_copy_test|texel_copy_test.comp|TEXEL_COPY=1"
)
