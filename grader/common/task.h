/* task.h - the butterfly's table as it was before exercises/ (a test holds
 * exercises/butterfly to it) and the limits that are no exercise's; the
 * engine reads struct exercise (common/exercise/exercise.h). */
#ifndef BUTTERFLY_TASK_H
#define BUTTERFLY_TASK_H

#include <stddef.h>
#include <stdint.h>

#include "common/defaults.h"

#define TASK_N          8   /* complex elements per spectrum */
#define TASK_PLANES     2   /* 0 real, 1 imaginary */
#define TASK_CELLS      (TASK_N * TASK_PLANES)
#define TASK_NHALVES    3
#define TASK_HIDDEN     8   /* hidden random spectra per half */
#define TASK_RUNS       (TASK_NHALVES * (1 + TASK_HIDDEN))
#define TASK_MAX_SOURCE (64 * 1024)
#define TASK_DEFAULT_SEED 20261129u
/* The butterfly's loop budget: the largest there is (common/defaults.h);
 * none of its kernels needs a loop at all. */
#define TASK_LOOP_BUDGET MAX_LOOP_BUDGET

/* One kernel-API name as the page and the docs show it. */
struct task_api_name {
    const char *name;
    const char *type;
    const char *meaning;
};

struct task {
    const char *id;
    const char *title;
    const char *subtitle;            /* "Task 2 of 6" */
    int halves[TASK_NHALVES];
    float visible[TASK_PLANES][TASK_N];
    double atol, rtol;
    unsigned loop_budget;            /* TASK_LOOP_BUDGET */
    const char *signature;           /* the line shown above the body */
    const char *starter;             /* the body a student starts from */
    const struct task_api_name *api; /* terminated by a NULL name */
};

extern const struct task task_butterfly;

/*
 * Fills spec with the hidden spectrum number `index` for `seed`: values in
 * [-2, 2] on a 1/64 grid, so every input is exact in float and in decimal.
 * The same (seed, index) always gives the same spectrum on every machine.
 */
void task_hidden_spectrum(uint64_t seed, unsigned index,
                          float spec[TASK_PLANES][TASK_N]);

#endif
