/* verdict_facts.c - the facts a record keeps of a verdict (see verdict_facts.h). */
#include "common/verdict_facts.h"

#include <stdio.h>
#include <string.h>

#include "common/score.h"
#include "common/verdict.h"

/* Copies in into out (size bytes), cut before a character that would not
 * fit whole. */
static void copy_cut(char *out, size_t size, const char *in)
{
    size_t n = in ? strlen(in) : 0;
    if (n >= size) {
        n = size - 1;
        /* back off to the start of the character at the cut */
        while (n > 0 && ((unsigned char)in[n] & 0xc0) == 0x80)
            n--;
    }
    if (n)
        memcpy(out, in, n);
    out[n] = '\0';
}

/* The length of the UTF-8 character at p (before end), 0 when the bytes
 * there are not one: no overlong forms, no surrogates, nothing past
 * U+10FFFF. */
static size_t char_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = *p;
    size_t more = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2
                : (c & 0xf8) == 0xf0 ? 3 : 4;
    if (more == 4 || (size_t)(end - p) <= more || c == 0xc0 || c == 0xc1 || c > 0xf4)
        return 0;
    for (size_t i = 1; i <= more; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) ||
        (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
        return 0;
    return more + 1;
}

/* Makes the NUL-terminated s valid UTF-8, a '?' for each byte that is not
 * part of a character: a driver's or a compiler's text is not to be
 * trusted to be, and the supervisor refuses facts that are not. */
static void make_utf8(char *s)
{
    unsigned char *p = (unsigned char *)s, *end = p + strlen(s);
    while (p < end) {
        size_t n = char_len(p, end);
        if (n == 0) {
            *p = '?';
            n = 1;
        }
        p += n;
    }
}

void verdict_facts_of(const struct verdict *v, struct verdict_facts *out)
{
    memset(out, 0, sizeof *out);
    struct score s;
    score_verdict(v, &s);
    out->points = s.score;
    out->max_points = s.max_score;
    struct verdict_shown *sh = &out->shown;
    for (int k = 0; k < EX_MAX_SWEEP; k++)
        sh->halves[k] = k < v->halves_run ? (v->halves[k].passed ? 1 : 0) : -1;
    const struct diagnosis *d = v->diagnosis;
    char key[VERDICT_FACTS_TEXT + 16];
    if (d && d->id && *d->id) {
        snprintf(key, sizeof key, "mistake:%s", d->id);
        copy_cut(sh->key, sizeof sh->key, key);
        copy_cut(sh->label, sizeof sh->label, d->title && *d->title ? d->title : d->id);
    } else if (v->status == VERDICT_COMPILATION_ERROR && v->ndiags) {
        const char *text = v->diags[0].message ? v->diags[0].message : "compile error";
        snprintf(key, sizeof key, "compile:%s", text);   /* cut again below, whole characters */
        copy_cut(sh->key, sizeof sh->key, key);
        copy_cut(sh->label, sizeof sh->label, text);
    }
    copy_cut(out->device, sizeof out->device, v->device_name);
    make_utf8(sh->key);
    make_utf8(sh->label);
    make_utf8(out->device);
}

/* Whether s[0..size) holds a NUL and is valid UTF-8 before it. */
static bool text_sane(const char *s, size_t size)
{
    const unsigned char *p = (const unsigned char *)s;
    const unsigned char *end = memchr(p, '\0', size);
    if (!end)
        return false;
    while (p < end) {
        size_t n = char_len(p, end);
        if (n == 0)
            return false;
        p += n;
    }
    return true;
}

bool verdict_facts_sane(const struct verdict_facts *f)
{
    const struct verdict_shown *sh = &f->shown;
    for (int k = 0; k < EX_MAX_SWEEP; k++)
        if (sh->halves[k] < -1 || sh->halves[k] > 1)
            return false;
    return f->points <= f->max_points && f->max_points <= SCORE_MAX &&
           text_sane(sh->key, sizeof sh->key) && text_sane(sh->label, sizeof sh->label) &&
           text_sane(f->device, sizeof f->device);
}
