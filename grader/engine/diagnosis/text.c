/* text.c - a string that grows as the diagnosis writes it. */
#include "engine/diagnosis/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void text_add(struct text *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || s->failed) {
        s->failed = true;
        return;
    }
    if (s->len + (size_t)n + 1 > s->cap) {
        size_t cap = (s->len + (size_t)n + 1) * 2;
        char *buf = realloc(s->buf, cap);
        if (!buf) {
            s->failed = true;
            return;
        }
        s->buf = buf;
        s->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
    va_end(ap);
    s->len += (size_t)n;
}

char *text_take(struct text *s)
{
    if (s->failed || !s->buf) {
        free(s->buf);
        return s->failed ? NULL : strdup("");
    }
    return s->buf;
}
