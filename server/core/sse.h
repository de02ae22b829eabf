/* sse.h - the one writer of Server-Sent Events' framing. */
#ifndef BUTTERFLY_SSE_H
#define BUTTERFLY_SSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One event's fields; a NULL (or 0) field is left out. */
struct sse_event {
    unsigned retry_ms;     /* "retry:": the client's reconnect delay */
    const char *comment;   /* ": ..." (a heartbeat, a banner) */
    const char *id;        /* "id:": what Last-Event-ID will say on reconnect */
    const char *event;     /* "event:" */
    const char *data;      /* "data:", one line (compact JSON) */
};

/* Writes e to f, ended by the blank line that dispatches it. False when
 * a field holds a line break (it would forge another field) or f fails. */
bool sse_put(FILE *f, const struct sse_event *e);

/* As sse_put into out (outsz bytes, NUL-terminated): its length, 0 when
 * it does not fit or a field is refused. */
size_t sse_format(char *out, size_t outsz, const struct sse_event *e);

#endif
