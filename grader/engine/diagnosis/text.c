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

/* The twiddle w = e^(iπk/8) as the page writes it: 1, −1, i, −i by name,
 * the others as e^(±iπ/d) or e^(±iπ·n/d) in lowest terms; k is taken
 * modulo 16, so any turn names the same angle. */
void text_add_twiddle(struct text *s, int k)
{
    k = ((k % 16) + 16) % 16;
    int signed_k = k > 8 ? k - 16 : k;
    switch (signed_k) {
    case 0: text_add(s, "1"); return;
    case 8: text_add(s, "−1"); return;
    case 4: text_add(s, "i"); return;
    case -4: text_add(s, "−i"); return;
    }
    int num = abs(signed_k), den = 8;
    while (num % 2 == 0) {
        num /= 2;
        den /= 2;
    }
    const char *sign = signed_k < 0 ? "−" : "";
    if (num == 1)
        text_add(s, "e^(%siπ/%d)", sign, den);
    else
        text_add(s, "e^(%siπ·%d/%d)", sign, num, den);
}
