/* runs.h - the runs of one grading: which spectrum and half each one gets. */
#ifndef BUTTERFLY_RUNS_H
#define BUTTERFLY_RUNS_H

#include <stdint.h>

#include "common/task.h"
#include "engine/gpu.h"

/*
 * Fills the TASK_RUNS inputs of one grading dispatch: for each half, the
 * visible spectrum, then the TASK_HIDDEN hidden spectra of `seed`. Run
 * h * (1 + TASK_HIDDEN) + s is half h's spectrum s (0: the visible one);
 * nothing else relies on that order (compare.h tells a visible run by its
 * spectrum).
 */
void runs_fill(uint64_t seed, struct gpu_run runs[TASK_RUNS]);

#endif
