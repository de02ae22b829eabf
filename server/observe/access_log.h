/*
 * access_log.h - one line per request, safe to read on a terminal.
 *
 * Every field may come from the client (the method, the path, a header):
 * a byte that is not printable ASCII would reach the operator's terminal
 * as an escape sequence, a carriage return that rewrites the line, a
 * backspace, a C1 control or a bidirectional override that reorders what
 * is shown. Such bytes, spaces included, are written as \xHH, so a line
 * always has the same fields in the same places.
 */
#ifndef BUTTERFLY_ACCESS_LOG_H
#define BUTTERFLY_ACCESS_LOG_H

#include <stdint.h>
#include <stdio.h>

#include "common/client_id.h"

struct access_log_entry {
    const struct client_id *client;       /* printed here; NULL: "-" */
    const char *method, *path;            /* as received; may be NULL */
    unsigned status;
    double ms;
    const char *verdict;                  /* a status slug, or NULL */
    uint64_t seed;                        /* of a graded job; 0 when none */
    double wait_ms;                       /* queued before grading; < 0 when none */
    const char *note;                     /* the server's own words ("(connection
                                             closed)"), written as they are; or NULL */
};

/*
 * Copies s into out (outsz > 0, always NUL-terminated), every byte outside
 * '!'..'~' and every backslash written as \xHH, cut to fit. NULL or "" is
 * "-". Returns out.
 */
char *access_log_sanitize(const char *s, char *out, size_t outsz);

/* Writes one line: UTC time, client, method, path, status, duration,
 * verdict, seed, wait, note. Each field a client can touch is sanitized;
 * the client is an address, formatted from binary. */
void access_log_write(FILE *f, const struct access_log_entry *e);

#endif
