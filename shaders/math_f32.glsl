// float32 math for COMPUTE_F32 modules (included by math.glsl). The GLSL builtins are not used: Vulkan
// only promises a few ulp for exp and log and an absolute 2^-11 for sin and cos, and lavapipe measured
// 5e6 ulp for log near 1, thousands of ulp for asin, acos and atan, garbage for sin of large arguments,
// and NaN for pow of negative bases. The methods mirror math_f64.glsl, with float-float (hi + lo)
// where an intermediate needs more than 24 bits:
//   exp, expm1, exp2, sinh, cosh, tanh, pow: x = k ln2 + r, Taylor series of expm1(r), 2^k by bits.
//   log, log2, log10, log1p, pow: log(m) = 2 atanh((m - 1) / (m + 1)) in float-float.
//   sin, cos, tan: Cody-Waite with pi/2 in four pieces for |x| < 400, Payne-Hanek beyond (exact for
//     every float); Taylor series on |r| <= pi/4.
//   atan, atan2, asin, acos: atan(c) + atan((b - c) / (1 + b c)), c = j/8.
//   erf, erfc: x + x Q(x^2) near 0, exp(-x^2) h(x) / x beyond.
//   erfinv: Winitzki's closed form, then two Halley steps on erf or erfc.
// Accuracy is measured by tests/math_test.cpp. Devices that flush float32 denormals (lavapipe does)
// return 0 where the result would be denormal.
#ifndef EMBER_MATH_F32_GLSL
#define EMBER_MATH_F32_GLSL

const float LN2_HI = 0.693145751953125;  // 16 significant bits
const float LN2_LO = 1.428606765330187e-06;
const float LN2_D_HI = 0.6931471824645996;
const float LN2_D_LO = -1.9046542121259336e-09;
const float INV_LN2 = 1.4426950216293335;
const float INV_LN2_D_HI = 1.4426950216293335;
const float INV_LN2_D_LO = 1.925963033500011e-08;
const float INV_LN10_D_HI = 0.4342944920063019;
const float INV_LN10_D_LO = -1.0103049952192578e-08;
const float LOG10_2_HI = 0.30103302001953125;  // 16 significant bits
const float LOG10_2_LO = -3.024355464731343e-06;
const float TWO_THIRDS_HI = 0.6666666865348816;
const float TWO_THIRDS_LO = -1.9868215517249155e-08;
const float PIO2_1 = 1.57080078125;
const float PIO2_2 = -4.454399459064007e-06;
const float PIO2_3 = -5.5644377994212846e-11;
const float PIO2_4 = 6.123234262925839e-17;
const float TWO_OVER_PI = 0.6366197466850281;
const float PIO2_HI = 1.5707963705062866;
const float PIO2_LO = -4.371138828673793e-08;
const float PI_HI = 3.1415927410125732;
const float PI_LO = -8.742277657347586e-08;
const float PIO4_HI = 0.7853981852531433;
const float PIO4_LO = -2.1855694143368964e-08;
const float THREE_PIO4_HI = 2.356194496154785;
const float THREE_PIO4_LO = -5.962440319251527e-09;
const float ATAN_J8_HI[9] = float[](
    0.0, 0.12435499578714371, 0.244978666305542,
    0.3587706685066223, 0.46364760398864746, 0.5585992932319641,
    0.6435011029243469, 0.7188299894332886, 0.7853981852531433
);
const float ATAN_J8_LO[9] = float[](
    0.0, -1.240382241363136e-09, -3.1786777654474463e-09,
    1.7639498750554594e-09, 5.01215868808913e-09, 2.2111597886009804e-08,
    5.868937336117597e-09, 1.0188335508587443e-08, -2.1855694143368964e-08
);
const uint TWO_OVER_PI_BITS[12] = uint[](
    0x00000000u, 0x00000000u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u,
    0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u
);
// Taylor coefficients
const float EXPM1_TAYLOR[7] = float[](
    0.5, 0.1666666716337204, 0.0416666679084301,
    0.008333333767950535, 0.0013888889225199819, 0.00019841270113829523,
    2.4801587642286904e-05
);
const float SIN_TAYLOR[5] = float[](
    -0.1666666716337204, 0.008333333767950535, -0.00019841270113829523,
    2.7557318844628753e-06, -2.5052107943679403e-08
);
const float COS_TAYLOR[5] = float[](
    0.0416666679084301, -0.0013888889225199819, 2.4801587642286904e-05,
    -2.755731998149713e-07, 2.0876755879584152e-09
);
const float SINH_TAYLOR[6] = float[](
    0.1666666716337204, 0.008333333767950535, 0.00019841270113829523,
    2.7557318844628753e-06, 2.5052107943679403e-08, 1.6059044372074283e-10
);
const float ATAN_TAYLOR[4] = float[](
    -0.3333333432674408, 0.20000000298023224, -0.1428571492433548,
    0.1111111119389534
);
const float LOG_ATANH[6] = float[](
    0.4000000059604645, 0.2857142984867096, 0.2222222238779068,
    0.1818181872367859, 0.1538461595773697, 0.13333334028720856
);
// erf(x) = x + x * Q(x^2) for |x| < 0.84375
// Q(z) for z in [0, 0.84375^2]: worst error relative to erf 7.09e-09
const float ERF_Q[7] = float[](
    0.12837916612625122, -0.37612637877464294, 0.11283751577138901,
    -0.026862768456339836, 0.005210120230913162, -0.0008255121065303683,
    8.889625314623117e-05
);
// erfc(x) = exp(-x^2) * h / x, h = x * erfcx(x), fitted per interval in x or in t = 1/x
// h(x) on x in [0.84375, 1.34375]: worst relative error 7.22e-10
// h(x) on x in [1.34375, 2.34375]: worst relative error 1.40e-09
// h(1/t) on x in [2.34375, 4.0]: worst relative error 3.93e-10
// h(1/t) on x in [4.0, 10.125]: worst relative error 2.26e-10
const float ERFC_CENTER[4] = float[](
    1.09375, 1.84375, 0.3383333384990692,
    0.17438271641731262
);
const float ERFC_INV_HALF_WIDTH[4] = float[](
    4.0, 2.0, 11.320755004882812,
    13.22449016571045
);
const float ERFC_H0_HI[4] = float[](
    0.4410702586174011, 0.5036490559577942, 0.5362858176231384,
    0.555975615978241
);
const float ERFC_H0_LO[4] = float[](
    -1.3363682382916409e-10, 1.6691084070430406e-08, -2.0706758974142758e-08,
    -9.000060252617459e-09
);
const float ERFC_H[32] = float[](
    0.03348517790436745, -0.0062338123098015785, 0.000956452451646328,
    -0.00012897737906314433, 1.577912553329952e-05, -1.7856673366623e-06,
    1.9338065726515197e-07, -1.9327890399267744e-08, 0.024961229413747787,
    -0.007259118836373091, 0.0017790105193853378, -0.00038986289291642606,
    7.848242239560932e-05, -1.4808691958023701e-05, 2.8159279281680938e-06,
    -4.7628699917368067e-07, -0.012728695757687092, -0.000877446960657835,
    0.00013344093167688698, -6.3888815020618495e-06, -4.7634961219955585e-07,
    1.2643427282910125e-07, -1.157128082240888e-08, 8.766124631742755e-11,
    -0.006828883197158575, -0.0012417444959282875, 9.03095060493797e-05,
    3.585867261790554e-06, -1.1062594467148301e-06, 5.4629868628808254e-08,
    9.329669481417113e-09, -1.7625728654380168e-09
);

// ---- bits ----------------------------------------------------------------------------------------

float mf_inf() { return uintBitsToFloat(0x7f800000u); }
float mf_nan() { return uintBitsToFloat(0x7fc00000u); }
bool mf_isnan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }
bool mf_isinf(float x) { return (floatBitsToUint(x) & 0x7fffffffu) == 0x7f800000u; }
bool mf_signbit(float x) { return (floatBitsToUint(x) & 0x80000000u) != 0u; }
// |x| == 0, read from the bits so that devices which treat denormals as zero still tell them apart.
bool mf_iszero(float x) { return (floatBitsToUint(x) & 0x7fffffffu) == 0u; }
float mf_copysign(float magnitude, float sign) {
  return uintBitsToFloat((floatBitsToUint(magnitude) & 0x7fffffffu) | (floatBitsToUint(sign) & 0x80000000u));
}
// 2^k for -126 <= k <= 127.
float mf_pow2(int k) { return uintBitsToFloat(uint(k + 127) << 23); }
// y * 2^k with a single rounding, for 2^-20 <= |y| <= 2^20 and |k| <= 200.
float mf_scale(float y, int k) {
  precise float v;
  if (k > 100) v = (y * mf_pow2(k - 100)) * mf_pow2(100);
  else if (k < -100) v = (y * mf_pow2(k + 100)) * mf_pow2(-100);
  else v = y * mf_pow2(k);
  return v;
}

// ---- error-free transformations and float-float steps ---------------------------------------------

void mf_two_sum(float a, float b, out float s, out float e) {
  precise float sum = a + b;
  precise float b_part = sum - a;
  precise float err = (a - (sum - b_part)) + (b - b_part);
  s = sum;
  e = err;
}
// |a| >= |b| (or a == 0).
void mf_fast_two_sum(float a, float b, out float s, out float e) {
  precise float sum = a + b;
  precise float err = b - (sum - a);
  s = sum;
  e = err;
}
// Veltkamp's split into two 12-bit halves (|a| < 2^115).
void mf_split(float a, out float hi, out float lo) {
  precise float c = 4097.0 * a;
  precise float h = c - (c - a);
  precise float l = a - h;
  hi = h;
  lo = l;
}
void mf_two_prod(float a, float b, out float p, out float e) {
  precise float prod = a * b;
  float ah, al, bh, bl;
  mf_split(a, ah, al);
  mf_split(b, bh, bl);
  precise float err = ((ah * bh - prod) + ah * bl + al * bh) + al * bl;
  p = prod;
  e = err;
}
void mf_ff_div(float a_hi, float a_lo, float b_hi, float b_lo, out float hi, out float lo) {
  const float q = a_hi / b_hi;
  float p, pe;
  mf_two_prod(q, b_hi, p, pe);
  precise float r = ((((a_hi - p) - pe) + a_lo) - q * b_lo) / b_hi;
  mf_fast_two_sum(q, r, hi, lo);
}

// ---- exponentials -------------------------------------------------------------------------------

// x = k ln2 + r + r_lo, |r| <= ln2/2 (a little more after rounding); |x| < 170.
int mf_reduce_ln2(float x, out float r, out float r_lo) {
  const float k = floor(x * INV_LN2 + 0.5);
  precise float hi = x - k * LN2_HI;  // exact: k * LN2_HI has at most 24 bits and cancels with x
  precise float t = k * LN2_LO;
  mf_two_sum(hi, -t, r, r_lo);
  return int(k);
}
// expm1(r) for |r| <= 0.36 as hi + lo: Taylor series through r^8.
void mf_expm1_kernel(float r, out float hi, out float lo) {
  float q = EXPM1_TAYLOR[6];
  for (int i = 5; i >= 0; --i) q = q * r + EXPM1_TAYLOR[i];
  mf_fast_two_sum(r, r * r * q, hi, lo);
}
void mf_exp_kernel(float r, float r_lo, out float hi, out float lo) {
  float em, em_lo, e;
  mf_expm1_kernel(r, em, em_lo);
  em_lo += r_lo * (1.0 + em);
  mf_fast_two_sum(1.0, em, hi, e);
  lo = e + em_lo;
}

float m_exp(float x) {
  if (mf_isnan(x)) return x;
  if (x > 88.8) return mf_inf();
  if (x < -104.0) return 0.0;
  float r, r_lo, hi, lo;
  const int k = mf_reduce_ln2(x, r, r_lo);
  mf_exp_kernel(r, r_lo, hi, lo);
  return mf_scale(hi + lo, k);
}

float m_exp2(float x) {
  if (mf_isnan(x)) return x;
  if (x >= 128.0) return mf_inf();
  if (x < -151.0) return 0.0;
  const float k = floor(x + 0.5);
  const float f = x - k;  // exact
  float r, r_lo, hi, lo;
  mf_two_prod(f, LN2_D_HI, r, r_lo);
  r_lo += f * LN2_D_LO;
  mf_exp_kernel(r, r_lo, hi, lo);
  return mf_scale(hi + lo, int(k));
}

// expm1(x) as hi + lo for -18 <= x <= 40 (|k| <= 58).
void mf_expm1_ff(float x, out float hi, out float lo) {
  float r, r_lo, em, em_lo;
  const int k = mf_reduce_ln2(x, r, r_lo);
  mf_expm1_kernel(r, em, em_lo);
  em_lo += r_lo * (1.0 + em);
  if (k == 0) {
    mf_fast_two_sum(em, em_lo, hi, lo);
    return;
  }
  if (k < -24) {
    hi = (1.0 + em) * mf_pow2(k) - 1.0;
    lo = 0.0;
    return;
  }
  // 2^k (em + (1 - 2^-k)); 1 - 2^-k is exact for k <= 24.
  const float unit = mf_pow2(-k);
  float s, e;
  mf_two_sum(k <= 24 ? 1.0 - unit : 1.0, em, s, e);
  e += em_lo - (k <= 24 ? 0.0 : unit);
  const float scale = mf_pow2(k);
  mf_fast_two_sum(s * scale, e * scale, hi, lo);
}

float m_expm1(float x) {
  if (mf_isnan(x)) return x;
  if (x > 88.8) return mf_inf();
  if (x < -18.0) return -1.0;
  if (abs(x) < 2.9802322387695312e-08) return x;  // 2^-25: keeps -0 and denormals
  if (x > 40.0) return m_exp(x);
  float hi, lo;
  mf_expm1_ff(x, hi, lo);
  return hi + lo;
}

// exp(a) = 2^k (hi + lo) for 0 <= a <= 90.
int mf_exp_parts(float a, out float hi, out float lo) {
  float r, r_lo;
  const int k = mf_reduce_ln2(a, r, r_lo);
  mf_exp_kernel(r, r_lo, hi, lo);
  return k;
}

float m_sinh(float x) {
  if (mf_isnan(x)) return x;
  const float a = abs(x);
  if (a < 1.0) {
    if (a < 0.000244140625) return x;  // 2^-12
    const float z = x * x;
    float p = SINH_TAYLOR[5];
    for (int i = 4; i >= 0; --i) p = p * z + SINH_TAYLOR[i];
    return x + x * z * p;
  }
  if (a > 89.5) return mf_copysign(mf_inf(), x);
  float hi, lo;
  const int k = mf_exp_parts(a, hi, lo);
  float result;
  if (a > 9.0) {
    result = mf_scale(hi + lo, k - 1);
  } else {
    const float scale = mf_pow2(k);
    const float e_hi = hi * scale;
    result = 0.5 * ((e_hi - 1.0 / e_hi) + lo * scale);
  }
  return mf_copysign(result, x);
}

float m_cosh(float x) {
  if (mf_isnan(x)) return x;
  const float a = abs(x);
  if (a < 0.000244140625) return 1.0;
  if (a > 89.5) return mf_inf();
  float hi, lo;
  const int k = mf_exp_parts(a, hi, lo);
  if (a > 9.0) return mf_scale(hi + lo, k - 1);
  const float scale = mf_pow2(k);
  const float e_hi = hi * scale;
  return 0.5 * ((e_hi + 1.0 / e_hi) + lo * scale);
}

float m_tanh(float x) {
  if (mf_isnan(x)) return x;
  const float a = abs(x);
  if (a < 0.0001220703125) return x;  // 2^-13
  if (a > 9.5) return mf_copysign(1.0, x);
  float t, t_lo, d, d_lo, hi, lo;
  mf_expm1_ff(2.0 * a, t, t_lo);
  mf_two_sum(t, 2.0, d, d_lo);
  d_lo += t_lo;
  mf_ff_div(t, t_lo, d, d_lo, hi, lo);
  return mf_copysign(hi + lo, x);
}

// ---- logarithms ---------------------------------------------------------------------------------

// x = m 2^e with m in [sqrt(1/2), sqrt(2)), for finite x > 0. Denormals are normalised with integer
// operations, which devices that treat denormal operands as zero still carry out.
float mf_log_split(float x, out int e) {
  uint bits = floatBitsToUint(x);
  int exponent = int(bits >> 23);
  if (exponent == 0) {
    const int top = findMSB(bits);  // bits > 0 here
    bits = (bits << (23 - top)) & 0x7fffffu;
    exponent = top - 22;
  }
  e = exponent - 127;
  uint m = (bits & 0x7fffffu) | 0x3f800000u;
  if (m > 0x3fb504f3u) {  // m above sqrt(2): halve it
    m -= 0x00800000u;
    e += 1;
  }
  return uintBitsToFloat(m);
}
// log(m) as hi + lo for m in [0.707, 1.415], to about 2^-38 relative (see md_log_kernel).
void mf_log_kernel(float m, out float hi, out float lo) {
  precise float f = m - 1.0;
  float d, d_lo;
  mf_fast_two_sum(2.0, f, d, d_lo);
  const float s = f / d;
  float p, pe;
  mf_two_prod(s, d, p, pe);
  precise float s_lo = (((f - p) - pe) - s * d_lo) / d;
  float z, z_lo;
  mf_two_prod(s, s, z, z_lo);
  z_lo += 2.0 * s * s_lo;
  float w, w_lo;
  mf_two_prod(TWO_THIRDS_HI, z, w, w_lo);
  float poly = LOG_ATANH[5];
  for (int i = 4; i >= 0; --i) poly = poly * z + LOG_ATANH[i];
  w_lo += TWO_THIRDS_HI * z_lo + TWO_THIRDS_LO * z + z * z * poly;
  float sw, sw_lo;
  mf_two_prod(s, w, sw, sw_lo);
  sw_lo += s * w_lo + s_lo * w;
  float h, l;
  mf_fast_two_sum(2.0 * s, sw, h, l);
  l += 2.0 * s_lo + sw_lo;
  mf_fast_two_sum(h, l, hi, lo);
}
void mf_log_ff(float x, float extra, out float hi, out float lo) {
  int e;
  const float m = mf_log_split(x, e);
  float lh, ll, s, err;
  mf_log_kernel(m, lh, ll);
  const float ef = float(e);
  mf_two_sum(ef * LN2_HI, lh, s, err);  // ef * LN2_HI is exact
  mf_fast_two_sum(s, err + ((ll + extra) + ef * LN2_LO), hi, lo);
}

bool mf_log_special(float x, out float result) {
  result = x;
  if (mf_isnan(x)) return true;
  if (mf_iszero(x)) { result = -mf_inf(); return true; }
  if (mf_signbit(x)) { result = mf_nan(); return true; }
  return mf_isinf(x);
}

float m_log(float x) {
  float result, lo;
  if (mf_log_special(x, result)) return result;
  mf_log_ff(x, 0.0, result, lo);
  return result;
}

float m_log2(float x) {
  float result;
  if (mf_log_special(x, result)) return result;
  int e;
  const float m = mf_log_split(x, e);
  float lh, ll, p, pe, s, err;
  mf_log_kernel(m, lh, ll);
  mf_two_prod(lh, INV_LN2_D_HI, p, pe);
  pe += lh * INV_LN2_D_LO + ll * INV_LN2_D_HI;
  mf_two_sum(float(e), p, s, err);
  return s + (err + pe);
}

float m_log10(float x) {
  float result;
  if (mf_log_special(x, result)) return result;
  int e;
  const float m = mf_log_split(x, e);
  float lh, ll, p, pe, s, err;
  mf_log_kernel(m, lh, ll);
  mf_two_prod(lh, INV_LN10_D_HI, p, pe);
  pe += lh * INV_LN10_D_LO + ll * INV_LN10_D_HI;
  const float ef = float(e);
  mf_two_sum(ef * LOG10_2_HI, p, s, err);
  return s + (err + (pe + ef * LOG10_2_LO));
}

float m_log1p(float x) {
  if (mf_isnan(x)) return x;
  if (x < -1.0) return mf_nan();
  if (x == -1.0) return -mf_inf();
  if (mf_isinf(x)) return x;
  if (abs(x) < 2.9802322387695312e-08) return x;  // 2^-25
  float u, c, hi, lo;
  mf_two_sum(1.0, x, u, c);
  mf_log_ff(u, c / u, hi, lo);
  return hi;
}

// ---- pow ----------------------------------------------------------------------------------------

float m_pow(float x, float y) {
  if (mf_iszero(y) || x == 1.0) return 1.0;
  if (mf_isnan(x) || mf_isnan(y)) return x + y;
  const float ax = abs(x);
  if (mf_isinf(y)) {
    if (ax == 1.0) return 1.0;
    return (ax > 1.0) == (y > 0.0) ? mf_inf() : 0.0;
  }
  const bool y_integer = floor(y) == y;
  const bool y_odd = y_integer && abs(y) < 16777216.0 && floor(0.5 * y) * 2.0 != y;
  const float sign = (mf_signbit(x) && y_odd) ? -1.0 : 1.0;
  if (mf_iszero(ax) || mf_isinf(ax)) {
    const bool large = mf_iszero(ax) == (y < 0.0);
    return sign * (large ? mf_inf() : 0.0);
  }
  if (mf_signbit(x) && !y_integer) return mf_nan();
  float l, l_lo;
  mf_log_ff(ax, 0.0, l, l_lo);
  const float estimate = y * l;
  if (estimate > 89.0) return sign * mf_inf();
  if (estimate < -105.0) return sign * 0.0;
  float p, pe, r, r_lo, hi, lo;
  mf_two_prod(y, l, p, pe);
  pe += y * l_lo;
  const int k = mf_reduce_ln2(p, r, r_lo);
  mf_exp_kernel(r, r_lo + pe, hi, lo);
  return sign * mf_scale(hi + lo, k);
}

// ---- trigonometric ------------------------------------------------------------------------------

// x = n pi/2 + r + r_lo for |x| < 400 (n < 2^8): pi/2 in four pieces, the first three of 16 bits.
int mf_reduce_pio2_medium(float x, out float r, out float r_lo) {
  const float n = floor(x * TWO_OVER_PI + 0.5);
  precise float t = x - n * PIO2_1;  // exact
  float s1, e1, s2, e2;
  mf_two_sum(t, -(n * PIO2_2), s1, e1);
  mf_two_sum(s1, -(n * PIO2_3), s2, e2);
  mf_fast_two_sum(s2, (e1 + e2) - n * PIO2_4, r, r_lo);
  return int(n);
}
// Payne-Hanek for any finite |x| >= 400 (see md_reduce_pio2_large): x = M 2^ex, M of 24 bits, and
// x 2/pi mod 4 = (M W mod 2^96) 2^-94 with W the 96 bits of 2/pi from weight 2^(1 - ex) on.
int mf_reduce_pio2_large(float x, out float r, out float r_lo) {
  const uint bits = floatBitsToUint(abs(x));
  const int ex = int(bits >> 23) - 150;
  const uint m = (bits & 0x7fffffu) | 0x800000u;
  const int offset = ex - 2 + 64;
  const int q = offset >> 5;
  const int shift = offset & 31;
  uint w[3];
  for (int t = 0; t < 3; ++t) {
    const uint high = TWO_OVER_PI_BITS[q + t];
    const uint low = TWO_OVER_PI_BITS[q + t + 1];
    w[2 - t] = shift == 0 ? high : (high << shift) | (low >> (32 - shift));
  }
  uint64_t acc = uint64_t(m) * uint64_t(w[0]);
  const uint p0 = uint(acc);
  acc = (acc >> 32) + uint64_t(m) * uint64_t(w[1]);
  const uint p1 = uint(acc);
  acc = (acc >> 32) + uint64_t(m) * uint64_t(w[2]);
  const uint p2 = uint(acc);
  int n = int(p2 >> 30);
  // The top 64 of the 94 fraction bits; round n to nearest, so that f is in [-1/2, 1/2).
  uint64_t f = (uint64_t(p2 & 0x3fffffffu) << 34) | (uint64_t(p1) << 2) | uint64_t(p0 >> 30);
  float sign = 1.0;
  if ((p2 & 0x20000000u) != 0u) {
    n += 1;
    sign = -1.0;
    f = ~f + 1ul;
  }
  const uint f_hi = uint(f >> 32);
  const int zeros = f_hi != 0u ? 31 - findMSB(f_hi) : 63 - findMSB(uint(f));
  float hi = 0.0, lo = 0.0;
  if (zeros < 64) {
    const uint64_t v = f << zeros;
    hi = float(uint(v >> 40)) * mf_pow2(-24 - zeros);
    lo = float(uint(v >> 16) & 0xffffffu) * mf_pow2(-48 - zeros);
  }
  float rr, rr_lo;
  mf_two_prod(hi, PIO2_HI, rr, rr_lo);
  rr_lo += hi * PIO2_LO + lo * PIO2_HI;
  mf_fast_two_sum(rr, rr_lo, r, r_lo);
  r *= sign;
  r_lo *= sign;
  if (x < 0.0) {
    r = -r;
    r_lo = -r_lo;
    n = -n;
  }
  return n;
}
int mf_reduce_pio2(float x, out float r, out float r_lo) {
  if (abs(x) < 400.0) return mf_reduce_pio2_medium(x, r, r_lo);
  return mf_reduce_pio2_large(x, r, r_lo);
}

// sin(r + r_lo) for |r| <= 0.79: Taylor series through r^11.
void mf_sin_kernel(float r, float r_lo, out float hi, out float lo) {
  const float z = r * r;
  float p = SIN_TAYLOR[4];
  for (int i = 3; i >= 0; --i) p = p * z + SIN_TAYLOR[i];
  mf_fast_two_sum(r, r * z * p + r_lo * (1.0 - 0.5 * z), hi, lo);
}
// cos(r + r_lo) for |r| <= 0.79: 1 - r^2/2 with r^2 exact, then the series through r^12.
void mf_cos_kernel(float r, float r_lo, out float hi, out float lo) {
  float z, z_lo;
  mf_two_prod(r, r, z, z_lo);
  float p = COS_TAYLOR[4];
  for (int i = 3; i >= 0; --i) p = p * z + COS_TAYLOR[i];
  float w, w_err;
  mf_fast_two_sum(1.0, -0.5 * z, w, w_err);
  mf_fast_two_sum(w, w_err + ((z * z * p - 0.5 * z_lo) - r * r_lo), hi, lo);
}

float m_sin(float x) {
  if (mf_isnan(x) || mf_isinf(x)) return mf_nan();
  if (abs(x) < 0.000244140625) return x;  // 2^-12
  float r, r_lo, hi, lo;
  const int n = mf_reduce_pio2(x, r, r_lo);
  if ((n & 1) == 0) mf_sin_kernel(r, r_lo, hi, lo);
  else mf_cos_kernel(r, r_lo, hi, lo);
  return (n & 2) == 0 ? hi + lo : -(hi + lo);
}

float m_cos(float x) {
  if (mf_isnan(x) || mf_isinf(x)) return mf_nan();
  if (abs(x) < 0.000244140625) return 1.0;
  float r, r_lo, hi, lo;
  const int n = mf_reduce_pio2(x, r, r_lo) + 1;
  if ((n & 1) == 0) mf_sin_kernel(r, r_lo, hi, lo);
  else mf_cos_kernel(r, r_lo, hi, lo);
  return (n & 2) == 0 ? hi + lo : -(hi + lo);
}

float m_tan(float x) {
  if (mf_isnan(x) || mf_isinf(x)) return mf_nan();
  if (abs(x) < 0.000244140625) return x;
  float r, r_lo, s, s_lo, c, c_lo, hi, lo;
  const int n = mf_reduce_pio2(x, r, r_lo);
  mf_sin_kernel(r, r_lo, s, s_lo);
  mf_cos_kernel(r, r_lo, c, c_lo);
  if ((n & 1) == 0) {
    mf_ff_div(s, s_lo, c, c_lo, hi, lo);
    return hi + lo;
  }
  mf_ff_div(c, c_lo, s, s_lo, hi, lo);
  return -(hi + lo);
}

// ---- inverse trigonometric ----------------------------------------------------------------------

// atan(b + b_lo) for 0 <= b <= 1: atan(j/8) + atan(t), |t| <= 1/16, Taylor series through t^9.
void mf_atan_kernel(float b, float b_lo, out float hi, out float lo) {
  const int j = int(floor(b * 8.0 + 0.5));
  float t = b, t_lo = b_lo;
  if (j > 0) {
    const float c = float(j) * 0.125;
    float num, num_lo, den, den_lo, p, pe;
    mf_two_sum(b - c, b_lo, num, num_lo);
    mf_two_prod(b, c, p, pe);
    mf_fast_two_sum(1.0, p, den, den_lo);
    den_lo += pe + b_lo * c;
    mf_ff_div(num, num_lo, den, den_lo, t, t_lo);
  }
  const float z = t * t;
  float poly = ATAN_TAYLOR[3];
  for (int i = 2; i >= 0; --i) poly = poly * z + ATAN_TAYLOR[i];
  float s, e;
  mf_two_sum(ATAN_J8_HI[j], t, s, e);
  mf_fast_two_sum(s, e + (ATAN_J8_LO[j] + (t * z * poly + t_lo * (1.0 - z))), hi, lo);
}
void mf_pio2_minus(inout float hi, inout float lo) {
  float s, e;
  mf_fast_two_sum(PIO2_HI, -hi, s, e);
  mf_fast_two_sum(s, e + (PIO2_LO - lo), hi, lo);
}
void mf_pi_minus(inout float hi, inout float lo) {
  float s, e;
  mf_fast_two_sum(PI_HI, -hi, s, e);
  mf_fast_two_sum(s, e + (PI_LO - lo), hi, lo);
}
// atan(num / den) for 0 < num, den <= 2^100, one of them >= 2^-100.
void mf_atan_ratio(float num, float num_lo, float den, float den_lo, out float hi, out float lo) {
  float q, q_lo;
  if (num <= den) {
    mf_ff_div(num, num_lo, den, den_lo, q, q_lo);
    mf_atan_kernel(q, q_lo, hi, lo);
  } else {
    mf_ff_div(den, den_lo, num, num_lo, q, q_lo);
    mf_atan_kernel(q, q_lo, hi, lo);
    mf_pio2_minus(hi, lo);
  }
}

float m_atan(float x) {
  if (mf_isnan(x)) return x;
  const float a = abs(x);
  if (a < 0.0001220703125) return x;  // 2^-13
  if (a > 67108864.0) return mf_copysign(PIO2_HI, x);  // 2^26
  float hi, lo;
  mf_atan_ratio(a, 0.0, 1.0, 0.0, hi, lo);
  return mf_copysign(hi + lo, x);
}

float m_atan2(float y, float x) {
  if (mf_isnan(x) || mf_isnan(y)) return x + y;
  const bool x_negative = mf_signbit(x);
  if (mf_iszero(y)) return x_negative ? mf_copysign(PI_HI, y) : y;
  if (mf_iszero(x)) return mf_copysign(PIO2_HI, y);
  float ax = abs(x), ay = abs(y);
  if (mf_isinf(ay)) {
    if (mf_isinf(ax)) return mf_copysign(x_negative ? THREE_PIO4_HI : PIO4_HI, y);
    return mf_copysign(PIO2_HI, y);
  }
  if (mf_isinf(ax)) return mf_copysign(x_negative ? PI_HI : 0.0, y);
  const float larger = max(ax, ay);
  if (larger > 1.2676506002282294e+30) {  // 2^100
    ax *= 8.881784197001252e-16;          // 2^-50
    ay *= 8.881784197001252e-16;
  } else if (larger < 7.888609052210118e-31) {  // 2^-100
    ax *= 1125899906842624.0;                   // 2^50
    ay *= 1125899906842624.0;
  }
  float hi, lo;
  mf_atan_ratio(ay, 0.0, ax, 0.0, hi, lo);
  if (x_negative) mf_pi_minus(hi, lo);
  return mf_copysign(hi + lo, y);
}

void mf_sqrt_one_minus_square(float a, out float hi, out float lo) {
  float p, pe, w, w_lo;
  mf_two_prod(a, a, p, pe);
  mf_two_sum(1.0, -p, w, w_lo);
  w_lo -= pe;
  const float s = sqrt(w);
  float ss, ss_lo;
  mf_two_prod(s, s, ss, ss_lo);
  precise float correction = (((w - ss) - ss_lo) + w_lo) / (2.0 * s);
  mf_fast_two_sum(s, correction, hi, lo);
}

float m_asin(float x) {
  if (mf_isnan(x)) return x;
  const float a = abs(x);
  if (a > 1.0) return mf_nan();
  if (a < 0.0001220703125) return x;  // 2^-13
  if (a == 1.0) return mf_copysign(PIO2_HI, x);
  float c, c_lo, hi, lo;
  mf_sqrt_one_minus_square(a, c, c_lo);
  mf_atan_ratio(a, 0.0, c, c_lo, hi, lo);
  return mf_copysign(hi + lo, x);
}

float m_acos(float x) {
  if (mf_isnan(x)) return x;
  const float a = abs(x);
  if (a > 1.0) return mf_nan();
  if (x == 1.0) return 0.0;
  if (x == -1.0) return PI_HI;
  if (a < 1.4901161193847656e-08) return PIO2_HI;  // 2^-26
  float s, s_lo, hi, lo;
  mf_sqrt_one_minus_square(a, s, s_lo);
  mf_atan_ratio(s, s_lo, a, 0.0, hi, lo);
  if (x < 0.0) mf_pi_minus(hi, lo);
  return hi + lo;
}

// ---- error function -----------------------------------------------------------------------------

float mf_erf_q(float x) {
  const float z = x * x;
  float q = ERF_Q[6];
  for (int i = 5; i >= 0; --i) q = q * z + ERF_Q[i];
  return q;
}
// erfc(x) = (hi + lo) 2^k for 0.84375 <= x <= 10.125 (see md_erfc_parts).
int mf_erfc_parts(float x, out float hi, out float lo) {
  float p, pe, r, r_lo, y, y_lo;
  mf_two_prod(x, x, p, pe);
  const int k = mf_reduce_ln2(-p, r, r_lo);
  mf_exp_kernel(r, r_lo - pe, y, y_lo);
  int i;
  float u;
  if (x < 2.34375) {
    i = x < 1.34375 ? 0 : 1;
    u = (x - ERFC_CENTER[i]) * ERFC_INV_HALF_WIDTH[i];
  } else {
    i = x < 4.0 ? 2 : 3;
    u = (1.0 / x - ERFC_CENTER[i]) * ERFC_INV_HALF_WIDTH[i];
  }
  float acc = ERFC_H[i * 8 + 7];
  for (int j = 6; j >= 0; --j) acc = acc * u + ERFC_H[i * 8 + j];
  float h, h_lo, v, v_lo;
  mf_two_sum(ERFC_H0_HI[i], u * acc, h, h_lo);
  h_lo += ERFC_H0_LO[i];
  mf_two_prod(y, h, v, v_lo);
  v_lo += y * h_lo + y_lo * h;
  mf_ff_div(v, v_lo, x, 0.0, hi, lo);
  return k;
}

float m_erf(float x) {
  if (mf_isnan(x)) return x;
  const float a = abs(x);
  if (a < 0.84375) return x + x * mf_erf_q(x);
  if (a >= 4.0) return mf_copysign(1.0, x);  // erfc(4) < 2^-25
  float hi, lo, s, e;
  const int k = mf_erfc_parts(a, hi, lo);
  const float scale = mf_pow2(k);
  mf_fast_two_sum(1.0, -hi * scale, s, e);
  return mf_copysign(s + (e - lo * scale), x);
}

float m_erfc(float x) {
  if (mf_isnan(x)) return x;
  if (abs(x) < 0.84375) {
    float s, e;
    mf_two_sum(1.0, -x, s, e);
    return s + (e - x * mf_erf_q(x));
  }
  if (x >= 10.125) return 0.0;
  if (x <= -4.0) return 2.0;
  float hi, lo;
  const int k = mf_erfc_parts(abs(x), hi, lo);
  if (x > 0.0) return mf_scale(hi + lo, k);
  float s, e;
  const float scale = mf_pow2(k);
  mf_fast_two_sum(2.0, -hi * scale, s, e);
  return s + (e - lo * scale);
}

// For m_erfinv in math.glsl.
float mc_nan() { return mf_nan(); }
float mc_inf() { return mf_inf(); }
bool mc_isnan(float x) { return mf_isnan(x); }
float mc_copysign(float magnitude, float sign) { return mf_copysign(magnitude, sign); }
const float M_TWO_OVER_SQRT_PI = 1.1283791670955126;
const float M_SQRT_PI_OVER_TWO = 0.88622692545275801;
const float M_ERFINV_LINEAR = 0.000244140625;  // 2^-12
const int M_ERFINV_STEPS = 2;

#endif
