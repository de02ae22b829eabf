/* runs.h - the runs of one grading: which input and parameter each one gets. */
#ifndef BUTTERFLY_RUNS_H
#define BUTTERFLY_RUNS_H

#include <stdint.h>

#include "common/exercise/exercise.h"
#include "engine/gpu.h"

/*
 * Fills the exercise_runs(e) inputs of one grading of exercise e (runs
 * has room for them, at most EX_MAX_RUNS): for each
 * value of its sweep, the visible input, then the e->hidden hidden inputs
 * of `seed` (exercise_hidden_input). Run h * (1 + e->hidden) + s is sweep
 * value h's input s (0: the visible one), laid out compact (gpu.h); the
 * floats past the exercise's input are zero. Nothing else relies on that
 * order (compare.h tells a visible run by its input).
 */
void runs_fill(const struct exercise *e, uint64_t seed, struct gpu_run *runs);

/* Lays exercise e's visible input out as a run's input (compact, plane-major). */
void runs_visible_input(const struct exercise *e, float in[EX_MAX_CELLS]);

#endif
