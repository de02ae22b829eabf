/* sse.c - Server-Sent Events' framing, written in one place. */
#include "server/core/sse.h"

#include <string.h>

/* A field's value may not break its line. */
static bool one_line(const char *s)
{
    return !s || !strpbrk(s, "\r\n");
}

bool sse_put(FILE *f, const struct sse_event *e)
{
    if (!one_line(e->comment) || !one_line(e->id) || !one_line(e->event) || !one_line(e->data))
        return false;
    if (e->retry_ms)
        fprintf(f, "retry: %u\n", e->retry_ms);
    if (e->comment)
        fprintf(f, ": %s\n", e->comment);
    if (e->id)
        fprintf(f, "id: %s\n", e->id);
    if (e->event)
        fprintf(f, "event: %s\n", e->event);
    if (e->data)
        fprintf(f, "data: %s\n", e->data);
    return fputc('\n', f) != EOF && !ferror(f);
}

size_t sse_format(char *out, size_t outsz, const struct sse_event *e)
{
    if (!outsz)
        return 0;
    FILE *f = fmemopen(out, outsz, "w");
    if (!f)
        return 0;
    bool ok = sse_put(f, e);
    long n = ftell(f);
    /* fmemopen keeps the last byte for the NUL: a full buffer is too small */
    ok = fclose(f) == 0 && ok && n > 0 && (size_t)n < outsz - 1;
    if (!ok) {
        out[0] = '\0';
        return 0;
    }
    out[n] = '\0';
    return (size_t)n;
}
