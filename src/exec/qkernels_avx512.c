/* qkernels_avx512.c — AVX-512 (F + BW) dot products of a weight row (F32, F16, BF16, Q8_0, Q4_0,
 * Q4_K, Q6_K) with F32 activations, each block dequantised in zmm registers and never stored.
 * Compiled with target attributes only; qkernels.c decides whether they run. Checked against the
 * reference by tests/unit/test_qkernels.c. */
#include <string.h>

#include "exec/qkernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "exec/qkernels_x86.h"

#define RF__TQ5 __attribute__((target("avx512f,avx512bw,avx2,fma,f16c")))

RF__TQ5 static float rf__h5(uint16_t h)
{
    return _cvtsh_ss(h);
}

/* 16 bytes as floats */
#define RF__I8F16(v) _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(v))
#define RF__U8F16(v) _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(v))
#define RF__LD(p) _mm_loadu_si128((const __m128i *)(p))

RF__TQ5 static float rf__dot_f32(const void *w, const void *act, size_t k)
{
    const float *x = act;
    const float *a = w;
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 64 <= k; i += 64) {
        s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(x + i), s0);
        s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(x + i + 16), s1);
        s2 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 32), _mm512_loadu_ps(x + i + 32), s2);
        s3 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 48), _mm512_loadu_ps(x + i + 48), s3);
    }
    for (; i + 16 <= k; i += 16)
        s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(x + i), s0);
    float s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
    for (; i < k; i++) s += a[i] * x[i];
    return s;
}

RF__TQ5 static float rf__dot_f16(const void *w, const void *act, size_t k)
{
    const float *x = act;
    const uint16_t *a = w;
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 64 <= k; i += 64) {
        __m512 w0 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(a + i)));
        __m512 w1 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(a + i + 16)));
        __m512 w2 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(a + i + 32)));
        __m512 w3 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(a + i + 48)));
        s0 = _mm512_fmadd_ps(w0, _mm512_loadu_ps(x + i), s0);
        s1 = _mm512_fmadd_ps(w1, _mm512_loadu_ps(x + i + 16), s1);
        s2 = _mm512_fmadd_ps(w2, _mm512_loadu_ps(x + i + 32), s2);
        s3 = _mm512_fmadd_ps(w3, _mm512_loadu_ps(x + i + 48), s3);
    }
    for (; i + 16 <= k; i += 16)
        s0 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(a + i))),
                             _mm512_loadu_ps(x + i), s0);
    float s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
    for (; i < k; i++) s += rf__h5(a[i]) * x[i];
    return s;
}

RF__TQ5 static __m512 rf__bf16x16(const uint16_t *p)
{
    __m512i v = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
}

RF__TQ5 static float rf__dot_bf16(const void *w, const void *act, size_t k)
{
    const float *x = act;
    const uint16_t *a = w;
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 64 <= k; i += 64) {
        s0 = _mm512_fmadd_ps(rf__bf16x16(a + i), _mm512_loadu_ps(x + i), s0);
        s1 = _mm512_fmadd_ps(rf__bf16x16(a + i + 16), _mm512_loadu_ps(x + i + 16), s1);
        s2 = _mm512_fmadd_ps(rf__bf16x16(a + i + 32), _mm512_loadu_ps(x + i + 32), s2);
        s3 = _mm512_fmadd_ps(rf__bf16x16(a + i + 48), _mm512_loadu_ps(x + i + 48), s3);
    }
    for (; i + 16 <= k; i += 16)
        s0 = _mm512_fmadd_ps(rf__bf16x16(a + i), _mm512_loadu_ps(x + i), s0);
    float s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
    for (; i < k; i++) s += rf__bf16_to_f32(a[i]) * x[i];
    return s;
}

const rf__qk_dot_fn rf__qk_avx512[RF__QK_COUNT] = {rf__dot_f32, rf__dot_f16, rf__dot_bf16};
#else
const rf__qk_dot_fn rf__qk_avx512[RF__QK_COUNT] = {0};
#endif
