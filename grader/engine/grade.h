/* grade.h - grade one body in this process: check, compile, run, compare. */
#ifndef BUTTERFLY_GRADE_H
#define BUTTERFLY_GRADE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/exercise/exercise.h"
#include "common/verdict.h"
#include "engine/gpu.h"

struct grader_options {
    const char *device;       /* selector for gpu_context_new; NULL: the best */
    uint64_t seed;            /* hidden spectra; TASK_DEFAULT_SEED by default */
    uint32_t deadline_ms;     /* bound on the device wait */
    /* optional: runs before the device is created (see gpu_context_new) */
    gpu_before_device_fn before_device;
    void *before_device_arg;
    /* optional: told STAGE_COMPILE and STAGE_RUN as a body moves through grading */
    void (*on_stage)(enum grade_stage stage, void *arg);
    void *on_stage_arg;
    /* keep compiled kernels for identical resubmissions (kernel_cache.h) */
    bool cache_kernels;
    /* count loop iterations against the budget (spirv_loops.h); off only
     * in the benchmark that measures what counting costs */
    bool count_loops;
};

/* Fills *o with the defaults. */
void grader_options_init(struct grader_options *o);

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
void grader_set_stage_hook(struct grader *g, void (*on_stage)(enum grade_stage stage, void *arg),
                           void *arg);

/* What the last grader_grade did besides its verdict, for the pool. */
struct grade_facts {
    enum grade_stage stage;      /* how far it got */
    bool cache_hit;              /* the kernel was kept already (same text or module) */
    bool kept;                   /* the body's kernel is kept now, under its text */
    uint64_t dropped;            /* kernel_cache_take_dropped: a text no longer kept */
};

/* The facts of the last grading (all zero before the first). */
const struct grade_facts *grader_last_facts(const struct grader *g);

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
 * Grades `body` (len bytes, any content) as a solution of exercise e: in
 * e's harness, over e's sweep and inputs, against e's reference and
 * tolerances; the butterfly's diagnosis only for an exercise that asks for
 * it and has its shape (bf_shape_fits, diagnose.h). Returns a verdict the caller frees
 * with verdict_free(); NULL only when out of memory. An exercise the
 * engine cannot hold (sizes over EX_MAX_*) gets an Internal Error.
 */
struct verdict *grader_grade_exercise(struct grader *g, const struct exercise *e,
                                      const char *body, size_t len);

/* grader_grade_exercise of the butterfly (exercise_default()). */
struct verdict *grader_grade(struct grader *g, const char *body, size_t len);

/*
 * Grades `body` as exercise e (grader_grade is this with
 * exercise_default()): e's runs and tolerance, and for a Wrong Answer its
 * diagnosis (e->diagnosis "butterfly": the built-in search; NULL: the
 * first of e->mistakes whose outputs equal the body's on every run).
 * Until the engine follows struct exercise, an exercise of another
 * shape than the butterfly's gets an Internal Error saying so.
 */
struct verdict *grader_grade_exercise(struct grader *g, const struct exercise *e,
                                      const char *body, size_t len);

#endif
