/* IEEE binary16 conversions on the host (see half.h). */
#include "half.h"

#include <math.h>

uint16_t lbp_half_from_double(double x)
{
    const uint16_t sign = signbit(x) ? 0x8000 : 0;
    const double a = fabs(x);
    if (isnan(x)) return sign | 0x7e00;
    /* 65520 lies halfway between 65504 and 2^16, and ties go to the even
     * significand, 2^16: infinity */
    if (a >= 65520.0) return sign | 0x7c00;
    if (a < 0x1p-14) /* subnormal: whole multiples of 2^-24 (1024 of them is the least normal) */
        return sign | (uint16_t)rint(a * 0x1p24);
    int e;
    frexp(a, &e); /* a = m 2^e, m in [0.5, 1): the half's exponent is e - 1 */
    uint32_t significand = (uint32_t)rint(ldexp(a, 11 - e)); /* 1024..2048 (rint: ties to even) */
    if (significand == 2048) {
        significand = 1024;
        e++;
    }
    return sign | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)(significand - 1024);
}

double lbp_half_to_double(uint16_t h)
{
    const int exponent = (h >> 10) & 31, fraction = h & 1023;
    double v = exponent == 0    ? ldexp(fraction, -24)
               : exponent == 31 ? (fraction ? NAN : INFINITY)
                                : ldexp(fraction + 1024, exponent - 25);
    return h & 0x8000 ? -v : v;
}
