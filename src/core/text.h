/* text.h — the text helpers every module shares, written once: UTF-8 decoding, display columns,
 * JSON strings and numbers, CSV fields (word wrapping is public: rf_write_wrapped in buf.h). Writers go through rf_writer. Never
 * installed; never included by cli/. */
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


#endif
