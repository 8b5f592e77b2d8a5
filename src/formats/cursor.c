/* cursor.c — the out-of-line helpers of the shared byte cursor: UTF-8 validation (RFC 3629,
 * Table 3-7 of the Unicode Standard: well-formed byte sequences) and printable excerpts of input
 * for error messages. Never allocates, never sets an error. */
#include "core/text.h"
#include "formats/cursor.h"

size_t rf__utf8_check(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (s[i] < 0x80) { /* ASCII fast path */
            i++;
            continue;
        }
        size_t len = rf__utf8_decode(s + i, n - i, NULL);
        if (!len) return i;
        i += len;
    }
    return n;
}

/* Append the rendering of byte b at out[*len], if it fits before `limit`. Returns 0 when not. */
static int rf__excerpt_byte(char *out, size_t limit, size_t *len, uint8_t b)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[4];
    size_t k = 0;
    if (b == '"' || b == '\\') {
        tmp[k++] = '\\';
        tmp[k++] = (char)b;
    } else if (b >= 0x20 && b < 0x7F) {
        tmp[k++] = (char)b;
    } else {
        tmp[k++] = '\\';
        tmp[k++] = 'x';
        tmp[k++] = hex[b >> 4];
        tmp[k++] = hex[b & 15];
    }
    if (*len + k > limit) return 0;
    memcpy(out + *len, tmp, k);
    *len += k;
    return 1;
}

const char *rf__excerpt(char *out, size_t cap, const void *s, size_t n, size_t max)
{
    const uint8_t *b = s;
    size_t len = 0;
    if (cap == 0) return out;
    if (cap < 5) { /* no room for anything useful */
        out[0] = '\0';
        return out;
    }
    size_t limit = cap - 4; /* keep room for "..." and the terminator */
    size_t i = 0;
    while (i < n && i < max && rf__excerpt_byte(out, limit, &len, b[i])) i++;
    if (i < n) {
        memcpy(out + len, "...", 3);
        len += 3;
    }
    out[len] = '\0';
    return out;
}
