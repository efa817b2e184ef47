/* Half precision as a storage type, FP32 in registers, converted in
 * integer and float arithmetic that a CPU's vectorizer takes: the text the
 * C prelude (core/openmp_prelude.h) and, on a CPU device, the OpenCL one
 * (core/device.c, LBP_HALF_BITS) put after their types, so that a row of
 * FP16S cells runs in vectors.  The compilers' own conversions do not:
 * gcc converts a _Float16 one value at a time (vcvtph2ps on a scalar
 * without AVX512-FP16, vcvtsh2ss with it) and leaves the loop around it
 * scalar; PoCL's vload_half / vstore_half_rte likewise (FP16S ran at a
 * quarter to a fifth of FP32's rate on both).  The exponent is rebiased by
 * a multiply (subnormal halves too), rounded by an add where the half is
 * subnormal, by the carry of 0xfff plus the last kept bit where it is
 * normal: every float gives F16C's vcvtps2ph result (round to nearest
 * even), every half its exact float.  Needs u16, u32, i64, float2, float4,
 * lbp_as_f32 / lbp_as_u32, INLINE and GLOBAL; a half in memory is its 16
 * bits, read and written as a u16 (lbp_half is u16 in C, half in OpenCL). */
INLINE float lbp_half_to_float(u16 h)
{
    const u32 em = (u32)h & 0x7fffu;
    float f = lbp_as_f32(em << 13) * 0x1p112f; /* normal and subnormal: exact */
    if (em >= 0x7c00u) f = lbp_as_f32((em << 13) | 0x7f800000u); /* infinity, NaN */
    return lbp_as_f32(lbp_as_u32(f) | ((u32)h & 0x8000u) << 16);
}
INLINE u16 lbp_float_to_half(float f)
{
    u32 x = lbp_as_u32(f);
    const u32 sign = (x >> 16) & 0x8000u;
    x &= 0x7fffffffu;
    u32 o;
    if (x >= 0x47800000u) o = x > 0x7f800000u ? 0x7e00u | ((x >> 13) & 0x3ffu) : 0x7c00u; /* NaN, or past 65520 */
    else if (x < 0x38800000u) o = lbp_as_u32(lbp_as_f32(x) + 0.5f) - 0x3f000000u; /* subnormal half or 0 */
    else o = (x + 0xc8000fffu + ((x >> 13) & 1u)) >> 13; /* exponent - 112, ties to even */
    return (u16)(o | sign);
}
INLINE float2 lbp_half2_at(const GLOBAL u16 *p)
{
    float2 v;
    v.x = lbp_half_to_float(p[0]);
    v.y = lbp_half_to_float(p[1]);
    return v;
}
INLINE float4 lbp_half4_at(const GLOBAL u16 *p)
{
    float4 v;
    v.x = lbp_half_to_float(p[0]);
    v.y = lbp_half_to_float(p[1]);
    v.z = lbp_half_to_float(p[2]);
    v.w = lbp_half_to_float(p[3]);
    return v;
}
INLINE void lbp_half2_put(GLOBAL u16 *p, float2 v)
{
    p[0] = lbp_float_to_half(v.x);
    p[1] = lbp_float_to_half(v.y);
}
INLINE void lbp_half4_put(GLOBAL u16 *p, float4 v)
{
    p[0] = lbp_float_to_half(v.x);
    p[1] = lbp_float_to_half(v.y);
    p[2] = lbp_float_to_half(v.z);
    p[3] = lbp_float_to_half(v.w);
}
#define lbp_load_half(p, i) lbp_half_to_float(((const GLOBAL u16 *)(p))[i])
#define lbp_store_half(p, i, v) (((GLOBAL u16 *)(p))[i] = lbp_float_to_half(v))
#define lbp_load_half2(p, i) lbp_half2_at((const GLOBAL u16 *)(p) + (i))
#define lbp_store_half2(p, i, v) lbp_half2_put((GLOBAL u16 *)(p) + (i), (v))
#define lbp_load_half4(p, i) lbp_half4_at((const GLOBAL u16 *)(p) + (i))
#define lbp_store_half4(p, i, v) lbp_half4_put((GLOBAL u16 *)(p) + (i), (v))
