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

#include "common/exercise/exercise.h"
#include "common/verdict.h"

#define SCORE_VISIBLE_POINTS 1
#define SCORE_HIDDEN_POINTS  2
#define SCORE_PER_VALUE      (SCORE_VISIBLE_POINTS + SCORE_HIDDEN_POINTS)
/* The most any exercise can hold: tests and points of EX_MAX_SWEEP values. */
#define SCORE_TESTS_MAX      (2 * EX_MAX_SWEEP)
#define SCORE_MAX            (EX_MAX_SWEEP * SCORE_PER_VALUE)

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
    int halves_passed;           /* sweep values right on every input (the butterfly: 0..3) */
    int hidden_passed;           /* hidden inputs right over all values (the butterfly: 0..24) */
    int ntests;                  /* 2 per sweep value of the verdict's exercise */
    struct score_test tests[SCORE_TESTS_MAX];   /* per value: visible, then hidden */
};

/* The points of exercise e's Accepted: SCORE_PER_VALUE per sweep value. */
int score_max_of(const struct exercise *e);

/* The exercise a verdict's points are counted over: the one its task
 * names, else (a record of an exercise no longer built in) the default. */
const struct exercise *score_exercise_of(const struct verdict *v);

/* Scores a verdict into *s (which needs no release). */
void score_verdict(const struct verdict *v, struct score *s);

#endif
