/* diagnose.h - what a Wrong Answer's outputs say about the mistake. */
#ifndef BUTTERFLY_DIAGNOSE_H
#define BUTTERFLY_DIAGNOSE_H

#include <stddef.h>

#include "gpu.h"
#include "search.h"
#include "task.h"
#include "verdict.h"

/*
 * The diagnosis that names the explanations of `res` (from search_outputs
 * on the same outputs): an id (the mistakes' ids joined by '+'), a title,
 * an explanation in words of how the member differs from the right
 * formula, with the other members that give the same outputs, and the
 * page's hints that help. NULL when res is empty or on OOM.
 */
struct diagnosis *diagnose_describe(const struct task *t, const struct gpu_run *runs,
                                    size_t nruns, const float *out,
                                    const struct search_result *res);

/*
 * Where `out` differs from the reference, in words: per plane, which
 * members (lower j = 0, upper j = 1) fail for which halves; the cells where
 * the kernel returned NaN or an infinity; a failure seen only on the hidden
 * spectra. `out` holds nruns * TASK_CELLS values in the grader's layout:
 * run, then plane, then index. Returns a malloc'd string, or NULL when
 * every cell passes or on OOM.
 */
char *diagnose_summary(const struct task *t, const struct gpu_run *runs,
                       size_t nruns, const float *out);

/*
 * For a Wrong Answer: sets v->diagnosis when a member of the family
 * reproduces every cell (search.h), else v->summary; and v->worked_cell
 * and v->worked_cells (worked.h). Replaces any already set. Leaves v alone
 * when every cell passes. On OOM the verdict simply carries less.
 */
void diagnose_verdict(struct verdict *v, const struct task *t,
                      const struct gpu_run *runs, size_t nruns, const float *out);

#endif
