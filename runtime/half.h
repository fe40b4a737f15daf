#pragma once
// float <-> float16/bfloat16 bit conversions with round-to-nearest-even, for host-side values.
#include <cstdint>

namespace ember {

uint16_t float_to_half_bits(float value);
float half_bits_to_float(uint16_t bits);
uint16_t float_to_bfloat16_bits(float value);
float bfloat16_bits_to_float(uint16_t bits);

}  // namespace ember
