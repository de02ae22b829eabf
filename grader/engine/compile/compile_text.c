/* compile_text.c - compiler text made safe to show (see compile_text.h). */
#include "engine/compile/compile_text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of the UTF-8 sequence at s (at most n bytes) and its code
 * point, or 0 when the bytes are not UTF-8 (overlong forms, surrogates and
 * values past U+10FFFF included). */
static size_t utf8_at(const unsigned char *s, size_t n, uint32_t *cp)
{
    size_t len;
    uint32_t c = s[0], min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, c &= 0x1f, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, c &= 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, c &= 0x07, min = 0x10000;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (s[k] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

static bool invisible(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

char *compile_text_visible(const char *s, size_t len, size_t max, bool keep_newlines, bool *cut)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t room = max < 16 ? 16 : max;
    /* a byte becomes at most 6 (an escape), so len * 6 bounds the copy;
     * the mark is written only where the copy is at most room - 3 */
    size_t cap = (len < room / 6 ? len * 6 : room) + 4;
    char *out = malloc(cap + 1);
    if (!out)
        return NULL;
    size_t n = 0;
    for (size_t at = 0; at < len;) {
        char piece[8];
        size_t plen;
        uint32_t cp = 0;
        size_t clen = utf8_at(u + at, len - at, &cp);
        if (clen == 0) {
            plen = (size_t)snprintf(piece, sizeof piece, "\\x%02x", u[at]);
            clen = 1;
        } else if ((cp < 0x20 && !(cp == '\n' && keep_newlines)) || cp == 0x7f) {
            plen = (size_t)snprintf(piece, sizeof piece, "\\x%02x", (unsigned)cp);
        } else if (invisible(cp)) {
            plen = (size_t)snprintf(piece, sizeof piece, "\\u%04x", (unsigned)cp);
        } else {
            memcpy(piece, u + at, clen);
            plen = clen;
        }
        /* keep room for the mark unless this piece ends the text exactly */
        bool last = at + clen == len;
        if (n + plen > room - (last ? 0 : strlen(COMPILE_TEXT_CUT_MARK))) {
            memcpy(out + n, COMPILE_TEXT_CUT_MARK, strlen(COMPILE_TEXT_CUT_MARK));
            n += strlen(COMPILE_TEXT_CUT_MARK);
            if (cut)
                *cut = true;
            break;
        }
        memcpy(out + n, piece, plen);
        n += plen;
        at += clen;
    }
    out[n] = '\0';
    return out;
}
