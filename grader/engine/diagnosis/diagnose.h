/* diagnose.h - what a Wrong Answer's outputs say about the mistake. */
#ifndef BUTTERFLY_DIAGNOSE_H
#define BUTTERFLY_DIAGNOSE_H

#include <stddef.h>

#include "engine/diagnosis/bf_shape.h"
#include "common/verdict.h"
#include "engine/compare.h"

/* The words a diagnosis may take (issue 32): its title and the first
 * sentence of its explanation together, and what it keeps behind "more". */
#define DIAGNOSIS_LEAD_WORDS 40
#define DIAGNOSIS_MORE_WORDS 80

/*
 * For a Wrong Answer, in this order: v->diagnosis when a member of the
 * family with formulas reproduces every cell of every run (search.h,
 * words by describe.h), else when every value reads back as a short
 * formula of the inputs (decompile.h), else v->summary, where it fails
 * (summary.h); and v->worked_cell and v->worked_cells (worked.h), their
 * sentences told in the diagnosis's step, all read from the one
 * comparison of the outputs (compare.h). The body's code (may be NULL)
 * only chooses among readings the outputs prove alike (cues.h). Replaces
 * any already set. Leaves v alone when every cell passes. On OOM the
 * verdict simply carries less.
 */
void diagnose_verdict(struct verdict *v, const struct comparison *c, const char *body,
                      size_t len);

#endif
