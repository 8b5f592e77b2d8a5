/* x86_avx512.c — AVX-512 kernels (fp64/fp32 FMA, add, mul; fp16 FMA with AVX512-FP16, bf16 dot
 * products with AVX512-BF16, int8 with VNNI; load/store/copy/triad and non-temporal stores).
 * Compiled with target attributes only, so the binary stays portable; cpu.c decides whether they
 * run. Checked against generic.c by tests/unit/test_probe.c. */
#include <string.h>

#include "probe/probe_int.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define RF__T512 __attribute__((target("avx512f")))
/* 16 zmm accumulators per kernel: 2 FMA pipes x 4-cycle latency x 2 of slack. */

RF__T512 static double rf__sum_pd(__m512d v)
{
    double t[8], s = 0;
    _mm512_storeu_pd(t, v);
    for (int l = 0; l < 8; l++) s += t[l];
    return s;
}
RF__T512 static double rf__sum_ps(__m512 v)
{
    float t[16];
    double s = 0;
    _mm512_storeu_ps(t, v);
    for (int l = 0; l < 16; l++) s += t[l];
    return s;
}
RF__T512 static double rf__sum_epi32(__m512i v)
{
    int32_t t[16];
    double s = 0;
    _mm512_storeu_si512(t, v);
    for (int l = 0; l < 16; l++) s += t[l];
    return s;
}
RF__T512 static __m512d rf__set_pd(double v)
{
    return _mm512_set1_pd(v);
}
RF__T512 static __m512 rf__set_ps(double v)
{
    return _mm512_set1_ps((float)v);
}
RF__T512 static __m512i rf__set_epi8(double v)
{
    return _mm512_set1_epi8((char)(int)v);
}
RF__T512 static __m512i rf__set_epi32(double v)
{
    return _mm512_set1_epi32((int)v);
}

#define RF__FMA_PD(x, a, b) _mm512_fmadd_pd(x, a, b)
#define RF__ADD_PD(x, a, b) _mm512_add_pd(x, b)
#define RF__MUL_PD(x, a, b) _mm512_mul_pd(x, a)
#define RF__FMA_PS(x, a, b) _mm512_fmadd_ps(x, a, b)
#define RF__ADD_PS(x, a, b) _mm512_add_ps(x, b)
#define RF__MUL_PS(x, a, b) _mm512_mul_ps(x, a)
RF__FLOP_KERNEL(16, rf__fp64_fma, "avx512f", __m512d, __m512d, rf__set_pd, rf__set_pd, RF__FMA_PD,
                rf__sum_pd)
RF__FLOP_KERNEL(16, rf__fp64_add, "avx512f", __m512d, __m512d, rf__set_pd, rf__set_pd, RF__ADD_PD,
                rf__sum_pd)
RF__FLOP_KERNEL(16, rf__fp64_mul, "avx512f", __m512d, __m512d, rf__set_pd, rf__set_pd, RF__MUL_PD,
                rf__sum_pd)
RF__FLOP_KERNEL(16, rf__fp32_fma, "avx512f", __m512, __m512, rf__set_ps, rf__set_ps, RF__FMA_PS,
                rf__sum_ps)
RF__FLOP_KERNEL(16, rf__fp32_add, "avx512f", __m512, __m512, rf__set_ps, rf__set_ps, RF__ADD_PS,
                rf__sum_ps)
RF__FLOP_KERNEL(16, rf__fp32_mul, "avx512f", __m512, __m512, rf__set_ps, rf__set_ps, RF__MUL_PS,
                rf__sum_ps)

/* int8 (VNNI): every int32 lane += 4 products of u8 a and s8 a per iteration (a = 1). */
#define RF__DPBUSD(x, a, b) _mm512_dpbusd_epi32(x, a, a)
RF__FLOP_KERNEL(16, rf__int8_dot, "avx512f,avx512vnni", __m512i, __m512i, rf__set_epi8,
                rf__set_epi32, RF__DPBUSD, rf__sum_epi32)

/* bf16: every fp32 lane += a*a + a*a per iteration (a = 1, built from its bf16 bit pattern). */
__attribute__((target("avx512f,avx512bf16"))) static __m512bh rf__set_bf16(double v)
{
    float f = (float)v;
    uint32_t bits;
    __builtin_memcpy(&bits, &f, 4);
    return (__m512bh)_mm512_set1_epi16((short)(bits >> 16));
}
#define RF__DPBF16(x, a, b) _mm512_dpbf16_ps(x, a, a)
RF__FLOP_KERNEL(16, rf__bf16_dot, "avx512f,avx512bf16", __m512bh, __m512, rf__set_bf16, rf__set_ps,
                RF__DPBF16, rf__sum_ps)

#if (defined(__clang__) && __clang_major__ >= 16) || (!defined(__clang__) && __GNUC__ >= 12)
#define RF__HAVE_FP16 1
/* fp16 from and to exactly representable doubles (normal numbers only), by bits. */
static uint16_t rf__half_bits(double v)
{
    float f = (float)v;
    uint32_t u;
    __builtin_memcpy(&u, &f, 4);
    return (uint16_t)(((u >> 16) & 0x8000u) | (((u >> 23 & 0xffu) - 112u) << 10) |
                      ((u >> 13) & 0x3ffu));
}
static double rf__half_value(uint16_t h)
{
    uint32_t u = ((uint32_t)(h & 0x8000u) << 16) | (((h >> 10 & 0x1fu) + 112u) << 23) |
                 ((uint32_t)(h & 0x3ffu) << 13);
    float f;
    if ((h & 0x7fffu) == 0) return 0;
    __builtin_memcpy(&f, &u, 4);
    return f;
}
__attribute__((target("avx512f,avx512fp16"))) static __m512h rf__set_ph(double v)
{
    return _mm512_castsi512_ph(_mm512_set1_epi16((short)rf__half_bits(v)));
}
__attribute__((target("avx512f,avx512fp16"))) static double rf__sum_ph(__m512h v)
{
    uint16_t t[32];
    double s = 0;
    _mm512_storeu_si512(t, _mm512_castph_si512(v));
    for (int l = 0; l < 32; l++) s += rf__half_value(t[l]);
    return s;
}
#define RF__FMA_PH(x, a, b) _mm512_fmadd_ph(x, a, b)
RF__FLOP_KERNEL(16, rf__fp16_fma, "avx512f,avx512fp16", __m512h, __m512h, rf__set_ph, rf__set_ph,
                RF__FMA_PH, rf__sum_ph)
#endif

/* AMX: C[16x16] += A . B on tiles, four independent accumulators (tiles 0-3) fed by two A tiles
 * (4, 7) and two B tiles (5, 6). A 64-byte tile row holds 32 bf16 or 64 int8, so every element
 * gains 32 (bf16) or 64 (int8) products per instruction; with every input a = 1 each element ends
 * at b + 32 a^2 or b + 64 a^2 per iteration (the checksum; exact for the test's few iterations). */
typedef struct rf__tilecfg {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} rf__tilecfg;

#define RF__TAMX __attribute__((target("amx-tile,amx-bf16,amx-int8")))
RF__TAMX static double rf__amx(uint64_t iters, double a, double b, int int8)
{
    rf__tilecfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    for (int t = 0; t < 8; t++) cfg.colsb[t] = 64, cfg.rows[t] = 16;
    _Alignas(64) uint8_t in[16 * 64];
    _Alignas(64) int32_t acc[16 * 16];
    for (int i = 0; i < 16 * 64; i += 2) {
        if (int8) {
            in[i] = in[i + 1] = (uint8_t)(int8_t)a;
        } else { /* bf16 of a: the upper half of its float */
            float fa = (float)a;
            uint32_t bits;
            memcpy(&bits, &fa, 4);
            in[i] = (uint8_t)(bits >> 16), in[i + 1] = (uint8_t)(bits >> 24);
        }
    }
    for (int i = 0; i < 256; i++) {
        float fb = (float)b;
        if (int8)
            acc[i] = (int32_t)b;
        else
            memcpy(&acc[i], &fb, 4);
    }
    _tile_loadconfig(&cfg);
    _tile_loadd(0, acc, 64);
    _tile_loadd(1, acc, 64);
    _tile_loadd(2, acc, 64);
    _tile_loadd(3, acc, 64);
    _tile_loadd(4, in, 64);
    _tile_loadd(5, in, 64);
    _tile_loadd(6, in, 64);
    _tile_loadd(7, in, 64);
    if (int8)
        for (uint64_t i = 0; i < iters; i++) {
            _tile_dpbssd(0, 4, 5);
            _tile_dpbssd(1, 4, 6);
            _tile_dpbssd(2, 7, 5);
            _tile_dpbssd(3, 7, 6);
        }
    else
        for (uint64_t i = 0; i < iters; i++) {
            _tile_dpbf16ps(0, 4, 5);
            _tile_dpbf16ps(1, 4, 6);
            _tile_dpbf16ps(2, 7, 5);
            _tile_dpbf16ps(3, 7, 6);
        }
    double sum = 0;
    for (int t = 0; t < 4; t++) {
        switch (t) { /* tile numbers must be constants */
        case 0: _tile_stored(0, acc, 64); break;
        case 1: _tile_stored(1, acc, 64); break;
        case 2: _tile_stored(2, acc, 64); break;
        default: _tile_stored(3, acc, 64); break;
        }
        for (int i = 0; i < 256; i++) {
            float f;
            memcpy(&f, &acc[i], 4);
            sum += int8 ? (double)acc[i] : (double)f;
        }
    }
    _tile_release();
    return sum;
}

static double rf__bf16_amx(uint64_t iters, double a, double b)
{
    return rf__amx(iters, a, b, 0);
}
static double rf__int8_amx(uint64_t iters, double a, double b)
{
    return rf__amx(iters, a, b, 1);
}

#define F512 (RF__F_AVX512F)
/* clang-format off */
const rf__flop_kernel rf__flop_avx512[] = {
    {"fp64.fma.avx512", "fp64", "fma", RF__ISA_AVX512, F512, 16 * 16, 32, 0.5, 1, rf__fp64_fma},
    {"fp32.fma.avx512", "fp32", "fma", RF__ISA_AVX512, F512, 16 * 32, 64, 0.5, 1, rf__fp32_fma},
    {"fp64.add.avx512", "fp64", "add", RF__ISA_AVX512, F512, 16 * 8, 16, 1, 1, rf__fp64_add},
    {"fp32.add.avx512", "fp32", "add", RF__ISA_AVX512, F512, 16 * 16, 32, 1, 1, rf__fp32_add},
    {"fp64.mul.avx512", "fp64", "mul", RF__ISA_AVX512, F512, 16 * 8, 16, 1, 1, rf__fp64_mul},
    {"fp32.mul.avx512", "fp32", "mul", RF__ISA_AVX512, F512, 16 * 16, 32, 1, 1, rf__fp32_mul},
#ifdef RF__HAVE_FP16
    {"fp16.fma.avx512", "fp16", "fma", RF__ISA_AVX512, F512 | RF__F_AVX512FP16, 16 * 64, 128,
     0.5, 1, rf__fp16_fma},
#endif
    {"bf16.dot.avx512", "bf16", "dot", RF__ISA_AVX512, F512 | RF__F_AVX512BF16, 16 * 64, 0, 1, 1,
     rf__bf16_dot},
    {"int8.dot.avx512", "int8", "dot", RF__ISA_AVX512, F512 | RF__F_AVX512VNNI, 16 * 128, 0, 1, 1,
     rf__int8_dot},
    /* AMX, the matrix engine: 4 tiles x 256 elements x 64 (bf16) or 128 (int8) per iteration;
     * one TDPB* per 16 cycles per core is 1024 bf16 FLOP or 2048 int8 OP per cycle. */
    {"bf16.amx", "bf16", "tile", RF__ISA_AVX512, F512 | RF__F_AMX, 4 * 256 * 64, 1024, 1, 1,
     rf__bf16_amx},
    {"int8.amx", "int8", "tile", RF__ISA_AVX512, F512 | RF__F_AMX, 4 * 256 * 128, 2048, 1, 1,
     rf__int8_amx},
};
/* clang-format on */
const size_t rf__n_flop_avx512 = sizeof rf__flop_avx512 / sizeof *rf__flop_avx512;

#define RF__BW_T RF__T512
#define RF__BW_V __m512d
#define RF__BW_W 8
#define RF__BW_LOAD _mm512_load_pd
#define RF__BW_STORE _mm512_store_pd
#define RF__BW_STREAM _mm512_stream_pd
#define RF__BW_ADD _mm512_add_pd
#define RF__BW_SET1 _mm512_set1_pd
#define RF__BW_ZERO _mm512_setzero_pd
#define RF__BW_TRIAD(s, b, c) _mm512_fmadd_pd(s, c, b)
#define RF__BW_SUM rf__sum_pd
#include "bw_kernels.h"

const rf__bw_kernel rf__bw_avx512[] = {
    {"load.avx512", "load", RF__ISA_AVX512, F512, rf__load},
    {"store.avx512", "store", RF__ISA_AVX512, F512, rf__store},
    {"copy.avx512", "copy", RF__ISA_AVX512, F512, rf__copy},
    {"triad.avx512", "triad", RF__ISA_AVX512, F512, rf__triad},
    {"store.nt.avx512", "store.nt", RF__ISA_AVX512, F512, rf__store_nt},
    {"copy.nt.avx512", "copy.nt", RF__ISA_AVX512, F512, rf__copy_nt},
};
const size_t rf__n_bw_avx512 = sizeof rf__bw_avx512 / sizeof *rf__bw_avx512;

/* Clock under AVX-512: the 32-add chain sets the pace; 32 zmm FMAs beside it hold the license. */
RF__T512 uint64_t rf__clock_avx512(uint64_t iters)
{
    RF__CLOCK_ONE
    __m512d x[8], a = _mm512_set1_pd(0.5), b = _mm512_set1_pd(1.0);
    uint64_t c = 0;
    for (int j = 0; j < 8; j++) x[j] = b;
    for (uint64_t i = 0; i < iters; i++) {
        RF__INC32(c)
#pragma GCC unroll 32
        for (int j = 0; j < 32; j++) x[j & 7] = _mm512_fmadd_pd(x[j & 7], a, b);
    }
    double t = 0;
    for (int j = 0; j < 8; j++) t += rf__sum_pd(x[j]);
    return c + (t > 1e300);
}

#else
const rf__flop_kernel rf__flop_avx512[1];
const size_t rf__n_flop_avx512 = 0;
const rf__bw_kernel rf__bw_avx512[1];
const size_t rf__n_bw_avx512 = 0;
#endif
