# Variants of the convolution kernels (see variants.cmake): per direction, a register-blocked kernel for
# CPU drivers (reading A from a storage buffer, or from a uniform buffer: conv_uniform, A_UNIFORM in
# conv_common.glsl) and a shared-memory tiled one for GPUs, each in float32 (also for float16 and
# bfloat16 operands) and float64 compute; and the direct depthwise kernel (conv_depthwise.comp) for every
# device class. Operand dtypes and tile sizes are specialization constants.
foreach(direction forward input_grad weight_grad)
  string(TOUPPER "CONV_${direction}" direction_define)
  foreach(compute f32 f64)
    string(TOUPPER "COMPUTE_${compute}" compute_define)
    list(APPEND EMBER_SHADER_VARIANTS
      "conv_register_${direction}_${compute}|conv_register.comp|${direction_define}=1,${compute_define}=1"
      "conv_uniform_${direction}_${compute}|conv_register.comp|${direction_define}=1,A_UNIFORM=1,${compute_define}=1"
      "conv_tiled_${direction}_${compute}|conv_tiled.comp|${direction_define}=1,${compute_define}=1"
      "conv_depthwise_${direction}_${compute}|conv_depthwise.comp|${direction_define}=1,${compute_define}=1")
  endforeach()
  list(APPEND EMBER_SHADER_VARIANTS
    "conv_register_${direction}_f32_texel|conv_register.comp|${direction_define}=1,COMPUTE_F32=1,TEXEL_READS=1"
    "conv_uniform_${direction}_f32_texel|conv_register.comp|${direction_define}=1,A_UNIFORM=1,COMPUTE_F32=1,TEXEL_READS=1")
endforeach()
# The row kernels for stride-1 float32 convolutions on CPU drivers (forwards and input gradients, with 8
# rows of out or more and with fewer, and weight gradients of few input channels), and the padded copy
# they read (conv_rows.cpp).
list(APPEND EMBER_SHADER_VARIANTS
  "conv_rows_f32|conv_rows.comp|"
  "conv_rows_few_f32|conv_rows_few.comp|"
  "conv_rows_weight_grad_f32|conv_rows_weight_grad.comp|"
  "conv_pad_f32|conv_pad.comp|")
