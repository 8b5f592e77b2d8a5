/* text.c — the text helpers shared by every module (core/text.h): UTF-8 decoding (RFC 3629),
 * display columns, JSON strings and numbers (RFC 8259 section 7), CSV fields (RFC 4180) and word
 * wrapping. Output is locale independent. Never prints. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "core/text.h"
#include "roofline/core.h"

size_t rf__utf8_decode(const uint8_t *s, size_t avail, uint32_t *cp)
{
    uint32_t c = avail ? s[0] : 0, min;
    size_t n;
    if (!avail) return 0;
    if (c < 0x80) {
        if (cp) *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, c &= 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, c &= 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, c &= 0x07, min = 0x10000;
    else
        return 0;
    if (n > avail) return 0;
    for (size_t k = 1; k < n; k++) {
        if ((s[k] & 0xC0) != 0x80) return 0;
        c = c << 6 | (s[k] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
    if (cp) *cp = c;
    return n;
}

size_t rf__utf8_cols(const char *s, size_t n)
{
    size_t cols = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80) cols++;
    return cols;
}

rf_status rf__write_json_stringn(rf_writer *w, const char *s, size_t n)
{
    const uint8_t *u = (const uint8_t *)s;
    size_t run = 0, i = 0;
    RF_TRY(RF_WRITE_LIT(w, "\""));
    while (i < n) {
        uint8_t c = u[i];
        size_t k = c >= 0x80 ? rf__utf8_decode(u + i, n - i, NULL) : 1;
        if (k && c >= 0x20 && c != '"' && c != '\\') {
            i += k;
            continue;
        }
        RF_TRY(rf_write(w, s + run, i - run));
        char esc[8];
        switch (k ? c : 0x80) {
        case '"': RF_TRY(RF_WRITE_LIT(w, "\\\"")); break;
        case '\\': RF_TRY(RF_WRITE_LIT(w, "\\\\")); break;
        case '\n': RF_TRY(RF_WRITE_LIT(w, "\\n")); break;
        case '\r': RF_TRY(RF_WRITE_LIT(w, "\\r")); break;
        case '\t': RF_TRY(RF_WRITE_LIT(w, "\\t")); break;
        case 0x80: RF_TRY(RF_WRITE_LIT(w, "\\ufffd")); break; /* not UTF-8 */
        default: snprintf(esc, sizeof esc, "\\u%04x", c); RF_TRY(rf_write(w, esc, 6));
        }
        run = ++i;
    }
    RF_TRY(rf_write(w, s + run, i - run));
    return RF_WRITE_LIT(w, "\"");
}

rf_status rf__write_json_string(rf_writer *w, const char *s)
{
    return rf__write_json_stringn(w, s, strlen(s));
}

rf_status rf__write_csv_field(rf_writer *w, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) return rf_write(w, s, strlen(s));
    RF_TRY(RF_WRITE_LIT(w, "\""));
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            RF_TRY(RF_WRITE_LIT(w, "\"\""));
        else
            RF_TRY(rf_write(w, p, 1));
    }
    return RF_WRITE_LIT(w, "\"");
}

rf_status rf__write_json_number(rf_writer *w, double v)
{
    if (!isfinite(v)) return RF_WRITE_LIT(w, "null");
    char buf[40];
    rf_number_format(buf, sizeof buf, v);
    return rf_write(w, buf, strlen(buf));
}

rf_status rf_write_wrapped(rf_writer *w, size_t width, const char *first, size_t indent,
                           const char *text)
{
    static const char spaces[] = "                                ";
    size_t col = rf__utf8_cols(first, strlen(first));
    if (indent > sizeof spaces - 1) indent = sizeof spaces - 1;
    if (width < indent + 20) width = indent + 20;
    RF_TRY(rf_write(w, first, strlen(first)));
    size_t line_start_col = col;
    const char *p = text;
    while (*p) {
        while (*p == ' ') p++;
        const char *e = p;
        while (*e && *e != ' ') e++;
        if (e == p) break;
        size_t wc = rf__utf8_cols(p, (size_t)(e - p));
        if (col > line_start_col && col + 1 + wc > width) {
            RF_TRY(RF_WRITE_LIT(w, "\n"));
            RF_TRY(rf_write(w, spaces, indent));
            col = line_start_col = indent;
        } else if (col > line_start_col) {
            RF_TRY(RF_WRITE_LIT(w, " "));
            col++;
        }
        RF_TRY(rf_write(w, p, (size_t)(e - p)));
        col += wc;
        p = e;
    }
    return RF_WRITE_LIT(w, "\n");
}

/* Length of the next byte sequence at s[0..n) that may reach a terminal as it is: 1 for printable
 * ASCII, '\n' and '\t', the sequence's length for UTF-8 outside the C1 controls; 0 for what must
 * not (C0 controls, DEL, C1 controls, bytes that are not UTF-8). */
static size_t rf__printable(const uint8_t *s, size_t n)
{
    uint32_t cp;
    if (s[0] < 0x80) return s[0] >= 0x20 ? (s[0] == 0x7F ? 0 : 1) : (s[0] == '\n' || s[0] == '\t');
    size_t k = rf__utf8_decode(s, n, &cp);
    return k && !(cp >= 0x80 && cp < 0xA0) ? k : 0;
}

char *rf__text_escape(char *dst, size_t cap, const char *src)
{
    const uint8_t *s = (const uint8_t *)src;
    size_t n = strlen(src), i = 0, o = 0;
    if (!cap) return dst;
    while (i < n) {
        size_t k = s[i] == '\n' || s[i] == '\t' ? 0 : rf__printable(s + i, n - i);
        if (k) {
            if (o + k >= cap) break;
            memcpy(dst + o, s + i, k);
            o += k, i += k;
        } else {
            if (o + 4 >= cap) break;
            snprintf(dst + o, 5, "\\x%02x", s[i]);
            o += 4, i++;
        }
    }
    dst[o] = '\0';
    return dst;
}

/* The writer behind rf__clean_writer: runs of printable text pass, anything else becomes '?'. */
static rf_status rf__clean_write(void *user, const char *data, size_t size)
{
    rf_writer *inner = user;
    const uint8_t *s = (const uint8_t *)data;
    size_t run = 0, i = 0;
    while (i < size) {
        size_t k = rf__printable(s + i, size - i);
        if (k) {
            i += k;
            continue;
        }
        RF_TRY(rf_write(inner, data + run, i - run));
        RF_TRY(rf_write(inner, "?", 1));
        run = ++i;
    }
    return rf_write(inner, data + run, i - run);
}

rf_writer rf__clean_writer(rf_writer *inner)
{
    rf_writer w = {rf__clean_write, inner};
    return w;
}
