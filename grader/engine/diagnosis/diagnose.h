/* diagnose.h - what a Wrong Answer's outputs say about the mistake, for
 * the butterfly: its shape, which the diagnosis is written for, and its
 * entry. */
#ifndef BUTTERFLY_DIAGNOSE_H
#define BUTTERFLY_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/exercise/exercise.h"
#include "common/verdict.h"
#include "engine/compare.h"

/*
 * The butterfly's diagnosis (families, worked cells, the picture) reasons
 * about one pass of an 8-point complex FFT at half = 1, 2 and 4: its
 * tables are sized by these, not by the exercise, and it runs only for an
 * exercise of exactly this shape (bf_shape_fits).
 */
#define BF_N          8   /* complex elements per spectrum */
#define BF_PLANES     2   /* 0 real, 1 imaginary */
#define BF_CELLS      (BF_N * BF_PLANES)
#define BF_NHALVES    3
#define BF_HIDDEN     8   /* hidden spectra per half */
#define BF_RUNS       (BF_NHALVES * (1 + BF_HIDDEN))

_Static_assert(BF_N <= EX_MAX_N && BF_PLANES <= EX_MAX_PLANES && BF_NHALVES <= EX_MAX_SWEEP &&
               BF_HIDDEN <= EX_MAX_HIDDEN, "the butterfly must fit the largest exercise");

/*
 * True when exercise e asks for the butterfly's diagnosis ("butterfly")
 * and has its shape: 8 x 2 in and out, half = 1, 2, 4, 8 hidden spectra
 * each. Else false, with why in `why` (may be NULL) when it asks for it
 * but does not fit, or "" when it does not ask. For the check on load.
 */
bool bf_shape_fits(const struct exercise *e, char *why, size_t whysz);

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
