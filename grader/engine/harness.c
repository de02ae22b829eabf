/* harness.c - fills the embedded harness template for an exercise and
 * splices a body in. */
#include "engine/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/harness_template.h"

/* A template line that begins so is the template's own comment. */
#define OWN_LINE "//@"

/* What is written so far; with no buffer, only counted (the first pass). */
struct text {
    char *buf;
    size_t len;
};

static void put(struct text *t, const char *s, size_t n)
{
    if (t->buf)
        memcpy(t->buf + t->len, s, n);
    t->len += n;
}

static void put_str(struct text *t, const char *s)
{
    put(t, s, strlen(s));
}

/* Text for a // comment: a control character (a newline would end the
 * comment and make the rest code) becomes a space. */
static void put_comment_text(struct text *t, const char *s)
{
    for (; *s; s++)
        put(t, (unsigned char)*s < 0x20 || *s == 0x7f ? " " : s, 1);
}

static void put_int(struct text *t, long n)
{
    char num[24];
    put(t, num, (size_t)snprintf(num, sizeof num, "%ld", n));
}

/* The order of the output cells, for the harness's comment. The course's
 * two-plane data are complex numbers (plane 0 real, 1 imaginary), as the
 * butterfly's page names them. */
static void put_out_order(struct text *t, const struct exercise *e)
{
    char s[80];
    if (e->out_planes == 2)
        snprintf(s, sizeof s, "re[0..%d], then im[0..%d]", e->out_n - 1, e->out_n - 1);
    else if (e->out_planes == 1)
        snprintf(s, sizeof s, "[0..%d]", e->out_n - 1);
    else
        snprintf(s, sizeof s, "[0..%d] of each plane in turn", e->out_n - 1);
    put_str(t, s);
}

/* The value of placeholder `name` (n bytes); false for a name the
 * template should not have. */
static bool put_value(struct text *t, const struct exercise *e, const char *name, size_t n,
                      const char *body, size_t len)
{
#define IS(s) (n == sizeof(s) - 1 && !memcmp(name, s, n))
    if (IS("BODY"))
        put(t, body, len);
    else if (IS("TITLE"))
        put_comment_text(t, e->title);
    else if (IS("FUNCTION"))
        put_str(t, e->function);
    else if (IS("PARAM"))
        put_str(t, e->param);
    else if (IS("INPUT"))
        put_str(t, e->input);
    else if (IS("IN_N"))
        put_int(t, e->in_n);
    else if (IS("IN_PLANES"))
        put_int(t, e->in_planes);
    else if (IS("IN_BYTES"))   /* bf_in_block in std430: the int, then the floats */
        put_int(t, 4L + 4L * e->in_n * e->in_planes);
    else if (IS("OUT_N"))
        put_int(t, e->out_n);
    else if (IS("OUT_PLANES"))
        put_int(t, e->out_planes);
    else if (IS("CELLS"))
        put_int(t, exercise_out_cells(e));
    else if (IS("OUT_ORDER"))
        put_out_order(t, e);
    else if (IS("CALL_INDENT")) {
        /* the call's second argument lines up under its first, as
         * "    bf_out.bf_value[bf_cell] = FUNCTION(" is long */
        size_t indent = strlen("    bf_out.bf_value[bf_cell] = ") + strlen(e->function) + 1;
        for (size_t k = 0; k < indent; k++)
            put(t, " ", 1);
    } else
        return false;
#undef IS
    return true;
}

/* One pass over the template: counts (t->buf NULL) or writes. */
static bool fill(struct text *t, const struct exercise *e, const char *body, size_t len)
{
    const char *s = harness_template;
    while (*s) {
        const char *eol = strchr(s, '\n');
        const char *next = eol ? eol + 1 : s + strlen(s);
        if (!strncmp(s, OWN_LINE, strlen(OWN_LINE))) {
            s = next;
            continue;
        }
        while (s < next) {
            const char *at = memchr(s, '@', (size_t)(next - s));
            const char *close = at ? memchr(at + 1, '@', (size_t)(next - at - 1)) : NULL;
            if (!close) {
                put(t, s, (size_t)(next - s));
                break;
            }
            put(t, s, (size_t)(at - s));
            if (!put_value(t, e, at + 1, (size_t)(close - at - 1), body, len))
                return false;
            s = close + 1;
        }
        s = next;
    }
    return true;
}

char *harness_assemble(const struct exercise *e, const char *body, size_t len,
                       size_t *out_len)
{
    struct text count = { NULL, 0 };
    if (!fill(&count, e, body, len))
        return NULL;    /* the template is built in: tests catch this */
    struct text t = { malloc(count.len + 1), 0 };
    if (!t.buf)
        return NULL;
    fill(&t, e, body, len);
    t.buf[t.len] = '\0';
    *out_len = t.len;
    return t.buf;
}
