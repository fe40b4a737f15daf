// float64 math for COMPUTE_F64 modules (included by math.glsl). GLSL has no float64 transcendental
// functions, so everything here is built from double +, -, *, /, sqrt, floor and bit manipulation.
//
// Accuracy (tests/math_test.cpp measures it against LibTorch): within a few ulp over the whole domain,
// with IEEE special values. The methods, all classic:
//   exp, expm1, exp2, sinh, cosh, tanh, pow: x = k ln2 + r, |r| <= ln2/2, Taylor series of expm1(r)
//     carried as a double-double, scaled by 2^k through exponent bits with one final rounding.
//   log, log2, log10, log1p, pow: x = m 2^e with m in [sqrt(1/2), sqrt(2)); log(m) = 2 atanh(s),
//     s = (m - 1) / (m + 1), evaluated in double-double (pow needs about 64 correct bits).
//   sin, cos, tan: x = n pi/2 + r, by Cody-Waite with pi/2 in four pieces for |x| < 2^20 pi/2 and by
//     Payne-Hanek (integer product with the bits of 2/pi) beyond, so every finite x is reduced
//     correctly; Taylor series on |r| <= pi/4.
//   atan, atan2, asin, acos: atan(b) = atan(c) + atan((b - c) / (1 + b c)) with c = j/8, after
//     atan(b) = pi/2 - atan(1/b) for b > 1; asin and acos as atan of x / sqrt(1 - x^2) in double-double.
//   erf, erfc: erf(x) = x + x Q(x^2) near 0; erfc(x) = exp(-x^2) h(x) / x beyond, h fitted per interval.
// Constants and coefficients come from tools/math_constants.py (mpmath).
//
// Double-double steps rely on exact error terms, so they are `precise` (no contraction, no
// reassociation) and use Dekker's product rather than fma, which not every driver fuses (lavapipe
// does not). Denormal results are produced where the device keeps float64 denormals.
#ifndef EMBER_MATH_F64_GLSL
#define EMBER_MATH_F64_GLSL

const double LN2_HI = 0.6931471806019545lf;  // 32 significant bits
const double LN2_LO = -4.2009150726810846e-11lf;
const double LN2_D_HI = 0.6931471805599453lf;
const double LN2_D_LO = 2.3190468138462996e-17lf;
const double INV_LN2 = 1.4426950408889634lf;
const double INV_LN2_D_HI = 1.4426950408889634lf;
const double INV_LN2_D_LO = 2.0355273740931033e-17lf;
const double INV_LN10_D_HI = 0.4342944819032518lf;
const double INV_LN10_D_LO = 1.098319650216765e-17lf;
const double LOG10_2_HI = 0.3010299956658855lf;  // 32 significant bits
const double LOG10_2_LO = -1.9043128467164274e-12lf;
const double TWO_THIRDS_HI = 0.6666666666666666lf;
const double TWO_THIRDS_LO = 3.700743415417188e-17lf;
const double PIO2_1 = 1.5707963267341256lf;
const double PIO2_2 = 6.077100506303966e-11lf;
const double PIO2_3 = 2.0222662487111665e-21lf;
const double PIO2_4 = 8.4784276603689e-32lf;
const double TWO_OVER_PI = 0.6366197723675814lf;
const double PIO2_HI = 1.5707963267948966lf;
const double PIO2_LO = 6.123233995736766e-17lf;
const double PI_HI = 3.141592653589793lf;
const double PI_LO = 1.2246467991473532e-16lf;
const double PIO4_HI = 0.7853981633974483lf;
const double PIO4_LO = 3.061616997868383e-17lf;
const double THREE_PIO4_HI = 2.356194490192345lf;
const double THREE_PIO4_LO = 9.184850993605148e-17lf;
const double ATAN_J8_HI[9] = double[](
    0.0lf, 0.12435499454676144lf, 0.24497866312686414lf,
    0.35877067027057225lf, 0.4636476090008061lf, 0.5585993153435624lf,
    0.6435011087932844lf, 0.7188299996216245lf, 0.7853981633974483lf
);
const double ATAN_J8_LO[9] = double[](
    0.0lf, -3.1253241424539383e-18lf, 1.0698755618734451e-17lf,
    -2.4623815582638635e-17lf, 2.2698777452961687e-17lf, -5.4556305485916264e-18lf,
    1.5834785051444286e-17lf, -2.1478388444456983e-17lf, 3.061616997868383e-17lf
);
const uint TWO_OVER_PI_BITS[42] = uint[](
    0x00000000u, 0x00000000u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u,
    0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u,
    0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u, 0x2ebb4484u,
    0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu,
    0x1ff897ffu, 0xde05980fu, 0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u,
    0x4f463f66u, 0x9e5fea2du, 0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau,
    0x6bfb5fb1u, 0x1f8d5d08u, 0x56033046u, 0xfc7b6babu, 0xf0cfbc20u, 0x9af4361du
);
// Taylor coefficients
const double EXPM1_TAYLOR[13] = double[](
    0.5lf, 0.16666666666666666lf, 0.041666666666666664lf,
    0.008333333333333333lf, 0.001388888888888889lf, 0.0001984126984126984lf,
    2.48015873015873e-05lf, 2.7557319223985893e-06lf, 2.755731922398589e-07lf,
    2.505210838544172e-08lf, 2.08767569878681e-09lf, 1.6059043836821613e-10lf,
    1.1470745597729725e-11lf
);
const double SIN_TAYLOR[8] = double[](
    -0.16666666666666666lf, 0.008333333333333333lf, -0.0001984126984126984lf,
    2.7557319223985893e-06lf, -2.505210838544172e-08lf, 1.6059043836821613e-10lf,
    -7.647163731819816e-13lf, 2.8114572543455206e-15lf
);
const double COS_TAYLOR[8] = double[](
    0.041666666666666664lf, -0.001388888888888889lf, 2.48015873015873e-05lf,
    -2.755731922398589e-07lf, 2.08767569878681e-09lf, -1.1470745597729725e-11lf,
    4.779477332387385e-14lf, -1.5619206968586225e-16lf
);
const double SINH_TAYLOR[9] = double[](
    0.16666666666666666lf, 0.008333333333333333lf, 0.0001984126984126984lf,
    2.7557319223985893e-06lf, 2.505210838544172e-08lf, 1.6059043836821613e-10lf,
    7.647163731819816e-13lf, 2.8114572543455206e-15lf, 8.22063524662433e-18lf
);
const double ATAN_TAYLOR[7] = double[](
    -0.3333333333333333lf, 0.2lf, -0.14285714285714285lf,
    0.1111111111111111lf, -0.09090909090909091lf, 0.07692307692307693lf,
    -0.06666666666666667lf
);
const double LOG_ATANH[9] = double[](
    0.4lf, 0.2857142857142857lf, 0.2222222222222222lf,
    0.18181818181818182lf, 0.15384615384615385lf, 0.13333333333333333lf,
    0.11764705882352941lf, 0.10526315789473684lf, 0.09523809523809523lf
);
// erf(x) = x + x * Q(x^2) for |x| < 0.84375
// Q(z) for z in [0, 0.84375^2]: worst error relative to erf 1.10e-17
const double ERF_Q[13] = double[](
    0.1283791670955126lf, -0.37612638903183754lf, 0.11283791670955119lf,
    -0.026866170645129195lf, 0.0052239776254091085lf, -0.0008548327020282098lf,
    0.00012055332786789778lf, -1.4925642307895309e-05lf, 1.646188646025385e-06lf,
    -1.6361401594512728e-07lf, 1.4748383049793128e-08lf, -1.1782540187183761e-09lf,
    6.792271255793785e-11lf
);
// erfc(x) = exp(-x^2) * h / x, h = x * erfcx(x), fitted per interval in x or in t = 1/x
// h(x) on x in [0.84375, 1.34375]: worst relative error 9.09e-18
// h(x) on x in [1.34375, 2.34375]: worst relative error 9.70e-18
// h(1/t) on x in [2.34375, 4.0]: worst relative error 4.47e-20
// h(1/t) on x in [4.0, 8.0]: worst relative error 5.60e-19
// h(1/t) on x in [8.0, 28.0]: worst relative error 3.10e-19
const double ERFC_CENTER[5] = double[](
    1.09375lf, 1.84375lf, 0.3383333333333333lf,
    0.1875lf, 0.08035714285714286lf
);
const double ERFC_INV_HALF_WIDTH[5] = double[](
    4.0lf, 2.0lf, 11.320754716981131lf,
    16.0lf, 22.4lf
);
const double ERFC_H0_HI[5] = double[](
    0.4410702584837643lf, 0.5036490726488781lf, 0.53628579691638lf,
    0.5547541131463941lf, 0.5623853861121489lf
);
const double ERFC_H0_LO[5] = double[](
    -4.574691719601901e-18lf, -4.588615967066554e-17lf, -5.516436447858378e-17lf,
    1.316887798399973e-17lf, 1.9989728554983334e-17lf
);
const double ERFC_H[75] = double[](
    0.03348517818763265lf, -0.006233812222318198lf, 0.0009564516170336191lf,
    -0.00012897730641360606lf, 1.5782220143311755e-05lf, -1.7859490535578073e-06lf,
    1.8926898318096246e-07lf, -1.8953637870223312e-08lf, 1.8056311009541626e-09lf,
    -1.6449977053579015e-10lf, 1.4392163775263022e-11lf, -1.2131260508370735e-12lf,
    9.885146049360863e-14lf, -7.98587300399354e-15lf, 6.113336737695546e-16lf,
    0.024961232392600962lf, -0.007259119337510452lf, 0.001778974338638885lf,
    -0.0003898572386941964lf, 7.861193555748623e-05lf, -1.4828931234952077e-05lf,
    2.6451600879791106e-06lf, -4.495823876097429e-07lf, 7.322047598622269e-08lf,
    -1.1477302030106884e-08lf, 1.7374270484110704e-09lf, -2.541227166646081e-10lf,
    3.6183400246505544e-11lf, -5.393200749047878e-12lf, 7.255265587775816e-13lf,
    -0.012728695931291433lf, -0.0008774469853292194lf, 0.00013344085931871406lf,
    -6.388869433449009e-06lf, -4.761007765983953e-07lf, 1.2639004926030217e-07lf,
    -1.190065287367775e-08lf, 1.4664525065489426e-10lf, 1.429241234739431e-10lf,
    -2.6234971786551905e-11lf, 2.3630758385233796e-12lf, 2.817962466526712e-15lf,
    -4.1858521836140386e-14lf, 8.245916674108704e-15lf, -8.213592322423321e-16lf,
    -0.005993561956300755lf, -0.0008157912375101984lf, 5.221330575902887e-05lf,
    1.2379957954708069e-06lf, -4.0270172495345685e-07lf, 2.0514105704783006e-08lf,
    1.7813481522261294e-09lf, -3.675610371893575e-10lf, 1.8027630821173078e-11lf,
    2.3921323480502614e-12lf, -5.1351547726435e-13lf, 3.122928907911122e-14lf,
    3.4068008325026777e-15lf, -9.36264921685999e-16lf, 7.463810669807574e-17lf,
    -0.001985672226114853lf, -0.0005308029494607681lf, 1.1182593708557033e-05lf,
    1.3132051567372088e-06lf, -7.360586892249154e-08lf, -4.071072187342252e-09lf,
    5.470157336213326e-10lf, 5.600605828534032e-12lf, -4.246947594224965e-12lf,
    1.5338599690506184e-13lf, 3.0402288577969267e-14lf, -3.1948827852688472e-15lf,
    -1.3251176158959595e-16lf, 4.31257196941724e-17lf, -1.233603367858685e-18lf
);

// ---- bits ----------------------------------------------------------------------------------------

double md_inf() { return packDouble2x32(uvec2(0u, 0x7ff00000u)); }
double md_nan() { return packDouble2x32(uvec2(0u, 0x7ff80000u)); }
bool md_isnan(double x) {
  const uvec2 b = unpackDouble2x32(x);
  const uint h = b.y & 0x7fffffffu;
  return h > 0x7ff00000u || (h == 0x7ff00000u && b.x != 0u);
}
bool md_isinf(double x) {
  const uvec2 b = unpackDouble2x32(x);
  return (b.y & 0x7fffffffu) == 0x7ff00000u && b.x == 0u;
}
bool md_signbit(double x) { return (unpackDouble2x32(x).y & 0x80000000u) != 0u; }
// |magnitude| with the sign of `sign`.
double md_copysign(double magnitude, double sign) {
  uvec2 b = unpackDouble2x32(magnitude);
  b.y = (b.y & 0x7fffffffu) | (unpackDouble2x32(sign).y & 0x80000000u);
  return packDouble2x32(b);
}
// 2^k for -1022 <= k <= 1023.
double md_pow2(int k) { return packDouble2x32(uvec2(0u, uint(k + 1023) << 20)); }
// y * 2^k with a single rounding, for 2^-30 <= |y| <= 2^30 and |k| <= 2000: overflow gives inf and
// underflow rounds once into the denormals.
double md_scale(double y, int k) {
  precise double v;
  if (k > 1000) v = (y * md_pow2(k - 1000)) * md_pow2(1000);
  else if (k < -1000) v = (y * md_pow2(k + 1000)) * md_pow2(-1000);
  else v = y * md_pow2(k);
  return v;
}

// ---- error-free transformations and double-double steps -------------------------------------------

// s + e == a + b exactly.
void md_two_sum(double a, double b, out double s, out double e) {
  precise double sum = a + b;
  precise double b_part = sum - a;
  precise double err = (a - (sum - b_part)) + (b - b_part);
  s = sum;
  e = err;
}
// Same, when |a| >= |b| (or a == 0).
void md_fast_two_sum(double a, double b, out double s, out double e) {
  precise double sum = a + b;
  precise double err = b - (sum - a);
  s = sum;
  e = err;
}
// Veltkamp's split: a == hi + lo, each with at most 26 significant bits (|a| < 2^996).
void md_split(double a, out double hi, out double lo) {
  precise double c = 134217729.0lf * a;
  precise double h = c - (c - a);
  precise double l = a - h;
  hi = h;
  lo = l;
}
// p + e == a * b exactly (Dekker), barring overflow and underflow.
void md_two_prod(double a, double b, out double p, out double e) {
  precise double prod = a * b;
  double ah, al, bh, bl;
  md_split(a, ah, al);
  md_split(b, bh, bl);
  precise double err = ((ah * bh - prod) + ah * bl + al * bh) + al * bl;
  p = prod;
  e = err;
}
// (a_hi + a_lo) / (b_hi + b_lo) as hi + lo.
void md_dd_div(double a_hi, double a_lo, double b_hi, double b_lo, out double hi, out double lo) {
  const double q = a_hi / b_hi;
  double p, pe;
  md_two_prod(q, b_hi, p, pe);
  precise double r = ((((a_hi - p) - pe) + a_lo) - q * b_lo) / b_hi;
  md_fast_two_sum(q, r, hi, lo);
}

// ---- exponentials -------------------------------------------------------------------------------

// x = k ln2 + r + r_lo with |r| <= ln2/2 (a little more after rounding); returns k. |x| < 1500.
int md_reduce_ln2(double x, out double r, out double r_lo) {
  const double k = floor(x * INV_LN2 + 0.5lf);
  precise double hi = x - k * LN2_HI;  // exact: k * LN2_HI has at most 43 bits and cancels with x
  precise double t = k * LN2_LO;
  md_two_sum(hi, -t, r, r_lo);
  return int(k);
}
// expm1(r) for |r| <= 0.36 as hi + lo: Taylor series through r^14 (the next term is < 2^-60 r).
void md_expm1_kernel(double r, out double hi, out double lo) {
  double q = EXPM1_TAYLOR[12];
  for (int i = 11; i >= 0; --i) q = q * r + EXPM1_TAYLOR[i];
  md_fast_two_sum(r, r * r * q, hi, lo);
}
// exp(r + r_lo) for |r| <= 0.36 and |r_lo| << |r|... as hi + lo, hi in [0.69, 1.44].
void md_exp_kernel(double r, double r_lo, out double hi, out double lo) {
  double em, em_lo;
  md_expm1_kernel(r, em, em_lo);
  em_lo += r_lo * (1.0lf + em);
  double e;
  md_fast_two_sum(1.0lf, em, hi, e);
  lo = e + em_lo;
}

double m_exp(double x) {
  if (md_isnan(x)) return x;
  if (x > 709.8lf) return md_inf();
  if (x < -745.2lf) return 0.0lf;
  double r, r_lo, hi, lo;
  const int k = md_reduce_ln2(x, r, r_lo);
  md_exp_kernel(r, r_lo, hi, lo);
  return md_scale(hi + lo, k);
}

double m_exp2(double x) {
  if (md_isnan(x)) return x;
  if (x >= 1024.0lf) return md_inf();
  if (x < -1080.0lf) return 0.0lf;
  const double k = floor(x + 0.5lf);
  const double f = x - k;  // exact, |f| <= 1/2
  double r, r_lo, hi, lo;
  md_two_prod(f, LN2_D_HI, r, r_lo);
  r_lo += f * LN2_D_LO;
  md_exp_kernel(r, r_lo, hi, lo);
  return md_scale(hi + lo, int(k));
}

// expm1(x) = 2^k (1 + em) - 1 as hi + lo, for -40 <= x <= 60 (so |k| <= 87, no scaling limits).
void md_expm1_dd(double x, out double hi, out double lo) {
  double r, r_lo, em, em_lo;
  const int k = md_reduce_ln2(x, r, r_lo);
  md_expm1_kernel(r, em, em_lo);
  em_lo += r_lo * (1.0lf + em);
  if (k == 0) {
    md_fast_two_sum(em, em_lo, hi, lo);
    return;
  }
  if (k < -53) {  // the result is -1 + 2^k (1 + em), within an ulp of -1
    hi = (1.0lf + em) * md_pow2(k) - 1.0lf;
    lo = 0.0lf;
    return;
  }
  // 2^k (em + (1 - 2^-k)); 1 - 2^-k is exact for k <= 53, beyond it the 2^-k joins the low part.
  const double unit = md_pow2(-k);
  double s, e;
  md_two_sum(k <= 53 ? 1.0lf - unit : 1.0lf, em, s, e);
  e += em_lo - (k <= 53 ? 0.0lf : unit);
  const double scale = md_pow2(k);
  md_fast_two_sum(s * scale, e * scale, hi, lo);
}

double m_expm1(double x) {
  if (md_isnan(x)) return x;
  if (x > 709.8lf) return md_inf();
  if (x < -40.0lf) return -1.0lf;
  if (abs(x) < 5.551115123125783e-17lf) return x;  // keeps -0 and denormals
  if (x > 60.0lf) return m_exp(x);  // exp(x) - 1 rounds to exp(x) here
  double hi, lo;
  md_expm1_dd(x, hi, lo);
  return hi + lo;
}

// exp(a) = 2^k (hi + lo) for 0 <= a <= 711.
int md_exp_parts(double a, out double hi, out double lo) {
  double r, r_lo;
  const int k = md_reduce_ln2(a, r, r_lo);
  md_exp_kernel(r, r_lo, hi, lo);
  return k;
}

double m_sinh(double x) {
  if (md_isnan(x)) return x;
  const double a = abs(x);
  if (a < 1.0lf) {
    if (a < 3.725290298461914e-09lf) return x;  // 2^-28: x^3/6 is below half an ulp
    const double z = x * x;
    double p = SINH_TAYLOR[8];
    for (int i = 7; i >= 0; --i) p = p * z + SINH_TAYLOR[i];
    return x + x * z * p;
  }
  if (a > 710.5lf) return md_copysign(md_inf(), x);
  double hi, lo;
  const int k = md_exp_parts(a, hi, lo);
  double result;
  if (a > 22.0lf) {
    result = md_scale(hi + lo, k - 1);  // e^-a is below an ulp of e^a / 2
  } else {
    const double scale = md_pow2(k);
    const double e_hi = hi * scale;
    const double inv = 1.0lf / e_hi;
    result = 0.5lf * ((e_hi - inv) + lo * scale);
  }
  return md_copysign(result, x);
}

double m_cosh(double x) {
  if (md_isnan(x)) return x;
  const double a = abs(x);
  if (a < 7.450580596923828e-09lf) return 1.0lf;  // 2^-27
  if (a > 710.5lf) return md_inf();
  double hi, lo;
  const int k = md_exp_parts(a, hi, lo);
  if (a > 22.0lf) return md_scale(hi + lo, k - 1);
  const double scale = md_pow2(k);
  const double e_hi = hi * scale;
  return 0.5lf * ((e_hi + 1.0lf / e_hi) + lo * scale);
}

// tanh(x) = t / (t + 2) with t = expm1(2|x|) in double-double: accurate to about an ulp everywhere.
double m_tanh(double x) {
  if (md_isnan(x)) return x;
  const double a = abs(x);
  if (a < 3.725290298461914e-09lf) return x;  // 2^-28
  if (a > 22.0lf) return md_copysign(1.0lf, x);
  double t, t_lo, d, d_lo, hi, lo;
  md_expm1_dd(2.0lf * a, t, t_lo);
  md_two_sum(t, 2.0lf, d, d_lo);
  d_lo += t_lo;
  md_dd_div(t, t_lo, d, d_lo, hi, lo);
  return md_copysign(hi + lo, x);
}

// ---- logarithms ---------------------------------------------------------------------------------

// x = m 2^e with m in [sqrt(1/2), sqrt(2)), for finite x > 0. Denormals are normalised with integer
// operations, which devices that treat denormal operands as zero still carry out.
double md_log_split(double x, out int e) {
  uvec2 b = unpackDouble2x32(x);
  int exponent = int((b.y >> 20) & 0x7ffu);
  if (exponent == 0) {
    const int top = b.y != 0u ? 32 + findMSB(b.y) : findMSB(b.x);  // leading bit of the mantissa
    b = unpack32(pack64(b) << (52 - top));
    exponent = top - 51;
  }
  e = exponent - 1023;
  uint m_hi = (b.y & 0x000fffffu) | 0x3ff00000u;
  if (m_hi > 0x3ff6a09eu) {  // m above sqrt(2): halve it
    m_hi -= 0x00100000u;
    e += 1;
  }
  return packDouble2x32(uvec2(b.x, m_hi));
}
// log(m) as hi + lo for m in [0.707, 1.415], to about 2^-66 relative: 2 atanh(s) with
// s = f / (2 + f), f = m - 1, as 2s + s W(s^2), W = (2/3) z + z^2 (2/5 + 2/7 z + ... + 2/21 z^8).
void md_log_kernel(double m, out double hi, out double lo) {
  precise double f = m - 1.0lf;  // exact
  double d, d_lo;
  md_fast_two_sum(2.0lf, f, d, d_lo);
  const double s = f / d;
  double p, pe;
  md_two_prod(s, d, p, pe);
  precise double s_lo = (((f - p) - pe) - s * d_lo) / d;
  double z, z_lo;
  md_two_prod(s, s, z, z_lo);
  z_lo += 2.0lf * s * s_lo;
  double w, w_lo;
  md_two_prod(TWO_THIRDS_HI, z, w, w_lo);
  double poly = LOG_ATANH[8];
  for (int i = 7; i >= 0; --i) poly = poly * z + LOG_ATANH[i];
  w_lo += TWO_THIRDS_HI * z_lo + TWO_THIRDS_LO * z + z * z * poly;
  double sw, sw_lo;
  md_two_prod(s, w, sw, sw_lo);
  sw_lo += s * w_lo + s_lo * w;
  double h, l;
  md_fast_two_sum(2.0lf * s, sw, h, l);
  l += 2.0lf * s_lo + sw_lo;
  md_fast_two_sum(h, l, hi, lo);
}
// log(x) + extra as hi + lo for finite x > 0, where |extra| is below an ulp of log(x)'s scale.
void md_log_dd(double x, double extra, out double hi, out double lo) {
  int e;
  const double m = md_log_split(x, e);
  double lh, ll;
  md_log_kernel(m, lh, ll);
  const double ed = double(e);
  double s, err;
  md_two_sum(ed * LN2_HI, lh, s, err);  // ed * LN2_HI is exact
  md_fast_two_sum(s, err + ((ll + extra) + ed * LN2_LO), hi, lo);
}

// NaN, negative, zero and infinite arguments of the logarithms; returns false for finite x > 0.
bool md_log_special(double x, out double result) {
  result = x;
  if (md_isnan(x)) return true;
  if (x < 0.0lf) { result = md_nan(); return true; }
  if (x == 0.0lf) { result = -md_inf(); return true; }
  return md_isinf(x);
}

double m_log(double x) {
  double result, lo;
  if (md_log_special(x, result)) return result;
  md_log_dd(x, 0.0lf, result, lo);
  return result;
}

double m_log2(double x) {
  double result;
  if (md_log_special(x, result)) return result;
  int e;
  const double m = md_log_split(x, e);
  double lh, ll, p, pe, s, err;
  md_log_kernel(m, lh, ll);
  md_two_prod(lh, INV_LN2_D_HI, p, pe);
  pe += lh * INV_LN2_D_LO + ll * INV_LN2_D_HI;
  md_two_sum(double(e), p, s, err);
  return s + (err + pe);
}

double m_log10(double x) {
  double result;
  if (md_log_special(x, result)) return result;
  int e;
  const double m = md_log_split(x, e);
  double lh, ll, p, pe, s, err;
  md_log_kernel(m, lh, ll);
  md_two_prod(lh, INV_LN10_D_HI, p, pe);
  pe += lh * INV_LN10_D_LO + ll * INV_LN10_D_HI;
  const double ed = double(e);
  md_two_sum(ed * LOG10_2_HI, p, s, err);  // ed * LOG10_2_HI is exact
  return s + (err + (pe + ed * LOG10_2_LO));
}

double m_log1p(double x) {
  if (md_isnan(x)) return x;
  if (x < -1.0lf) return md_nan();
  if (x == -1.0lf) return -md_inf();
  if (md_isinf(x)) return x;
  if (abs(x) < 5.551115123125783e-17lf) return x;  // 2^-54: keeps -0 and denormals
  // 1 + x == u + c exactly, and log(1 + x) = log(u) + log(1 + c/u) with |c/u| below an ulp.
  double u, c, hi, lo;
  md_two_sum(1.0lf, x, u, c);
  md_log_dd(u, c / u, hi, lo);
  return hi;
}

// ---- pow ----------------------------------------------------------------------------------------

// C's pow special cases (PyTorch follows them): pow(x, +-0) = 1 and pow(1, y) = 1 even for NaN, a
// negative base needs an integer exponent, an odd integer exponent keeps the base's sign.
double m_pow(double x, double y) {
  if (y == 0.0lf || x == 1.0lf) return 1.0lf;
  if (md_isnan(x) || md_isnan(y)) return x + y;
  const double ax = abs(x);
  if (md_isinf(y)) {
    if (ax == 1.0lf) return 1.0lf;
    return (ax > 1.0lf) == (y > 0.0lf) ? md_inf() : 0.0lf;
  }
  const bool y_integer = floor(y) == y;
  const bool y_odd = y_integer && abs(y) < 9007199254740992.0lf && floor(0.5lf * y) * 2.0lf != y;
  const double sign = (md_signbit(x) && y_odd) ? -1.0lf : 1.0lf;
  if (ax == 0.0lf || md_isinf(ax)) {
    const bool large = (ax == 0.0lf) == (y < 0.0lf);
    return sign * (large ? md_inf() : 0.0lf);
  }
  if (x < 0.0lf && !y_integer) return md_nan();
  double l, l_lo;
  md_log_dd(ax, 0.0lf, l, l_lo);
  const double estimate = y * l;
  if (estimate > 710.0lf) return sign * md_inf();
  if (estimate < -746.0lf) return sign * 0.0lf;
  // y log|x| as p + pe; here |y| < 2^63, so the split cannot overflow.
  double p, pe, r, r_lo, hi, lo;
  md_two_prod(y, l, p, pe);
  pe += y * l_lo;
  const int k = md_reduce_ln2(p, r, r_lo);
  md_exp_kernel(r, r_lo + pe, hi, lo);
  return sign * md_scale(hi + lo, k);
}

// ---- trigonometric ------------------------------------------------------------------------------

// x = n pi/2 + r + r_lo with |r| <= pi/4 (a little more after rounding) for |x| < 2^20 pi/2: pi/2 in
// four pieces, the first three of 33 bits so that n times each is exact. Returns n.
int md_reduce_pio2_medium(double x, out double r, out double r_lo) {
  const double n = floor(x * TWO_OVER_PI + 0.5lf);
  precise double t = x - n * PIO2_1;  // exact
  double s1, e1, s2, e2;
  md_two_sum(t, -(n * PIO2_2), s1, e1);
  md_two_sum(s1, -(n * PIO2_3), s2, e2);
  md_fast_two_sum(s2, (e1 + e2) - n * PIO2_4, r, r_lo);
  return int(n);
}
// The same for any finite |x| >= 2^20 pi/2 (Payne-Hanek). x = M 2^ex with M a 53-bit integer; the bits
// of 2/pi whose product with M 2^ex is a multiple of 4 cannot change the result, so only 192 of them
// take part: a window W starting at weight 2^(1-ex)... precisely x 2/pi mod 4 = (M W mod 2^192) 2^-190.
int md_reduce_pio2_large(double x, out double r, out double r_lo) {
  const uvec2 b = unpackDouble2x32(abs(x));
  const int ex = int((b.y >> 20) & 0x7ffu) - 1075;
  const uint m0 = b.x;
  const uint m1 = (b.y & 0x000fffffu) | 0x00100000u;
  // Window: bits ex - 1 ... ex + 190 of 2/pi (bit i weighs 2^-i), in a table with 64 leading zeros.
  const int offset = ex - 2 + 64;
  const int q = offset >> 5;
  const int shift = offset & 31;
  uint w[6];  // little-endian 32-bit limbs of W
  for (int t = 0; t < 6; ++t) {
    const uint high = TWO_OVER_PI_BITS[q + t];
    const uint low = TWO_OVER_PI_BITS[q + t + 1];
    w[5 - t] = shift == 0 ? high : (high << shift) | (low >> (32 - shift));
  }
  // P = M W mod 2^192 in 32-bit limbs.
  uint p[6];
  uint64_t acc = 0ul;
  for (int t = 0; t < 6; ++t) {
    acc += uint64_t(m0) * uint64_t(w[t]);
    p[t] = uint(acc);
    acc >>= 32;
  }
  acc = 0ul;
  for (int t = 0; t < 5; ++t) {
    acc += uint64_t(p[t + 1]) + uint64_t(m1) * uint64_t(w[t]);
    p[t + 1] = uint(acc);
    acc >>= 32;
  }
  // Bits 191..190 are n mod 4, the rest the fraction f; round n to nearest, so f is in [-1/2, 1/2).
  int n = int(p[5] >> 30);
  uint f3 = p[5] & 0x3fffffffu, f2 = p[4], f1 = p[3], f0 = p[2];
  double sign = 1.0lf;
  if ((f3 & 0x20000000u) != 0u) {
    n += 1;
    sign = -1.0lf;
    // 2^126 - F over the four words (126 bits)
    f0 = ~f0; f1 = ~f1; f2 = ~f2; f3 = ~f3 & 0x3fffffffu;
    uint carry;
    f0 = uaddCarry(f0, 1u, carry);
    f1 = uaddCarry(f1, carry, carry);
    f2 = uaddCarry(f2, carry, carry);
    f3 += carry;
  }
  double f, f_lo;
  md_two_sum(double(f3) * 9.313225746154785e-10lf, double(f2) * 2.168404344971009e-19lf, f, f_lo);
  f_lo += double(f1) * 5.048709793414476e-29lf + double(f0) * 1.1754943508222875e-38lf;
  md_fast_two_sum(f, f_lo, f, f_lo);
  // r = f pi/2
  double rr, rr_lo;
  md_two_prod(f, PIO2_HI, rr, rr_lo);
  rr_lo += f * PIO2_LO + f_lo * PIO2_HI;
  md_fast_two_sum(rr, rr_lo, r, r_lo);
  r *= sign;
  r_lo *= sign;
  if (x < 0.0lf) {
    r = -r;
    r_lo = -r_lo;
    n = -n;
  }
  return n;
}
int md_reduce_pio2(double x, out double r, out double r_lo) {
  if (abs(x) < 1647099.0lf) return md_reduce_pio2_medium(x, r, r_lo);  // 2^20 pi/2 = 1647099.3
  return md_reduce_pio2_large(x, r, r_lo);
}

// sin(r + r_lo) for |r| <= 0.79 as hi + lo: Taylor series through r^17.
void md_sin_kernel(double r, double r_lo, out double hi, out double lo) {
  const double z = r * r;
  double p = SIN_TAYLOR[7];
  for (int i = 6; i >= 0; --i) p = p * z + SIN_TAYLOR[i];
  md_fast_two_sum(r, r * z * p + r_lo * (1.0lf - 0.5lf * z), hi, lo);
}
// cos(r + r_lo) for |r| <= 0.79 as hi + lo: 1 - r^2/2 with r^2 exact, then the series through r^18.
void md_cos_kernel(double r, double r_lo, out double hi, out double lo) {
  double z, z_lo;
  md_two_prod(r, r, z, z_lo);
  double p = COS_TAYLOR[7];
  for (int i = 6; i >= 0; --i) p = p * z + COS_TAYLOR[i];
  const double half_z = 0.5lf * z;
  double w, w_err;
  md_fast_two_sum(1.0lf, -half_z, w, w_err);
  md_fast_two_sum(w, w_err + ((z * z * p - 0.5lf * z_lo) - r * r_lo), hi, lo);
}

double m_sin(double x) {
  if (md_isnan(x) || md_isinf(x)) return md_nan();
  if (abs(x) < 7.450580596923828e-09lf) return x;  // 2^-27
  double r, r_lo, hi, lo;
  const int n = md_reduce_pio2(x, r, r_lo);
  if ((n & 1) == 0) md_sin_kernel(r, r_lo, hi, lo);
  else md_cos_kernel(r, r_lo, hi, lo);
  return (n & 2) == 0 ? hi + lo : -(hi + lo);
}

double m_cos(double x) {
  if (md_isnan(x) || md_isinf(x)) return md_nan();
  if (abs(x) < 7.450580596923828e-09lf) return 1.0lf;
  double r, r_lo, hi, lo;
  const int n = md_reduce_pio2(x, r, r_lo) + 1;  // cos(x) = sin(x + pi/2)
  if ((n & 1) == 0) md_sin_kernel(r, r_lo, hi, lo);
  else md_cos_kernel(r, r_lo, hi, lo);
  return (n & 2) == 0 ? hi + lo : -(hi + lo);
}

double m_tan(double x) {
  if (md_isnan(x) || md_isinf(x)) return md_nan();
  if (abs(x) < 7.450580596923828e-09lf) return x;
  double r, r_lo, s, s_lo, c, c_lo, hi, lo;
  const int n = md_reduce_pio2(x, r, r_lo);
  md_sin_kernel(r, r_lo, s, s_lo);
  md_cos_kernel(r, r_lo, c, c_lo);
  if ((n & 1) == 0) {
    md_dd_div(s, s_lo, c, c_lo, hi, lo);
    return hi + lo;
  }
  md_dd_div(c, c_lo, s, s_lo, hi, lo);  // tan(r + pi/2) = -cot(r)
  return -(hi + lo);
}

// ---- inverse trigonometric ----------------------------------------------------------------------

// atan(b + b_lo) for 0 <= b <= 1 as hi + lo: atan(c) + atan(t) with c = j/8 nearest b and
// t = (b - c) / (1 + b c), |t| <= 1/16, Taylor series through t^15.
void md_atan_kernel(double b, double b_lo, out double hi, out double lo) {
  const int j = int(floor(b * 8.0lf + 0.5lf));
  double t = b, t_lo = b_lo;
  if (j > 0) {
    const double c = double(j) * 0.125lf;
    double num, num_lo, den, den_lo, p, pe;
    md_two_sum(b - c, b_lo, num, num_lo);  // b - c is exact
    md_two_prod(b, c, p, pe);
    md_fast_two_sum(1.0lf, p, den, den_lo);
    den_lo += pe + b_lo * c;
    md_dd_div(num, num_lo, den, den_lo, t, t_lo);
  }
  const double z = t * t;
  double poly = ATAN_TAYLOR[6];
  for (int i = 5; i >= 0; --i) poly = poly * z + ATAN_TAYLOR[i];
  double s, e;
  md_two_sum(ATAN_J8_HI[j], t, s, e);
  md_fast_two_sum(s, e + (ATAN_J8_LO[j] + (t * z * poly + t_lo * (1.0lf - z))), hi, lo);
}
// pi/2 - (hi + lo), for 0 <= hi <= pi/4 + a little.
void md_pio2_minus(inout double hi, inout double lo) {
  double s, e;
  md_fast_two_sum(PIO2_HI, -hi, s, e);
  md_fast_two_sum(s, e + (PIO2_LO - lo), hi, lo);
}
// pi - (hi + lo), for 0 <= hi <= pi/2 + a little.
void md_pi_minus(inout double hi, inout double lo) {
  double s, e;
  md_fast_two_sum(PI_HI, -hi, s, e);
  md_fast_two_sum(s, e + (PI_LO - lo), hi, lo);
}
// atan(num / den) as hi + lo for 0 <= num, den <= 2^900, one of them >= 2^-900, both not 0.
void md_atan_ratio(double num, double num_lo, double den, double den_lo, out double hi, out double lo) {
  double q, q_lo;
  if (num <= den) {
    md_dd_div(num, num_lo, den, den_lo, q, q_lo);
    md_atan_kernel(q, q_lo, hi, lo);
  } else {
    md_dd_div(den, den_lo, num, num_lo, q, q_lo);
    md_atan_kernel(q, q_lo, hi, lo);
    md_pio2_minus(hi, lo);
  }
}

double m_atan(double x) {
  if (md_isnan(x)) return x;
  const double a = abs(x);
  if (a < 7.450580596923828e-09lf) return x;  // 2^-27
  if (a > 7.378697629483821e+19lf) return md_copysign(PIO2_HI, x);  // 2^66, infinities included
  double hi, lo;
  md_atan_ratio(a, 0.0lf, 1.0lf, 0.0lf, hi, lo);
  return md_copysign(hi + lo, x);
}

double m_atan2(double y, double x) {
  if (md_isnan(x) || md_isnan(y)) return x + y;
  const bool x_negative = md_signbit(x);
  if (y == 0.0lf) return x_negative ? md_copysign(PI_HI, y) : y;
  if (x == 0.0lf) return md_copysign(PIO2_HI, y);
  double ax = abs(x), ay = abs(y);
  if (md_isinf(ay)) {
    if (md_isinf(ax)) return md_copysign(x_negative ? THREE_PIO4_HI : PIO4_HI, y);
    return md_copysign(PIO2_HI, y);
  }
  if (md_isinf(ax)) return md_copysign(x_negative ? PI_HI : 0.0lf, y);
  // Keep Dekker's products in range; a ratio beyond 2^1700 saturates either way.
  const double larger = max(ax, ay);
  if (larger > 8.452712498170644e+270lf) {
    ax *= 6.223015277861142e-61lf;
    ay *= 6.223015277861142e-61lf;
  } else if (larger < 1.1830521861667747e-271lf) {
    ax *= 1.6069380442589903e+60lf;
    ay *= 1.6069380442589903e+60lf;
  }
  double hi, lo;
  md_atan_ratio(ay, 0.0lf, ax, 0.0lf, hi, lo);
  if (x_negative) md_pi_minus(hi, lo);
  return md_copysign(hi + lo, y);
}

// sqrt(1 - a^2) as hi + lo for 0 <= a <= 1.
void md_sqrt_one_minus_square(double a, out double hi, out double lo) {
  double p, pe, w, w_lo;
  md_two_prod(a, a, p, pe);
  md_two_sum(1.0lf, -p, w, w_lo);
  w_lo -= pe;
  const double s = sqrt(w);
  double ss, ss_lo;
  md_two_prod(s, s, ss, ss_lo);
  precise double correction = (((w - ss) - ss_lo) + w_lo) / (2.0lf * s);
  md_fast_two_sum(s, correction, hi, lo);
}

double m_asin(double x) {
  if (md_isnan(x)) return x;
  const double a = abs(x);
  if (a > 1.0lf) return md_nan();
  if (a < 7.450580596923828e-09lf) return x;  // 2^-27
  if (a == 1.0lf) return md_copysign(PIO2_HI, x);
  double c, c_lo, hi, lo;
  md_sqrt_one_minus_square(a, c, c_lo);
  md_atan_ratio(a, 0.0lf, c, c_lo, hi, lo);
  return md_copysign(hi + lo, x);
}

double m_acos(double x) {
  if (md_isnan(x)) return x;
  const double a = abs(x);
  if (a > 1.0lf) return md_nan();
  if (x == 1.0lf) return 0.0lf;
  if (x == -1.0lf) return PI_HI;
  if (a < 2.7755575615628914e-17lf) return PIO2_HI;  // 2^-55
  double s, s_lo, hi, lo;
  md_sqrt_one_minus_square(a, s, s_lo);
  md_atan_ratio(s, s_lo, a, 0.0lf, hi, lo);
  if (x < 0.0lf) md_pi_minus(hi, lo);
  return hi + lo;
}

// ---- error function -----------------------------------------------------------------------------

// erf(x) = x + x Q(x^2) for |x| < 0.84375.
double md_erf_q(double x) {
  const double z = x * x;
  double q = ERF_Q[12];
  for (int i = 11; i >= 0; --i) q = q * z + ERF_Q[i];
  return q;
}
// erfc(x) = (hi + lo) 2^k for 0.84375 <= x <= 28: exp(-x^2) h(x) / x, with exp(-x^2) from x^2 in
// double-double (x^2 alone would lose up to 10 bits) and h fitted per interval.
int md_erfc_parts(double x, out double hi, out double lo) {
  double p, pe, r, r_lo, y, y_lo;
  md_two_prod(x, x, p, pe);
  const int k = md_reduce_ln2(-p, r, r_lo);
  md_exp_kernel(r, r_lo - pe, y, y_lo);
  int i;
  double u;
  if (x < 2.34375lf) {
    i = x < 1.34375lf ? 0 : 1;
    u = (x - ERFC_CENTER[i]) * ERFC_INV_HALF_WIDTH[i];  // exact
  } else {
    i = x < 4.0lf ? 2 : (x < 8.0lf ? 3 : 4);
    u = (1.0lf / x - ERFC_CENTER[i]) * ERFC_INV_HALF_WIDTH[i];  // h is flat in 1/x here
  }
  double acc = ERFC_H[i * 15 + 14];
  for (int j = 13; j >= 0; --j) acc = acc * u + ERFC_H[i * 15 + j];
  double h, h_lo, v, v_lo;
  md_two_sum(ERFC_H0_HI[i], u * acc, h, h_lo);
  h_lo += ERFC_H0_LO[i];
  md_two_prod(y, h, v, v_lo);
  v_lo += y * h_lo + y_lo * h;
  md_dd_div(v, v_lo, x, 0.0lf, hi, lo);
  return k;
}

double m_erf(double x) {
  if (md_isnan(x)) return x;
  const double a = abs(x);
  if (a < 0.84375lf) return x + x * md_erf_q(x);
  if (a >= 6.0lf) return md_copysign(1.0lf, x);
  double hi, lo, s, e;
  const int k = md_erfc_parts(a, hi, lo);  // k >= -52: no denormals
  const double scale = md_pow2(k);
  md_fast_two_sum(1.0lf, -hi * scale, s, e);
  return md_copysign(s + (e - lo * scale), x);
}

double m_erfc(double x) {
  if (md_isnan(x)) return x;
  if (abs(x) < 0.84375lf) {
    double s, e;
    md_two_sum(1.0lf, -x, s, e);
    return s + (e - x * md_erf_q(x));
  }
  if (x >= 28.0lf) return 0.0lf;
  if (x <= -6.0lf) return 2.0lf;
  double hi, lo;
  const int k = md_erfc_parts(abs(x), hi, lo);
  if (x > 0.0lf) return md_scale(hi + lo, k);
  double s, e;
  const double scale = md_pow2(k);
  md_fast_two_sum(2.0lf, -hi * scale, s, e);
  return s + (e - lo * scale);
}

// For m_erfinv in math.glsl.
double mc_nan() { return md_nan(); }
double mc_inf() { return md_inf(); }
bool mc_isnan(double x) { return md_isnan(x); }
double mc_copysign(double magnitude, double sign) { return md_copysign(magnitude, sign); }
const double M_TWO_OVER_SQRT_PI = 1.1283791670955126lf;
const double M_SQRT_PI_OVER_TWO = 0.88622692545275801lf;
const double M_ERFINV_LINEAR = 3.725290298461914e-09lf;  // 2^-28: erfinv(x) = x sqrt(pi)/2 below
const int M_ERFINV_STEPS = 3;

#endif
