/* bw_kernels.h — the bandwidth kernels written once for every x86 vector width: load (twelve
 * independent sums), store, copy and triad, and the store and copy with non-temporal stores. An ISA
 * file defines the RF__BW_* macros below (its vector type, width in doubles, intrinsics and target
 * attribute) and includes this file inside its own #if; kernels never time themselves (harness.c).
 *   RF__BW_T      function attribute, e.g. __attribute__((target("avx2,fma")))
 *   RF__BW_V      vector of doubles;  RF__BW_W  doubles per vector
 *   RF__BW_LOAD, RF__BW_STORE, RF__BW_STREAM, RF__BW_ADD, RF__BW_SET1, RF__BW_ZERO intrinsics
 *   RF__BW_TRIAD(s, b, c)  s * c + b;   RF__BW_SUM(v)  horizontal sum to a double */

#define RF__PASS_END() __asm__ volatile("" ::"r"(buf) : "memory")

RF__BW_T static double rf__load(double *buf, size_t n, uint64_t passes, double s)
{
    RF__BW_V acc[12];
    (void)s;
    for (int j = 0; j < 12; j++) acc[j] = RF__BW_ZERO();
    for (uint64_t p = 0; p < passes; p++)
        for (size_t i = 0; i < n; i += 12 * RF__BW_W) {
#pragma GCC unroll 12
            for (int j = 0; j < 12; j++)
                acc[j] = RF__BW_ADD(acc[j], RF__BW_LOAD(buf + i + RF__BW_W * (size_t)j));
        }
    double t = 0;
    for (int j = 0; j < 12; j++) t += RF__BW_SUM(acc[j]);
    return t;
}

/* Store and copy, with ordinary (ST = RF__BW_STORE) or non-temporal (RF__BW_STREAM) stores. */
#define RF__BW_STORES(SUFFIX, ST, FENCE)                                                           \
    RF__BW_T static double rf__store##SUFFIX(double *buf, size_t n, uint64_t passes, double s)     \
    {                                                                                              \
        RF__BW_V v = RF__BW_SET1(s);                                                               \
        for (uint64_t p = 0; p < passes; p++) {                                                    \
            for (size_t i = 0; i < n; i += 4 * RF__BW_W) {                                         \
                ST(buf + i, v);                                                                    \
                ST(buf + i + RF__BW_W, v);                                                         \
                ST(buf + i + 2 * RF__BW_W, v);                                                     \
                ST(buf + i + 3 * RF__BW_W, v);                                                     \
            }                                                                                      \
            FENCE;                                                                                 \
            RF__PASS_END();                                                                        \
        }                                                                                          \
        return 0;                                                                                  \
    }                                                                                              \
    RF__BW_T static double rf__copy##SUFFIX(double *buf, size_t n, uint64_t passes, double s)      \
    {                                                                                              \
        size_t h = n / 2;                                                                          \
        (void)s;                                                                                   \
        for (uint64_t p = 0; p < passes; p++) {                                                    \
            for (size_t i = 0; i < h; i += 4 * RF__BW_W) {                                         \
                _Pragma("GCC unroll 4") for (size_t j = 0; j < 4 * RF__BW_W; j += RF__BW_W)        \
                    ST(buf + h + i + j, RF__BW_LOAD(buf + i + j));                                 \
            }                                                                                      \
            FENCE;                                                                                 \
            RF__PASS_END();                                                                        \
        }                                                                                          \
        return 0;                                                                                  \
    }
#define RF__NOFENCE ((void)0)
RF__BW_STORES(, RF__BW_STORE, RF__NOFENCE)
RF__BW_STORES(_nt, RF__BW_STREAM, _mm_sfence())

RF__BW_T static double rf__triad(double *buf, size_t n, uint64_t passes, double s)
{
    size_t t = n / 3;
    double *a = buf, *b = buf + t, *c = buf + 2 * t;
    RF__BW_V vs = RF__BW_SET1(s);
    for (uint64_t p = 0; p < passes; p++) {
        for (size_t i = 0; i < t; i += 4 * RF__BW_W) {
#pragma GCC unroll 4
            for (size_t j = 0; j < 4 * RF__BW_W; j += RF__BW_W)
                RF__BW_STORE(a + i + j,
                             RF__BW_TRIAD(vs, RF__BW_LOAD(b + i + j), RF__BW_LOAD(c + i + j)));
        }
        RF__PASS_END();
    }
    return 0;
}
