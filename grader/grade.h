/* grade.h - grade one body in this process: check, compile, run, compare. */
#ifndef BUTTERFLY_GRADE_H
#define BUTTERFLY_GRADE_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu.h"
#include "verdict.h"

#define GRADE_DEFAULT_DEADLINE_MS 5000

struct grader_options {
    const char *device;       /* selector for gpu_context_new; NULL: the best */
    uint64_t seed;            /* hidden spectra; TASK_DEFAULT_SEED by default */
    uint32_t deadline_ms;     /* bound on the device wait */
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
