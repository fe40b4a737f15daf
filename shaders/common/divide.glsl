// Integer division in vector lanes. x86 has no SIMD integer division, so llvmpipe (lavapipe) divides
// one lane at a time; a float division of exact operands, then one correction step, does it in vector
// lanes for dividends below 2^24.
#ifndef EMBER_DIVIDE_GLSL
#define EMBER_DIVIDE_GLSL

// a / b for b > 0 and a < 2^24, which the launches that call it keep to.
uint divide_small(uint a, uint b) {
  uint q = uint(float(a) / float(b));
  const int r = int(a) - int(q * b);
  if (r < 0) --q;
  else if (r >= int(b)) ++q;
  return q;
}

#endif
