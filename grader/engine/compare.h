/* compare.h - whether the outputs of a grading are right, cell by cell. */
#ifndef BUTTERFLY_COMPARE_H
#define BUTTERFLY_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/exercise/exercise.h"
#include "engine/gpu.h"

/*
 * True when `got` is within atol + rtol * |expected| of `expected`.
 * A NaN or an infinity in `got` never passes (the output buffer is filled
 * with NaN before the run, so a cell the kernel did not write fails), and
 * -0.0 equals +0.0. `expected` must be finite.
 */
bool compare_cell(double expected, double got, double atol, double rtol);

/* Whether a run is on exercise e's visible input (else a hidden one): the
 * one place that decides it. */
bool compare_run_is_visible(const struct exercise *e, const struct gpu_run *run);

/* One run of a grading, judged; its cells [plane][index] are the
 * exercise's out_planes x out_n. */
struct compared_run {
    const struct gpu_run *run;                    /* its half and input, as dispatched */
    int half_index;                               /* in e->sweep; -1 when not the exercise's */
    bool visible;                                 /* on the visible input */
    double expected[EX_MAX_PLANES][EX_MAX_N];     /* the reference, computed once here */
    const float *got;                             /* its outputs, plane-major: got[p * out_n + i] */
    bool passed[EX_MAX_PLANES][EX_MAX_N];
    uint32_t loop[EX_MAX_PLANES][EX_MAX_N];       /* loop (from 1) that ran over, or 0 */
    bool all_passed;
};

/*
 * Everything a verdict and a diagnosis read about the outputs. It points
 * into the caller's runs and outputs, which must outlive it.
 */
struct comparison {
    const struct exercise *ex;
    const struct gpu_run *runs;                   /* runs[0..nruns) */
    const float *out;                             /* nruns * out cells, run by run */
    size_t nruns;
    struct compared_run run[EX_MAX_RUNS];
    bool half_passed[EX_MAX_SWEEP];               /* every run of the half right */
    int hidden_passed[EX_MAX_SWEEP], hidden_total[EX_MAX_SWEEP];
    const struct compared_run *visible[EX_MAX_SWEEP];   /* the half's visible run, or NULL */
    const struct compared_run *overrun;           /* the first run over the loop budget
                                                     (visible runs first), or NULL */
    int overrun_cell;                             /* its first cell over: plane * out_n + i */
    bool all_passed;                              /* every cell of every run, no overrun */
};

/*
 * Judges outputs `out` (nruns * exercise_out_cells(e) floats) of `runs`
 * against exercise e's reference and tolerances, with the loop marks
 * `marks` (the same layout; NULL when no loop was counted), into *c. Pure:
 * no device, no allocation. False, with *c zeroed, when nruns is 0 or over
 * EX_MAX_RUNS.
 */
bool compare_outputs(const struct exercise *e, const struct gpu_run *runs, size_t nruns,
                     const float *out, const uint32_t *marks, struct comparison *c);

#endif
