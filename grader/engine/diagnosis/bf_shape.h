/* bf_shape.h - the butterfly's sizes, which its diagnosis is written for. */
#ifndef BUTTERFLY_BF_SHAPE_H
#define BUTTERFLY_BF_SHAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/exercise/exercise.h"

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

#endif
