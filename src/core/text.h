/* text.h — the text helpers every module shares, written once: UTF-8 decoding, display columns,
 * JSON strings and numbers, CSV fields (word wrapping is public: rf_write_wrapped in buf.h).
 * Writers go through rf_writer. Never installed; never included by cli/. */
#ifndef RF_CORE_TEXT_H
#define RF_CORE_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "roofline/buf.h"

/* The well-formed UTF-8 sequence at s[0..avail) (RFC 3629: no overlongs, no surrogates, nothing
 * above U+10FFFF): its length 1-4 and code point in *cp (may be NULL), or 0 when it is not one. */
size_t rf__utf8_decode(const uint8_t *s, size_t avail, uint32_t *cp);

/* Number of code points in s[0..n) (display columns for the text we print). */
size_t rf__utf8_cols(const char *s, size_t n);

/* Write s as a JSON string literal (quotes included; RFC 8259 section 7): quote, backslash and
 * control characters escaped, bytes that are not UTF-8 written as U+FFFD, so the output is always
 * valid JSON whatever the input held. */
rf_status rf__write_json_string(rf_writer *w, const char *s);

/* The same for at most `n` bytes of s. */
rf_status rf__write_json_stringn(rf_writer *w, const char *s, size_t n);

/* JSON number: shortest round-trip text; null for NaN and infinities. */
rf_status rf__write_json_number(rf_writer *w, double v);

/* Write s as a CSV field (quoted when it holds a comma, quote, CR or LF; RFC 4180). */
rf_status rf__write_csv_field(rf_writer *w, const char *s);

/* Copy src into dst (cap bytes, always NUL-terminated, cut at a whole item) with what must not
 * reach a terminal made visible as \xNN: C0 controls (newline and tab too), DEL, C1 controls and
 * bytes that are not UTF-8. For one-line messages. Returns dst. */
char *rf__text_escape(char *dst, size_t cap, const char *src);

/* A writer that passes printable text (UTF-8, newline and tab included) to `inner` and writes '?'
 * for every C0 control, DEL, C1 control and byte that is not UTF-8, so that names read from files
 * can neither clear a screen nor forge a line of a text report. `inner` must outlive it. */
rf_writer rf__clean_writer(rf_writer *inner);

#endif
