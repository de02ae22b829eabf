/* student_id.c - ids a gradebook row can carry, and printable text (student_id.h). */
#include "gradebook/student_id.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (n bytes left) and its code
 * point, or 0 when it is not valid (overlong, surrogate, beyond U+10FFFF). */
static size_t utf8_char(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (len == 0 || s[0] > 0xf4 || n < len)
        return 0;
    uint32_t c = s[0] & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3f);
    }
    static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (c < min[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

static bool is_control(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

static const char not_utf8[] = "is not UTF-8 text", control[] = "holds a control character";

const char *gradebook_text_problem(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = utf8_char(u + i, len - i, &cp);
        if (n == 0)
            return not_utf8;
        if (is_control(cp))
            return control;
        i += n;
    }
    return NULL;
}

bool gradebook_is_utf8(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = utf8_char(u + i, len - i, &cp);
        if (n == 0 || cp == 0)
            return false;
        i += n;
    }
    return true;
}

const char *gradebook_id_problem(const char *id, size_t len)
{
    if (len == 0)
        return "the id is empty";
    if (len > GRADEBOOK_ID_MAX)
        return "the id is over 80 bytes";
    if ((len == 1 && id[0] == '.') || (len == 2 && id[0] == '.' && id[1] == '.'))
        return "the id is \".\" or \"..\"";
    const char *why = gradebook_text_problem(id, len);
    if (why)
        return why == not_utf8 ? "the id is not UTF-8 text" : "the id holds a control character";
    return NULL;
}

char *gradebook_display(const char *s, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    if (len > SIZE_MAX / 3 - 1)
        return NULL;
    char *out = malloc(3 * len + 1);
    if (!out)
        return NULL;
    const unsigned char *u = (const unsigned char *)s;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = utf8_char(u + i, len - i, &cp);
        if (n == 0 || is_control(cp)) {
            /* one byte at a time: the next one may start valid text */
            out[o++] = '%';
            out[o++] = hex[u[i] >> 4];
            out[o++] = hex[u[i] & 15];
            i++;
        } else {
            memcpy(out + o, u + i, n);
            o += n;
            i += n;
        }
    }
    out[o] = '\0';
    return out;
}
