/* runset.h - the runs of one grading, grouped by half, visible ones first. */
#ifndef BUTTERFLY_RUNSET_H
#define BUTTERFLY_RUNSET_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/diagnosis/diagnose.h"
#include "engine/gpu.h"

/*
 * Which runs belong to which half of the task: of half index h, runs
 * run[h][0..n[h]), the visible spectrum's first (nvisible[h] of them), so
 * that a search can rule a guess out on the visible runs before it pays
 * for the hidden ones; order[] lists the half indices, the largest half
 * first (where mistakes show most).
 */
struct runset {
    int n[BF_NHALVES], nvisible[BF_NHALVES];
    int run[BF_NHALVES][BF_RUNS];
    int order[BF_NHALVES];
};

/* Groups runs[0..nruns) of task t; false when nruns is 0 or over BF_RUNS. */
bool runset_init(struct runset *rs, const struct exercise *t, const struct gpu_run *runs,
                 size_t nruns);

/* The inputs of a run as the planes they are (re[0..7], then im[0..7]). */
const float (*runset_input(const struct gpu_run *run))[BF_N];

#endif
