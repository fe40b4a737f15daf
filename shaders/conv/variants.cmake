# Variants of the convolution kernels (see variants.cmake): per direction, a register-blocked kernel for
# CPU drivers and a shared-memory tiled one for GPUs, each in float32 (also for float16 and bfloat16
# operands) and float64 compute. Operand dtypes and tile sizes are specialization constants.
foreach(kernel register tiled)
  foreach(direction forward input_grad weight_grad)
    string(TOUPPER "CONV_${direction}" direction_define)
    list(APPEND EMBER_SHADER_VARIANTS
      "conv_${kernel}_${direction}_f32|conv_${kernel}.comp|${direction_define}=1,COMPUTE_F32=1"
      "conv_${kernel}_${direction}_f64|conv_${kernel}.comp|${direction_define}=1,COMPUTE_F64=1")
  endforeach()
endforeach()
