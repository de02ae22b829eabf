/* scale_exercise.h - an exercise of another shape than the butterfly's,
 * made in the test: 16 outputs in one plane, each its input times the
 * parameter, for the tests that the engine follows the definition. */
#ifndef BUTTERFLY_TEST_SCALE_EXERCISE_H
#define BUTTERFLY_TEST_SCALE_EXERCISE_H

#include "common/exercise/exercise.h"

/* Its reference: out[i] = param * in[i], in double. */
static void scale_reference(int param, const float *in, double *out)
{
    for (int i = 0; i < 16; i++)
        out[i] = (double)param * (double)in[i];
}

/*
 * The exercise "scale": `float scale(this, factor, values)`, 16 x 1 in and
 * out, factor in 1, 3, -2, two hidden inputs each on a 1/8 grid in
 * [-4, 4], the butterfly's tolerances, no diagnosis. Every name differs
 * from the butterfly's, so a harness that kept one would not compile.
 */
static inline struct exercise scale_exercise(void)
{
    struct exercise e = {
        .id = "scale", .title = "Scale: an example", .subtitle = "Example",
        .function = "scale", .signature = "float scale(/* this, factor, values */) {",
        .input = "values", .in_n = 16, .in_planes = 1,
        .hidden_lo = -32, .hidden_hi = 32, .hidden_grid = 8,
        .out_n = 16, .out_planes = 1,
        .param = "factor", .sweep = { 1, 3, -2 }, .nsweep = 3, .hidden = 2,
        .atol = 5e-3, .rtol = 1e-3, .loop_budget = 100, .diagnosis = NULL,
        .reference = scale_reference,
    };
    for (int k = 0; k < 16; k++)
        e.visible[0][k] = (float)(k - 7) / 4.0f;   /* no two equal, none zero but k = 7 */
    return e;
}

#endif
