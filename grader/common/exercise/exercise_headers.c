/* exercise_headers.c - the first lines of solution and mistake files. */
#include "common/exercise/exercise_headers.h"

#include <stdio.h>
#include <string.h>

bool exercise_headers_text_ok(const char *s, size_t len, size_t max)
{
    if (len == 0 || len > max)
        return false;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return false;
    return true;
}

/* The text after an optional UTF-8 byte-order mark, which some editors
 * write first. */
static const char *skip_bom(const char *s, size_t *len)
{
    if (*len >= 3 && memcmp(s, "\357\273\277", 3) == 0) {
        *len -= 3;
        return s + 3;
    }
    return s;
}

/* Line `s` (up to \n or end) without its \r and trailing blanks. */
static size_t line_len(const char *s, const char *end)
{
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t n = (size_t)((nl ? nl : end) - s);
    while (n && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return n;
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* A line quoted in a message: short, printable. */
#define QUOTE_LEN 48
static void quote_line(const char *s, size_t n, char *out, size_t outlen)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 4 < outlen; i++)
        out[k++] = (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f ? s[i] : '?';
    if (k < n)
        memcpy(out + k, "...", 3), k += 3;
    out[k] = '\0';
}

static bool word_is(const char *w, size_t n, const char *want)
{
    return n == strlen(want) && memcmp(w, want, n) == 0;
}

bool exercise_headers_expect(const char *text, size_t len, enum exercise_expect *expect,
                             char mistake[EX_ID_MAX + 1], char *why, size_t whylen)
{
    const char *line = skip_bom(text ? text : "", &len);
    size_t n = line_len(line, line + len);
    const char *p = line, *end = line + n;
    char q[QUOTE_LEN];
    quote_line(line, n, q, sizeof q);
    mistake[0] = '\0';
    /* "//", blanks, "expect:", blanks, a word, blanks, an id: as people type it */
    bool ok = n >= 2 && memcmp(p, "//", 2) == 0;
    p = ok ? skip_blanks(p + 2, end) : p;
    ok = ok && end - p >= 7 && memcmp(p, "expect:", 7) == 0;
    p = ok ? skip_blanks(p + 7, end) : p;
    const char *word = p;
    while (p < end && *p != ' ' && *p != '\t')
        p++;
    size_t wlen = (size_t)(p - word);
    p = skip_blanks(p, end);
    if (ok && word_is(word, wlen, "accepted") && p == end) {
        *expect = EXPECT_ACCEPTED;
        return true;
    }
    if (!ok || !word_is(word, wlen, "wrong")) {
        snprintf(why, whylen, "the first line must be \"// expect: accepted\", "
                 "\"// expect: wrong\" or \"// expect: wrong MISTAKE-ID\" (got \"%s\")", q);
        return false;
    }
    *expect = EXPECT_WRONG;
    size_t idlen = (size_t)(end - p);
    if (idlen <= EX_ID_MAX) {
        memcpy(mistake, p, idlen);
        mistake[idlen] = '\0';
    }
    if (idlen == 0 || (idlen <= EX_ID_MAX && exercise_id_valid(mistake)))
        return true;
    mistake[0] = '\0';
    snprintf(why, whylen, "the mistake id must be 1 to %d bytes of [a-z0-9_-] (got \"%s\")",
             EX_ID_MAX, q);
    return false;
}

/* The value of a "// KEY: value" line, or NULL. */
static const char *header_value(const char *line, size_t n, const char *key, size_t *vlen)
{
    size_t k = strlen(key);
    if (n < 3 + k + 1 || memcmp(line, "// ", 3) != 0 || memcmp(line + 3, key, k) != 0 ||
        line[3 + k] != ':')
        return NULL;
    const char *v = skip_blanks(line + 3 + k + 1, line + n);
    *vlen = (size_t)(line + n - v);
    return v;
}

/* One value into `out` (a title or a hint): once, one line, bounded. */
static bool take_once(const char *v, size_t vlen, char *out, size_t max, char *why, size_t whylen)
{
    if (out[0]) {
        snprintf(why, whylen, "given twice");
        return false;
    }
    if (!exercise_headers_text_ok(v, vlen, max)) {
        snprintf(why, whylen, "must be 1 to %zu bytes, no control characters", max);
        return false;
    }
    memcpy(out, v, vlen);
    out[vlen] = '\0';
    return true;
}

bool exercise_headers_mistake(const char *text, size_t len, struct exercise_mistake_header *out,
                              const char **field, char *why, size_t whylen)
{
    const char *p = skip_bom(text ? text : "", &len);
    const char *end = p + len;
    size_t plen = 0;
    memset(out, 0, sizeof *out);
    while (end - p >= 2 && p[0] == '/' && p[1] == '/') {
        size_t n = line_len(p, end), vlen;
        const char *v;
        if ((v = header_value(p, n, "title", &vlen))) {
            *field = "title";
            if (!take_once(v, vlen, out->title, EX_LOAD_MAX_TEXT, why, whylen))
                return false;
        } else if ((v = header_value(p, n, "hint", &vlen))) {
            *field = "hint";
            if (!take_once(v, vlen, out->hint, EX_LOAD_MAX_TEXT, why, whylen))
                return false;
        } else if ((v = header_value(p, n, "explanation", &vlen))) {
            *field = "explanation";
            if (!exercise_headers_text_ok(v, vlen, EX_LOAD_MAX_TEXT) ||
                plen + 1 + vlen > EX_LOAD_MAX_PARAGRAPH) {
                snprintf(why, whylen, "each line 1 to %d bytes, the paragraph at most %d",
                         EX_LOAD_MAX_TEXT, EX_LOAD_MAX_PARAGRAPH);
                return false;
            }
            if (plen)
                out->explanation[plen++] = ' ';
            memcpy(out->explanation + plen, v, vlen);
            plen += vlen;
        }
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    if (!out->title[0]) {
        *field = "title";
        snprintf(why, whylen, "missing (a \"// title: ...\" line at the top)");
        return false;
    }
    if (!plen) {
        *field = "explanation";
        snprintf(why, whylen, "missing (\"// explanation: ...\" lines at the top, one paragraph)");
        return false;
    }
    return true;
}
