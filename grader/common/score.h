/*
 * score.h - points for a verdict, as tests a gradebook and
 * Gradescope show.
 *
 * Two tests per half (1, 2, 4): the visible spectrum, 1 point, shown to
 * the student; the hidden spectra, 2 points, shown once grades are
 * published. A test passes when every cell of it is right; only a kernel
 * that ran (Accepted or Wrong Answer) can pass one. Accepted is 9 of 9.
 * A visible test's output speaks of the visible spectrum only; whatever
 * depends on the hidden spectra (the verdict, the diagnosis) is in the
 * hidden tests' outputs.
 */
#ifndef BUTTERFLY_SCORE_H
#define BUTTERFLY_SCORE_H

#include <stdbool.h>

#include "common/task.h"
#include "common/verdict.h"

#define SCORE_TESTS          (2 * TASK_NHALVES)
#define SCORE_VISIBLE_POINTS 1
#define SCORE_HIDDEN_POINTS  2
#define SCORE_MAX      (TASK_NHALVES * (SCORE_VISIBLE_POINTS + SCORE_HIDDEN_POINTS))

struct score_test {
    char name[64];               /* "half = 2, hidden spectra" */
    int score, max_score;
    bool passed;
    bool hidden;
    const char *visibility;      /* Gradescope's: "visible" or "after_published" */
    char output[2048];           /* what went wrong, or that all is right */
};

struct score {
    int score, max_score;
    int halves_passed;           /* halves right on every spectrum, 0..3 */
    int hidden_passed;           /* hidden spectra right over all halves, 0..24 */
    struct score_test tests[SCORE_TESTS];   /* per half: visible, then hidden */
};

/* Scores a verdict into *s (which needs no release). */
void score_verdict(const struct verdict *v, struct score *s);

#endif
