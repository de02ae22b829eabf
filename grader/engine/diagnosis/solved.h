/* solved.h - mistakes read straight off the outputs, with no row of the
 * family: a half never read, a and b or their planes swapped, and the
 * kernel's own twiddle solved from each cell's two planes. */
#ifndef BUTTERFLY_SOLVED_H
#define BUTTERFLY_SOLVED_H

#include <complex.h>
#include <stdbool.h>

#include "engine/diagnosis/diagnose.h"
#include "common/verdict.h"
#include "engine/compare.h"
#include "engine/diagnosis/text.h"

/*
 * The diagnosis, when reads_too (the body's reads are not the recipe's to
 * the letter), of the recipe with a and b swapped (a_b_swapped) or b's,
 * a's or both planes swapped (b_planes_swapped, a_planes_swapped, both
 * joined by '+'), else, when half_too, of outputs that are the same for
 * every half (half_never_read: the right pass of one fixed half on every
 * run), each proven on every cell of every run; NULL when none holds or
 * on OOM.
 */
struct diagnosis *solved_structure(const struct comparison *c, bool half_too, bool reads_too);

/*
 * The kernel's twiddle per cell, w[half index][i] = ±(got − a)/b with the
 * recipe's a, b and sign, solved on the run of that half where b is
 * largest; true when that w gives every cell of every run of its half
 * (false when some b is 0 on every run, or a cell is not finite).
 */
bool solved_twiddles(const struct comparison *c, double complex w[BF_NHALVES][BF_N]);

/*
 * The diagnosis of outputs whose every cell is a ± w·b with the recipe's
 * a, b and sign and a twiddle of the kernel's own (solved_twiddles):
 * twiddle_off_by_pi (w is −w everywhere), angle_in_degrees (cos and sin of
 * −180·r/half taken as radians), else wrong_twiddle, said with the first
 * cell's solved w ("your w is −0.448−0.894i where −i is due"). `literal`
 * (literal_steps of the body) keeps "more" from offering an equivalent
 * reading on a line the student wrote as the recipe does. NULL when the
 * outputs are not so, or on OOM.
 */
struct diagnosis *solved_twiddle(const struct comparison *c, unsigned literal);

/* A complex number as the page writes it: 1, −i, e^(−iπ/4) for the
 * recipe's twiddles, else "−0.448−0.894i" (three digits). */
void solved_add_complex(struct text *s, double complex z);

#endif
