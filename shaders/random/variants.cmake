# Variants of the random kernels (see variants.cmake): elementwise draws per compute class of out (and
# with a probability tensor for Bernoulli), randperm, and multinomial per float compute class.
list(APPEND EMBER_SHADER_VARIANTS
  "random_f32|random.comp|COMPUTE_F32=1"
  "random_f64|random.comp|COMPUTE_F64=1"
  "random_i32|random.comp|COMPUTE_I32=1"
  "random_i64|random.comp|COMPUTE_I64=1"
  "bernoulli_tensor_f32|random.comp|COMPUTE_F32=1,PROBABILITY_TENSOR=1"
  "bernoulli_tensor_f64|random.comp|COMPUTE_F64=1,PROBABILITY_TENSOR=1"
  "randperm|randperm.comp|"
  "multinomial_f32|multinomial.comp|COMPUTE_F32=1"
  "multinomial_f64|multinomial.comp|COMPUTE_F64=1"
)
