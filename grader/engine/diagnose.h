/* diagnose.h - naming the mistake behind a Wrong Answer from its outputs. */
#ifndef BUTTERFLY_DIAGNOSE_H
#define BUTTERFLY_DIAGNOSE_H

#include <stddef.h>

#include "gpu.h"
#include "reference.h"
#include "task.h"
#include "verdict.h"

#define DIAGNOSE_MAX_SAME 2

/*
 * One recognisable mistake. `variant` is how the reference computes its
 * outputs; `same_as` lists the other mistakes that give the same outputs
 * on every spectrum and every half, which the explanation also names
 * (the unit tests check that they really coincide).
 */
struct diagnose_entry {
    const char *id, *title, *explanation, *hint;
    struct butterfly_variant variant;
    struct butterfly_variant same_as[DIAGNOSE_MAX_SAME];
    size_t nsame;
};

/* The catalogue, in a fixed order; its length goes to *n. */
const struct diagnose_entry *diagnose_catalogue(size_t *n);

/* The entry with this id, or NULL. */
const struct diagnose_entry *diagnose_find(const char *id);

/*
 * The one catalogue entry whose outputs match `out` in every cell of every
 * run within t's tolerances (compare_cell), or NULL when none or more
 * than one does. `out` holds nruns * TASK_CELLS values in the grader's
 * layout: run, then plane, then index.
 */
const struct diagnose_entry *diagnose_match(const struct task *t,
                                            const struct gpu_run *runs,
                                            size_t nruns, const float *out);

/*
 * Where `out` differs from the reference, in words: per plane, which
 * members (lower j = 0, upper j = 1) fail for which halves, plus cells
 * that came back NaN and a failure seen only on the hidden spectra.
 * Returns a malloc'd string, or NULL when every cell passes or on OOM.
 */
char *diagnose_summary(const struct task *t, const struct gpu_run *runs,
                       size_t nruns, const float *out);

/*
 * For a Wrong Answer: sets v->diagnosis when one catalogue entry matches,
 * else v->summary (replacing either if already set). Leaves v alone when
 * every cell passes. On OOM the verdict simply carries less.
 */
void diagnose_verdict(struct verdict *v, const struct task *t,
                      const struct gpu_run *runs, size_t nruns, const float *out);

#endif
