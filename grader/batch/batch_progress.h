/*
 * batch_progress.h - progress on standard error. On a terminal: one line
 * redrawn in place, as wide as the terminal is (a bar, done/total, rate,
 * time left, verdicts so far; the parts that do not fit are left out),
 * the verdicts in colour unless NO_COLOR is set. With TERM=dumb, or when
 * standard error is no terminal: a plain line every few seconds. Nothing
 * when quiet.
 */
#ifndef BUTTERFLY_BATCH_PROGRESS_H
#define BUTTERFLY_BATCH_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/verdict.h"

#define BATCH_PROGRESS_TTY_MS    100    /* between redraws on a terminal */
#define BATCH_PROGRESS_PLAIN_MS  5000   /* between plain lines */
#define BATCH_PROGRESS_COLUMNS   80     /* a terminal's width when neither it nor COLUMNS says */

enum batch_tally { TALLY_AC, TALLY_WA, TALLY_CE, TALLY_TLE, TALLY_RE, TALLY_REJ, TALLY_IE, TALLY_N };

struct batch_progress {
    FILE *out;
    bool tty;                        /* redraw in place: a terminal, not TERM=dumb */
    bool colour;                     /* tty, and NO_COLOR unset or empty */
    bool quiet, drawn;
    double t0_ms, last_ms;
    size_t total, done;
    size_t graded, reused;           /* graded now; results reused from a run before */
    size_t tally[TALLY_N];
};

/* Starts the clock for `total` inputs. out is usually stderr; its being a
 * terminal, TERM and NO_COLOR are read now. */
void batch_progress_init(struct batch_progress *p, FILE *out, size_t total, bool quiet);

/* Counts one input done: graded now (or refused), or reused (`reused`). */
void batch_progress_count(struct batch_progress *p, enum verdict_status s, bool reused);

/* Redraws when due, or now with `force`. */
void batch_progress_tick(struct batch_progress *p, bool force);

/* Ends the bar's line on a terminal. */
void batch_progress_end(struct batch_progress *p);

/*
 * The terminal line for a width of `columns`, without colour: what
 * batch_progress_tick draws, for tests. Writes at most columns - 1
 * characters (a line that fills the last column wraps on some terminals)
 * and returns the count.
 */
size_t batch_progress_line(const struct batch_progress *p, int columns, bool colour,
                           char *out, size_t outsz);

#endif
