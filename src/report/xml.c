/* xml.c — escaping of text for the SVG and HTML back ends (XML 1.0 section 2.2 "Characters", 2.4
 * "Character Data"): markup characters become entities, and what XML may not hold (invalid UTF-8,
 * control characters, surrogates, U+FFFE/FFFF) becomes '?'. Never prints. */
#include <stdint.h>
#include <string.h>

#include "core/rf_int.h"
#include "core/text.h"
#include "svg_int.h"

/* Length of the UTF-8 sequence at s (1-4) and its code point, or 0 when invalid (s is
 * NUL-terminated: a NUL ends a sequence before it could be read past). */
static size_t rf__utf8_seq(const unsigned char *s, uint32_t *cp)
{
    return rf__utf8_decode(s, 4, cp);
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
