/* xml.c — escaping of text for the SVG and HTML back ends (XML 1.0 section 2.2 "Characters", 2.4
 * "Character Data"): markup characters become entities, and what XML may not hold (invalid UTF-8,
 * control characters, surrogates, U+FFFE/FFFF) becomes '?'. Never prints. */
#include <stdint.h>
#include <string.h>

#include "core/rf_int.h"
#include "svg_int.h"

/* Length of the UTF-8 sequence at s (1-4) and its code point, or 0 when invalid. */
static size_t rf__utf8_seq(const unsigned char *s, uint32_t *cp)
{
    uint32_t c = s[0], min = 0;
    size_t n;
    if (c < 0x80) return *cp = c, 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, c &= 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, c &= 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, c &= 0x07, min = 0x10000;
    else
        return 0;
    for (size_t k = 1; k < n; k++) {
        if ((s[k] & 0xC0) != 0x80) return 0;
        c = c << 6 | (s[k] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
    return *cp = c, n;
}

static int rf__xml_allowed(uint32_t cp)
{
    if (cp < 0x20) return cp == '\t' || cp == '\n' || cp == '\r';
    if (cp >= 0x7F && cp < 0xA0) return 0; /* C1 controls: allowed by XML, useless in a label */
    return cp != 0xFFFE && cp != 0xFFFF;
}

size_t rf__xml_cols(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = 0;
    while (*u) {
        uint32_t cp;
        size_t k = rf__utf8_seq(u, &cp);
        u += k ? k : 1;
        n++;
    }
    return n;
}

rf_status rf__xml_text(rf_writer *w, const char *s, size_t max)
{
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    size_t total = rf__xml_cols((const char *)u), cols = 0;
    int cut = max && total > max;
    while (*u) {
        if (cut && cols + 1 >= max) return RF_WRITE_LIT(w, "\xE2\x80\xA6");
        uint32_t cp = 0;
        size_t k = rf__utf8_seq(u, &cp);
        const char *rep = NULL;
        if (k == 0 || !rf__xml_allowed(cp))
            rep = "?";
        else if (cp == '&')
            rep = "&amp;";
        else if (cp == '<')
            rep = "&lt;";
        else if (cp == '>')
            rep = "&gt;";
        else if (cp == '"')
            rep = "&quot;";
        else if (cp == '\'')
            rep = "&#39;";
        else if (cp == '\n' || cp == '\r' || cp == '\t')
            rep = " ";
        RF_TRY(rep ? rf_write(w, rep, strlen(rep)) : rf_write(w, (const char *)u, k));
        u += k ? k : 1;
        cols++;
    }
    return RF_OK;
}
