/* units.c — parsing and printing of numbers and SI units (docs/design.md "Units": SI decimal
 * prefixes for rates, binary prefixes for memory sizes, base units in JSON). Locale independent. */
/* strfromd (ISO/IEC TS 18661-1, C23): one exact conversion without printf's format parsing. */
#define __STDC_WANT_IEC_60559_BFP_EXT__ 1
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rf_int.h"
#include "roofline/core.h"

rf_status rf__decimal_scan(const char *s, size_t n, int allow_negative, double *out,
                           const char **why)
{
    size_t i = 0, digits = 0;
    char tmp[128];
    *why = "not a number";
    if (n == 0) {
        *why = "empty";
        return RF_FORMAT;
    }
    if (n >= sizeof tmp) {
        *why = "number too long";
        return RF_FORMAT;
    }
    int neg = 0;
    if (s[i] == '+' || s[i] == '-') neg = s[i++] == '-';
    while (i < n && s[i] >= '0' && s[i] <= '9') i++, digits++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++, digits++;
    }
    if (!digits) return RF_FORMAT;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1, ed = 0;
        if (j < n && (s[j] == '+' || s[j] == '-')) j++;
        while (j < n && s[j] >= '0' && s[j] <= '9') j++, ed++;
        if (!ed) return RF_FORMAT;
        i = j;
    }
    if (i != n) return RF_FORMAT;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    errno = 0;
    double v = strtod(tmp, NULL);
    if (!isfinite(v) || (errno == ERANGE && fabs(v) > 1.0)) {
        *why = "out of range (overflows a double)";
        return RF_RANGE;
    }
    if (neg && v != 0 && !allow_negative) {
        *why = "negative";
        return RF_RANGE;
    }
    if (neg && v == 0) v = 0; /* "-0" is zero */
    *out = v;
    return RF_OK;
}

static const struct {
    char c;
    double mult;
} rf__si[] = {{'k', 1e3},  {'K', 1e3},  {'M', 1e6}, {'G', 1e9},
              {'T', 1e12}, {'P', 1e15}, {'E', 1e18}};

rf_status rf_si_parse(rf_ctx *ctx, const char *text, const char *what, double *out)
{
    RF_CHECK(ctx, text, RF_USAGE, "%s: missing value", what);
    size_t n = strlen(text);
    /* Strip an ignorable unit text. */
    static const char *const units[] = {"FLOP/s", "FLOPS", "flop/s", "flops", "B/s", "/s"};
    for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
        size_t k = strlen(units[u]);
        if (n > k && memcmp(text + n - k, units[u], k) == 0) {
            n -= k;
            break;
        }
    }
    while (n && text[n - 1] == ' ') n--;
    double mult = 1;
    if (n) {
        for (size_t j = 0; j < sizeof rf__si / sizeof *rf__si; j++)
            if (text[n - 1] == rf__si[j].c) {
                mult = rf__si[j].mult;
                n--;
                break;
            }
        while (n && text[n - 1] == ' ') n--;
    }
    double v;
    const char *why;
    rf_status st = rf__decimal_scan(text, n, 0, &v, &why);
    if (st != RF_OK) return rf__error(ctx, st, -1, "%s: '%s' is %s", what, text, why);
    v *= mult;
    RF_CHECK(ctx, isfinite(v), RF_RANGE, "%s: '%s' is out of range", what, text);
    *out = v;
    return RF_OK;
}

/* Round the 17-digit string d to its first `prec` digits, half up. Returns 1 when the rounding
 * carried out of the first digit ("999.." -> "100.."), i.e. the exponent grows by one. */
static int rf__round_digits(char *d, int prec)
{
    int carry = d[prec] >= '5';
    for (int i = prec - 1; i >= 0 && carry; i--) {
        if (d[i] == '9')
            d[i] = '0';
        else {
            d[i]++;
            carry = 0;
        }
    }
    for (int i = prec; i < 17; i++) d[i] = '0';
    if (!carry) return 0;
    d[0] = '1'; /* all were 9: 10^(x+1) */
    return 1;
}

/* Write digits d[0..prec) times 10^x the way printf's %.<prec>g does: fixed notation when
 * -4 <= x < prec, else d.ddde+XX; trailing zeros dropped. Plain character writes: this runs for
 * every number of a million-row CSV, where one vsnprintf per piece would double the cost. */
static void rf__format_g(char *buf, size_t size, int neg, const char *d, int prec, int x)
{
    char t[48];
    size_t j = 0;
    int n = prec;
    while (n > 1 && d[n - 1] == '0') n--;
    if (neg) t[j++] = '-';
    if (x < -4 || x >= prec) {
        t[j++] = d[0];
        if (n > 1) t[j++] = '.';
        for (int i = 1; i < n; i++) t[j++] = d[i];
        int e = x < 0 ? -x : x;
        t[j++] = 'e';
        t[j++] = x < 0 ? '-' : '+';
        if (e >= 100) t[j++] = (char)('0' + e / 100);
        t[j++] = (char)('0' + e / 10 % 10);
        t[j++] = (char)('0' + e % 10);
    } else if (x < 0) {
        t[j++] = '0';
        t[j++] = '.';
        for (int i = 0; i < -x - 1; i++) t[j++] = '0';
        for (int i = 0; i < n; i++) t[j++] = d[i];
    } else {
        for (int i = 0; i <= x; i++) t[j++] = i < n ? d[i] : '0';
        if (n > x + 1) t[j++] = '.';
        for (int i = x + 1; i < n; i++) t[j++] = d[i];
    }
    if (!size) return;
    if (j >= size) j = size - 1;
    memcpy(buf, t, j);
    buf[j] = '\0';
}

static const double rf__p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* printf's "%.<prec>g" of v (1 <= prec <= 9) in plain arithmetic: v times an exact power of ten
 * is one rounding away from the true product, so the rounded digits are printf's unless that
 * product lies within a hair of a tie; then (and for 0, inf, NaN, subnormals) it returns 0 and
 * the caller asks snprintf. Tables of a million rows format several numbers a row, and glibc's
 * exact conversion costs more than everything else of a row together. */
int rf__g_fast(char *buf, size_t size, double v, int prec)
{
    if (prec < 1 || prec > 9 || !isfinite(v) || v == 0 || size < 2) return 0;
    double a = fabs(v);
    if (a < 1e-290 || a > 1e290) return 0;
    int x = (int)floor(log10(a));
    for (int tries = 0; tries < 3; tries++) {
        int k = prec - 1 - x;
        if (k > 22 || k < -22) return 0;
        double s = k >= 0 ? a * rf__p10[k] : a / rf__p10[-k];
        if (s >= rf__p10[prec]) {
            x++;
            continue;
        }
        if (s < rf__p10[prec - 1]) {
            x--;
            continue;
        }
        double fl = floor(s), fr = s - fl;
        if (fabs(fr - 0.5) < 1e-6) return 0; /* too near a tie to decide here */
        uint64_t m = (uint64_t)fl + (fr > 0.5);
        if (m == (uint64_t)rf__p10[prec]) { /* 9.995 -> 10.0: one digit more of exponent */
            m /= 10;
            x++;
        }
        char d[18];
        for (int i = prec - 1; i >= 0; i--, m /= 10) d[i] = (char)('0' + m % 10);
        rf__format_g(buf, size, v < 0, d, prec, x);
        return 1;
    }
    return 0;
}

/* printf's "%.1f" of v, the same way (0 when it cannot decide: the caller asks snprintf). */
static int rf__f1_fast(char *buf, size_t size, double v)
{
    double a = fabs(v);
    if (!isfinite(v) || a >= 1e8 || size < 24) return 0; /* s < 1e9: error under 1e-6 */
    double s = a * 10, fl = floor(s), fr = s - fl;
    if (fabs(fr - 0.5) < 1e-6) return 0;
    uint64_t m = (uint64_t)fl + (fr > 0.5);
    char t[24];
    size_t n = 0, j = 0;
    t[n++] = (char)('0' + m % 10);
    t[n++] = '.';
    m /= 10;
    do t[n++] = (char)('0' + m % 10);
    while ((m /= 10) != 0);
    if (signbit(v)) buf[j++] = '-';
    while (n) buf[j++] = t[--n];
    buf[j] = '\0';
    return 1;
}

char *rf__f1_format(char *buf, size_t size, double v, const char *suffix)
{
    char t[40];
    if (!rf__f1_fast(t, sizeof t, v)) snprintf(t, sizeof t, "%.1f", v);
    size_t j = 0;
    for (const char *p = t; *p && j + 1 < size; p++) buf[j++] = *p;
    for (const char *p = suffix; *p && j + 1 < size; p++) buf[j++] = *p;
    if (size) buf[j] = '\0';
    return buf;
}

char *rf__g_format(char *buf, size_t size, double v, int prec)
{
    if (!rf__g_fast(buf, size, v, prec)) snprintf(buf, size, "%.*g", prec, v);
    return buf;
}

/* buf = the pieces one after the other, cut to size (as snprintf); `nospace`: spaces left out. */
static void rf__join(char *buf, size_t size, const char *const *piece, size_t n, int nospace)
{
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
        for (const char *p = piece[i]; *p && j + 1 < size; p++)
            if (!nospace || *p != ' ') buf[j++] = *p;
    if (size) buf[j] = '\0';
}

static const double rf__pow1000[7] = {1, 1e3, 1e6, 1e9, 1e12, 1e15, 1e18};

static void rf__si_format(char *buf, size_t size, double value, int digits, const char *unit,
                          int nospace);

char *rf_si_format(char *buf, size_t size, double value, int digits, const char *unit)
{
    rf__si_format(buf, size, value, digits, unit, 0);
    return buf;
}

static void rf__si_format(char *buf, size_t size, double value, int digits, const char *unit,
                          int nospace)
{
    static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
    if (digits < 1) digits = 1;
    if (digits > 9) digits = 9;
    if (isnan(value)) {
        snprintf(buf, size, "-");
        return;
    }
    if (isinf(value)) {
        const char *p[] = {"inf", unit[0] ? " " : "", unit};
        rf__join(buf, size, p, 3, nospace);
        return;
    }
    double a = fabs(value);
    int p = 0;
    while (p < 6 && a >= 999.95 * rf__pow1000[p]) p++;
    double scaled = value / rf__pow1000[p];
    /* %g may print "1e+03" after rounding; the loop bound keeps scaled < 1000. */
    char g[40];
    rf__g_format(g, sizeof g, scaled, digits);
    const char *piece[] = {g, !unit[0] && !pre[p][0] ? "" : " ", pre[p], unit};
    rf__join(buf, size, piece, 4, nospace);
}

char *rf_si_format_compact(char *buf, size_t size, double value, const char *unit)
{
    rf__si_format(buf, size, value, 3, unit, 1);
    return buf;
}

char *rf_time_format(char *buf, size_t size, double seconds, int digits)
{
    static const struct {
        double f;
        const char *u;
    } t[] = {{1e9, "Gs"},  {1e6, "Ms"},  {1e3, "ks"}, {1, "s"},
             {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}}; /* SI always: 1.2 ks, not 1e+03 s */
    if (isnan(seconds)) {
        snprintf(buf, size, "-");
        return buf;
    }
    if (seconds == 0) {
        snprintf(buf, size, "0 s");
        return buf;
    }
    size_t k = 0;
    if (digits < 1) digits = 1;
    if (digits > 9) digits = 9;
    while (k < 6 && fabs(seconds) < t[k].f * 0.99995) k++;
    char g[40];
    rf__g_format(g, sizeof g, seconds / t[k].f, digits);
    if (strchr(g, 'e')) snprintf(g, sizeof g, "%.0f", seconds / t[k].f); /* 600 ns at 2 digits */
    const char *piece[] = {g, " ", t[k].u};
    rf__join(buf, size, piece, 3, 0);
    return buf;
}

char *rf_bytes_format_iec(char *buf, size_t size, double bytes, int digits)
{
    static const char *const pre[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int p = 0;
    while (p < 5 && fabs(bytes) >= 1024.0 * pow(1024.0, p) * 0.99995) p++;
    snprintf(buf, size, "%.*g %s", digits, bytes / pow(1024.0, p), pre[p]);
    return buf;
}

static int rf__number_fast(char *buf, size_t size, double value);

char *rf_number_format(char *buf, size_t size, double value)
{
    if (isinf(value)) {
        snprintf(buf, size, value > 0 ? "inf" : "-inf");
        return buf;
    }
    if (isnan(value)) {
        snprintf(buf, size, "nan");
        return buf;
    }
    /* Whole numbers below 2^53 (most FLOP and byte counts) print exactly as integers, without the
     * cost of a floating-point conversion. */
    if (value == floor(value) && fabs(value) < 9007199254740992.0) {
        char tmp[24];
        size_t n = 0;
        uint64_t u = (uint64_t)fabs(value);
        do tmp[n++] = (char)('0' + u % 10);
        while ((u /= 10) != 0);
        size_t j = 0;
        if (value < 0 && j + 1 < size) buf[j++] = '-';
        while (n && j + 1 < size) buf[j++] = tmp[--n];
        buf[j] = '\0';
        return buf;
    }
    if (rf__number_fast(buf, size, value)) return buf;
    return rf__number_format_slow(buf, size, value);
}

/* rf_number_format's shortest digits by exact integer arithmetic, for normal values from 1e-11 to
 * 1e17: v = f 2^e, its first 17 digits are round(f 5^k 2^(e+k)) with k = 16 - exponent (f 5^k
 * fits 116 bits for k <= 27), and a shorter candidate reads back exactly when it lies within half
 * an ulp of v (ties to even, as strtod). Gives the bytes of the strfromd + strtod path (checked
 * against it, tests/unit/test_scale.c); returns 0 where it cannot (the caller takes that path). */
#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 rf__u128;

static int rf__number_fast(char *buf, size_t size, double value)
{
    double a = fabs(value);
    if (!(a >= 1e-11 && a < 1e17)) return 0;
    int e2;
    uint64_t f = (uint64_t)ldexp(frexp(a, &e2), 53);
    int e = e2 - 53; /* a = f 2^e exactly, 2^52 <= f < 2^53 */
    int x = (int)floor(log10(a)), k = 0, sh = 0, ok = 0;
    const rf__u128 lo = (rf__u128)10000000000000000ull, hi = lo * 10;
    static const uint64_t pow5[28] = {1ull,
                                      5ull,
                                      25ull,
                                      125ull,
                                      625ull,
                                      3125ull,
                                      15625ull,
                                      78125ull,
                                      390625ull,
                                      1953125ull,
                                      9765625ull,
                                      48828125ull,
                                      244140625ull,
                                      1220703125ull,
                                      6103515625ull,
                                      30517578125ull,
                                      152587890625ull,
                                      762939453125ull,
                                      3814697265625ull,
                                      19073486328125ull,
                                      95367431640625ull,
                                      476837158203125ull,
                                      2384185791015625ull,
                                      11920928955078125ull,
                                      59604644775390625ull,
                                      298023223876953125ull,
                                      1490116119384765625ull,
                                      7450580596923828125ull};
    rf__u128 p5 = 1, d17 = 0, b = 0;
    for (int tries = 0; tries < 3 && !ok; tries++) {
        k = 16 - x;
        if (k < 0 || k > 27) return 0;
        p5 = pow5[k];
        b = (rf__u128)f * p5; /* v 10^k = b 2^(e+k) */
        sh = e + k;
        rf__u128 q;
        if (sh >= 0) {
            if (sh > 10) return 0;
            q = d17 = b << sh;
        } else {
            if (-sh > 100) return 0;
            q = b >> -sh;
            rf__u128 rem = b - (q << -sh), half = (rf__u128)1 << (-sh - 1);
            if (rem == half) return 0; /* an exact tie: printf's rule, not ours */
            d17 = q + (rem > half);
        }
        if (q >= hi)
            x++;
        else if (q < lo)
            x--;
        else
            ok = 1;
    }
    if (!ok || d17 >= hi) return 0; /* 9.99..95 rounding up to 10: the slow path */
    char digits[18];
    uint64_t d = (uint64_t)d17;
    for (int i = 16; i >= 0; i--, d /= 10) digits[i] = (char)('0' + d % 10);
    /* candidates of 15 and 16 digits: the 17 rounded half up (as the slow path does), kept when
     * strtod would give v back: within half an ulp, in units of 2^min(e+k, 0) times 10^-k */
    rf__u128 vv = sh >= 0 ? d17 : b, ulp = sh >= 0 ? p5 << sh : p5; /* ulp = 2 x half an ulp */
    int boundary = f == (1ull << 52);                               /* v a power of two */
    static const uint64_t p10[3] = {1ull, 10ull, 100ull};
    for (int prec = 15; prec <= 16; prec++) {
        /* the 17 digits cut to prec, half up on the first digit dropped (as rf__round_digits) */
        uint64_t unit = p10[17 - prec], q = (uint64_t)d17 / unit;
        q += (uint64_t)d17 % unit >= unit / 2;
        rf__u128 m = (rf__u128)q * unit; /* 10^17 after a carry: the same units of 10^(x-16) */
        rf__u128 cand = sh >= 0 ? m : m << -sh;
        rf__u128 diff = cand > vv ? cand - vv : vv - cand;
        rf__u128 lim = boundary && cand < vv ? ulp / 2 : ulp; /* below a power of two: half */
        if (2 * diff == lim) return 0;                        /* a tie: strtod's rule */
        if (2 * diff < lim) {
            char c[18];
            int cx = x;
            if (m == hi) { /* "1000..": one exponent up */
                q /= 10;
                cx++;
            }
            memset(c, '0', 17);
            for (int i = prec - 1; i >= 0; i--, q /= 10) c[i] = (char)('0' + q % 10);
            rf__format_g(buf, size, value < 0, c, prec, cx);
            return 1;
        }
    }
    rf__format_g(buf, size, value < 0, digits, 17, x);
    return 1;
}
#else
static int rf__number_fast(char *buf, size_t size, double value)
{
    (void)buf, (void)size, (void)value;
    return 0; /* no 128-bit integers: every number takes the strfromd path */
}
#endif

char *rf__number_format_slow(char *buf, size_t size, double value)
{
    /* Shortest of 15, 16 or 17 significant digits that reads back exactly. One exact conversion
     * to 17 digits, then the shorter candidates are made by rounding that digit string (cheap)
     * and checked with strtod; glibc's exact printf is the expensive step, done once. */
    char e17[40], digits[18];
    strfromd(e17, sizeof e17, "%.16e", fabs(value));
    size_t nd = 0;
    for (const char *p = e17; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9') digits[nd++] = *p;
    int exp10 = (int)strtol(strchr(e17, 'e') + 1, NULL, 10);
    for (int prec = 15; prec <= 17; prec++) {
        char d[18];
        int x = exp10;
        memcpy(d, digits, 17);
        if (prec < 17 && rf__round_digits(d, prec)) x++;
        rf__format_g(buf, size, value < 0, d, prec, x);
        if (prec == 17 || strtod(buf, NULL) == value) break;
    }
    return buf;
}

char *rf__u64_text(char *buf, uint64_t v)
{
    char t[24];
    size_t n = 0, j = 0;
    do t[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n) buf[j++] = t[--n];
    buf[j] = '\0';
    return buf;
}
