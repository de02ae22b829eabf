/* grade.h - grade one body in this process: check, compile, run, compare. */
#ifndef BUTTERFLY_GRADE_H
#define BUTTERFLY_GRADE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/verdict.h"
#include "engine/gpu.h"

struct grader_options {
    const char *device;       /* selector for gpu_context_new; NULL: the best */
    uint64_t seed;            /* hidden spectra; TASK_DEFAULT_SEED by default */
    uint32_t deadline_ms;     /* bound on the device wait */
    /* optional: runs before the device is created (see gpu_context_new) */
    gpu_before_device_fn before_device;
    void *before_device_arg;
    /* optional: told "compile" and "run" as a body moves through grading */
    void (*on_stage)(const char *stage, void *arg);
    void *on_stage_arg;
    /* keep compiled kernels for identical resubmissions (kernel_cache.h) */
    bool cache_kernels;
    /* count loop iterations against the budget (spirv_loops.h); off only
     * in the benchmark that measures what counting costs */
    bool count_loops;
};

/* Fills *o with the defaults. */
void grader_options_init(struct grader_options *o);

/*
 * Fills the TASK_RUNS inputs of one grading dispatch: for each half, the
 * visible spectrum, then the TASK_HIDDEN hidden spectra of `seed`. Run
 * h * (1 + TASK_HIDDEN) + s is half h's spectrum s (0: the visible one).
 */
void grade_fill_runs(uint64_t seed, struct gpu_run runs[TASK_RUNS]);

struct grader;

/*
 * Creates the process's compiler and Vulkan device. NULL with a reason in
 * err on failure. One per process: it holds the device.
 */
struct grader *grader_new(const struct grader_options *o, char *err, size_t errsz);

/* Frees the grader. Accepts NULL. */
void grader_free(struct grader *g);

/* Sets (or with NULL clears) the stage hook after creation, so that a
 * warm-up grade reports nothing. */
void grader_set_stage_hook(struct grader *g, void (*on_stage)(const char *stage, void *arg),
                           void *arg);

/* Sets the seed of the hidden spectra for the next gradings. */
void grader_set_seed(struct grader *g, uint64_t seed);

/* The device the grader runs on. */
const struct gpu_device_info *grader_device(const struct grader *g);

/*
 * False once a kernel outlived its deadline or the device was lost: the
 * process must then be replaced, since a Vulkan queue cannot be cancelled.
 */
bool grader_usable(const struct grader *g);

/*
 * Grades `body` (len bytes, any content). Returns a verdict the caller
 * frees with verdict_free(); NULL only when out of memory.
 */
struct verdict *grader_grade(struct grader *g, const char *body, size_t len);

#endif
