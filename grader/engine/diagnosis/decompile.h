/* decompile.h - each output value read back as a short formula of the
 * inputs: the last tier of the family, for kernels no formula names. */
#ifndef BUTTERFLY_DECOMPILE_H
#define BUTTERFLY_DECOMPILE_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/diagnosis/diagnose.h"
#include "engine/gpu.h"

/*
 * One term: a coefficient times one input number spectrum[plane][element].
 * `coef` indexes decompile_coef(): 0 is "no term"; the others are ±1 and
 * ±cos(kπ/8) for k = 1, 2, 3, every value a twiddle's cos or sin takes in
 * this exercise.
 */
struct term {
    signed char plane, element, coef;
};

#define DECOMPILE_COEFS 9

/*
 * The formula of one output value: term[0] is the "a" term (coefficient
 * ±1 or none), term[1] and term[2] the two products of w·b's part (any
 * coefficient), plus a constant that is the same on every spectrum (a
 * stray i, half or PI where an input belongs; 0 in the right formula).
 * The right value of plane p at i is a_p ± (wr·b_p ∓ wi·b_q).
 */
struct cell_formula {
    struct term term[3];
    double constant;
};

/* The coefficient with index c (0..DECOMPILE_COEFS-1); 0.0 for c = 0. */
double decompile_coef(int c);

/* The formula the page's butterfly gives for plane p of cell i at `half`. */
void decompile_due(int half, int i, int p, struct cell_formula *f);

/* Whether two terms are the same: plane, element and coefficient. */
bool decompile_same_term(const struct term *a, const struct term *b);

/* Whether two formulas are the same (term by term, and their constants). */
bool decompile_equal(const struct cell_formula *a, const struct cell_formula *b);

/* The formula's value on one input. */
double decompile_value(const struct cell_formula *f, const float in[BF_PLANES][BF_N]);

/*
 * Reads every output value back as a formula of the inputs: into
 * formulas[half index][plane][i], one formula each that gives the value on
 * every run of its half within t's tolerance (compare_cell), the right
 * formula where it does, else one with a term changed from it, else any,
 * else any with a constant added.
 * `out` holds nruns (at most BF_RUNS) * BF_CELLS values in the
 * grader's layout. Returns false as soon as some value has no such
 * formula (numbers no short formula gives, NaN, infinities).
 */
bool decompile_outputs(const struct exercise *t, const struct gpu_run *runs, size_t nruns,
                       const float *out,
                       struct cell_formula formulas[BF_NHALVES][BF_PLANES][BF_N]);

/*
 * Writes formula f for cell i at `half` as the page names things: "ai +
 * 0.7071·br − bi", ar, ai, br and bi for the cell's own a and b, and
 * spectrum[p][k] for any other number. Returns buf.
 */
char *decompile_render(const struct cell_formula *f, int half, int i, char *buf, size_t size);

#endif
