/* IEEE 754 binary16 ("half") on the host: the rounding the kernels'
 * lbp_store_half does (round to nearest, ties to even; overflow to
 * infinity; subnormals kept), so that host references, uploads and tests
 * see the same 16 bits a device stores. */
#ifndef LBP_HALF_H
#define LBP_HALF_H

#include <stdint.h>

#define LBP_HALF_MAX 65504.0             /* largest finite half */
#define LBP_HALF_UNIT_ROUNDOFF 4.8828125e-4 /* 2^-11: half of an ulp at 1 */

/* x rounded once to the nearest half (a float argument converts exactly, so
 * this is a device's float -> half conversion too). */
uint16_t lbp_half_from_double(double x);
/* The value of a half (exact in double). */
double lbp_half_to_double(uint16_t h);

#endif
