/*
 * batch_progress.h - progress on standard error: a bar redrawn in place
 * on a terminal (done/total, rate, time left, verdicts so far), a plain
 * line every few seconds otherwise, nothing when quiet.
 */
#ifndef BUTTERFLY_BATCH_PROGRESS_H
#define BUTTERFLY_BATCH_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "verdict.h"

enum batch_tally { TALLY_AC, TALLY_WA, TALLY_CE, TALLY_TLE, TALLY_RE, TALLY_REJ, TALLY_IE, TALLY_N };

struct batch_progress {
    FILE *out;
    bool tty, quiet, drawn;
    double t0_ms, last_ms;
    size_t total, done;
    size_t graded, reused;           /* graded now; results reused from a run before */
    size_t tally[TALLY_N];
};

/* Starts the clock for `total` inputs. out is usually stderr. */
void batch_progress_init(struct batch_progress *p, FILE *out, size_t total, bool quiet);

/* Counts one input done: graded now (or refused), or reused (`reused`). */
void batch_progress_count(struct batch_progress *p, enum verdict_status s, bool reused);

/* Redraws when due (10 times a second on a terminal, every 5 s otherwise),
 * or now with `force`. */
void batch_progress_tick(struct batch_progress *p, bool force);

/* Ends the bar's line on a terminal. */
void batch_progress_end(struct batch_progress *p);

#endif
