#!/usr/bin/env python3
"""Derives the constants and polynomial coefficients of shaders/math_f64.glsl and math_f32.glsl (mpmath).

Run with a Python that has mpmath and numpy: `math_constants.py f64` prints the block between the
"generated" markers of shaders/math_f64.glsl, `math_constants.py f32` that of shaders/math_f32.glsl.
Series coefficients are exact Taylor terms rounded to the target precision. The erf polynomial Q is fitted
with each coefficient rounded in turn and the rest refitted; the erfc polynomials h are Chebyshev
interpolants (mpmath.chebyfit) on the intervals named below. The script prints the worst relative error
of each fit with its coefficients rounded as in the shader.
"""
import sys

import numpy as np
from mpmath import mp, mpf, ln, log, pi, atan, erf, erfc, exp, sqrt, factorial, chebyfit, polyval, floor

mp.prec = 400
FLOAT32 = len(sys.argv) > 1 and sys.argv[1] == "f32"
SCALAR = "float" if FLOAT32 else "double"


def rnd(x):
    """x rounded to the target precision, as an mpf."""
    return mpf(float(np.float32(float(x)))) if FLOAT32 else mpf(float(x))


def d(x):
    """A literal that parses back to x rounded to the target precision."""
    if FLOAT32:
        return repr(float(np.float32(float(x))))
    return repr(float(x)) + "lf"


def leading_bits(x, bits):
    """x rounded to `bits` significant bits (so products with small integers stay exact)."""
    e = int(floor(log(abs(x), 2)))
    scale = mpf(2) ** (bits - 1 - e)
    return mpf(int(floor(x * scale + mpf(0.5)))) / scale


def split(name, x, bits):
    hi = leading_bits(x, bits)
    lo = rnd(x - hi)
    print(f"const {SCALAR} MC_{name}_HI = {d(hi)};  // {bits} significant bits")
    print(f"const {SCALAR} MC_{name}_LO = {d(lo)};")


def dd(name, x):
    hi = rnd(x)
    print(f"const {SCALAR} MC_{name}_HI = {d(hi)};")
    print(f"const {SCALAR} MC_{name}_LO = {d(x - hi)};")


def scalar(name, x):
    print(f"const {SCALAR} MC_{name} = {d(x)};")


def array(name, values, per_line=3):
    items = [d(v) for v in values]
    print(f"const {SCALAR} MC_{name}[{len(items)}] = {SCALAR}[](")
    for i in range(0, len(items), per_line):
        end = "," if i + per_line < len(items) else ""
        print("    " + ", ".join(items[i:i + per_line]) + end)
    print(");")


def chebyshev(f, c, hw, n, label):
    """Coefficients (constant term first) of a degree n-1 fit of f(c + hw*u) on u in [-1, 1]."""
    g = lambda u: f(c + hw * u)
    coeffs = chebyfit(g, [-1, 1], n)[::-1]  # constant first
    rounded = [rnd(v) for v in coeffs]
    worst = 0
    for i in range(801):
        u = mpf(-1) + mpf(2) * i / 800
        exact = g(u)
        # The constant term is kept as a double-double in the shader.
        approx = coeffs[0] + polyval(rounded[1:][::-1], u) * u
        worst = max(worst, abs((approx - exact) / exact))
    print(f"// {label}: worst relative error {float(worst):.2e}")
    return coeffs


def two_over_pi_words(count):
    """Bits of 2/pi after the binary point, 32 per word, after two zero words."""
    mp.prec = 32 * count + 64
    v = 2 / pi
    words = [0, 0]
    for _ in range(count):
        v *= 2 ** 32
        w = int(floor(v))
        words.append(w)
        v -= w
    mp.prec = 400
    print(f"const uint MC_TWO_OVER_PI_BITS[{len(words)}] = uint[](")
    for i in range(0, len(words), 6):
        end = "," if i + 6 < len(words) else ""
        print("    " + ", ".join(f"0x{w:08x}u" for w in words[i:i + 6]) + end)
    print(");")


def erf_fits(q_terms, x_intervals, t_intervals, h_terms):
    """erf(x) = x + x Q(x^2) for |x| < 0.84375, and erfc(x) = exp(-x^2) h(x) / x beyond it, where
    h(x) = x exp(x^2) erfc(x) is fitted on intervals in x or in t = 1/x."""
    print("// erf(x) = x + x * Q(x^2) for |x| < 0.84375")
    q = lambda z: (erf(sqrt(z)) / sqrt(z) - 1) if z != 0 else 2 / sqrt(pi) - 1
    z_max = mpf(0.84375) ** 2
    # Constant term first, kept as hi + lo. Each later coefficient is rounded in turn and the higher ones
    # refitted (least squares on Chebyshev points) to what remains, which compensates the rounding of the
    # large early coefficients.
    from mpmath import matrix, qr_solve, cos
    points = [z_max * (1 - cos(pi * (k + mpf(0.5)) / 60)) / 2 for k in range(60)]
    rounded = [chebyfit(q, [0, z_max], q_terms)[-1]]
    for i in range(1, q_terms):
        basis = matrix([[z ** j for j in range(i, q_terms)] for z in points])
        target = matrix([q(z) - polyval(rounded[::-1], z) for z in points])
        rounded.append(rnd(qr_solve(basis, target)[0][0]))
    cq = rounded
    worst = max(abs(polyval(rounded[::-1], z) - q(z)) / (1 - z_max ** 0.5 * (1 + q(z)))
                for z in [z_max * i / 800 for i in range(801)])
    print(f"// Q(z) = Q0 + z (Q[0] + z (Q[1] + ...)) for z in [0, 0.84375^2]: worst error relative to erfc "
          f"{float(worst):.2e}")
    dd("ERF_Q0", cq[0])
    array("ERF_Q", rounded[1:])

    print("// erfc(x) = exp(-x^2) * h / x, h = x * erfcx(x), fitted per interval in x or in t = 1/x")
    h_x = lambda x: x * exp(x * x) * erfc(x)
    h_t = lambda t: h_x(1 / t)
    fits = []
    for (c, hw) in x_intervals:
        fits.append((c, hw, chebyshev(h_x, c, hw, h_terms, f"h(x) on x in [{float(c - hw)}, {float(c + hw)}]")))
    for (a, b) in t_intervals:
        ta, tb = 1 / b, 1 / a
        fits.append(((ta + tb) / 2, (tb - ta) / 2,
                     chebyshev(h_t, (ta + tb) / 2, (tb - ta) / 2, h_terms, f"h(1/t) on x in [{float(a)}, {float(b)}]")))
    array("ERFC_CENTER", [c for c, _, _ in fits])
    array("ERFC_INV_HALF_WIDTH", [1 / hw for _, hw, _ in fits])
    array("ERFC_H0_HI", [rnd(cs[0]) for _, _, cs in fits])
    array("ERFC_H0_LO", [cs[0] - rnd(cs[0]) for _, _, cs in fits])
    array("ERFC_H", [v for _, _, cs in fits for v in cs[1:]])


def common(pio2_bits, pio2_pieces, ln2_bits):
    split("LN2", ln(2), ln2_bits)
    dd("LN2_D", ln(2))
    scalar("INV_LN2", 1 / ln(2))
    dd("INV_LN2_D", 1 / ln(2))
    dd("INV_LN10_D", 1 / ln(10))
    split("LOG10_2", log(2, 10), ln2_bits)
    dd("TWO_THIRDS", mpf(2) / 3)
    # pi/2 in pieces of `pio2_bits` bits but the last, so that k * piece is exact for small k.
    rest = pi / 2
    for i in range(1, pio2_pieces):
        piece = leading_bits(rest, pio2_bits)
        scalar(f"PIO2_{i}", piece)
        rest -= piece
    scalar(f"PIO2_{pio2_pieces}", rest)
    scalar("TWO_OVER_PI", 2 / pi)
    dd("PIO2", pi / 2)
    dd("PI", pi)
    dd("PIO4", pi / 4)
    dd("THREE_PIO4", 3 * pi / 4)
    array("ATAN_J8_HI", [rnd(atan(mpf(j) / 8)) for j in range(9)])
    array("ATAN_J8_LO", [atan(mpf(j) / 8) - rnd(atan(mpf(j) / 8)) for j in range(9)])


def main_f64():
    print("// ---- generated by tools/math_constants.py f64 ----")
    # k * LN2_HI exact for |k| < 2^21; k * PIO2_i exact for |k| < 2^20.
    common(pio2_bits=33, pio2_pieces=4, ln2_bits=32)
    two_over_pi_words(40)
    print("// Taylor coefficients")
    array("EXPM1_TAYLOR", [1 / factorial(n) for n in range(2, 15)])  # r^2 .. r^14
    array("SIN_TAYLOR", [(-1) ** n / factorial(2 * n + 1) for n in range(1, 9)])  # r^3 .. r^17
    array("COS_TAYLOR", [(-1) ** n / factorial(2 * n) for n in range(2, 10)])  # r^4 .. r^18
    array("SINH_TAYLOR", [1 / factorial(2 * n + 1) for n in range(1, 10)])  # x^3 .. x^19
    array("ATAN_TAYLOR", [(-1) ** n / mpf(2 * n + 1) for n in range(1, 8)])  # t^3 .. t^15
    array("LOG_ATANH", [mpf(2) / (2 * n + 1) for n in range(2, 11)])  # 2/5 .. 2/21
    erf_fits(13, [(mpf(1.09375), mpf(0.25)), (mpf(1.84375), mpf(0.5))],
             [(mpf(2.34375), mpf(4)), (mpf(4), mpf(8)), (mpf(8), mpf(28))], 16)


def main_f32():
    print("// ---- generated by tools/math_constants.py f32 ----")
    # k * LN2_HI exact for |k| < 2^8; k * PIO2_i exact for |k| < 2^8.
    common(pio2_bits=16, pio2_pieces=4, ln2_bits=16)
    two_over_pi_words(10)
    print("// Taylor coefficients")
    array("EXPM1_TAYLOR", [1 / factorial(n) for n in range(2, 9)])  # r^2 .. r^8
    array("SIN_TAYLOR", [(-1) ** n / factorial(2 * n + 1) for n in range(1, 6)])  # r^3 .. r^11
    array("COS_TAYLOR", [(-1) ** n / factorial(2 * n) for n in range(2, 7)])  # r^4 .. r^12
    array("SINH_TAYLOR", [1 / factorial(2 * n + 1) for n in range(1, 7)])  # x^3 .. x^13
    array("ATAN_TAYLOR", [(-1) ** n / mpf(2 * n + 1) for n in range(1, 5)])  # t^3 .. t^9
    array("LOG_ATANH", [mpf(2) / (2 * n + 1) for n in range(2, 8)])  # 2/5 .. 2/15
    erf_fits(7, [(mpf(1.09375), mpf(0.25)), (mpf(1.84375), mpf(0.5))],
             [(mpf(2.34375), mpf(4)), (mpf(4), mpf(10.125))], 9)


if FLOAT32:
    main_f32()
else:
    main_f64()
