/* diagnose.h - what a Wrong Answer's outputs say about the mistake. */
#ifndef BUTTERFLY_DIAGNOSE_H
#define BUTTERFLY_DIAGNOSE_H

#include <stddef.h>

#include "common/task.h"
#include "common/verdict.h"
#include "engine/compare.h"

/*
 * For a Wrong Answer, in this order: v->diagnosis when a member of the
 * family with formulas reproduces every cell of every run (search.h,
 * words by describe.h), else when every value reads back as a short
 * formula of the inputs (decompile.h), else v->summary, where it fails
 * (summary.h); and v->worked_cell and v->worked_cells (worked.h), all read
 * from the one comparison of the outputs (compare.h). Replaces
 * any already set. Leaves v alone when every cell passes. On OOM the
 * verdict simply carries less.
 */
void diagnose_verdict(struct verdict *v, const struct comparison *c);

#endif
