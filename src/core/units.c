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

/* "%.<digits>g" spelled out: glibc takes a slow positional path for "%.*g", and tables of a
 * million rows format several numbers per row. */
static const char *const rf__g_unit[10] = {"",          "%.1g %s%s", "%.2g %s%s", "%.3g %s%s",
                                           "%.4g %s%s", "%.5g %s%s", "%.6g %s%s", "%.7g %s%s",
                                           "%.8g %s%s", "%.9g %s%s"};
static const char *const rf__g_time[10] = {"",        "%.1g %s", "%.2g %s", "%.3g %s", "%.4g %s",
                                           "%.5g %s", "%.6g %s", "%.7g %s", "%.8g %s", "%.9g %s"};
static const double rf__pow1000[7] = {1, 1e3, 1e6, 1e9, 1e12, 1e15, 1e18};

char *rf_si_format(char *buf, size_t size, double value, int digits, const char *unit)
{
    static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
    if (digits < 1) digits = 1;
    if (digits > 9) digits = 9;
    if (isnan(value)) {
        snprintf(buf, size, "-");
        return buf;
    }
    if (isinf(value)) {
        snprintf(buf, size, "inf%s%s", unit[0] ? " " : "", unit);
        return buf;
    }
    double a = fabs(value);
    int p = 0;
    while (p < 6 && a >= 999.95 * rf__pow1000[p]) p++;
    double scaled = value / rf__pow1000[p];
    /* %g may print "1e+03" after rounding; the loop bound keeps scaled < 1000. */
    snprintf(buf, size, rf__g_unit[digits], scaled, pre[p], unit);
    if (!unit[0] && !pre[p][0]) {
        size_t l = strlen(buf);
        if (l && buf[l - 1] == ' ') buf[l - 1] = '\0';
    }
    return buf;
}

char *rf_si_format_compact(char *buf, size_t size, double value, const char *unit)
{
    char tmp[64];
    rf_si_format(tmp, sizeof tmp, value, 3, unit);
    size_t j = 0;
    for (size_t i = 0; tmp[i] && j + 1 < size; i++)
        if (tmp[i] != ' ') buf[j++] = tmp[i];
    if (size) buf[j] = '\0';
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
    snprintf(buf, size, rf__g_time[digits], seconds / t[k].f, t[k].u);
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
