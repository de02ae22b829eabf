/* worked.h - output cells worked through with the kernel's own numbers. */
#ifndef BUTTERFLY_WORKED_H
#define BUTTERFLY_WORKED_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/diagnosis/diagnose.h"
#include "common/verdict.h"
#include "engine/compare.h"

/*
 * Fills *w for output cell (plane, i) of run `run` of the comparison c: the cell's j, base, r and
 * partner, its a, b and w = e^(-iπ·r/half) from the run's inputs, w·b, the
 * value due (the reference's), the value the kernel returned, whether it
 * passes t's tolerance, and, for a failing cell, the first simple
 * expression of the same quantities (worked_expressions) that gives this
 * cell on every run of its half, so that a coincidence on one spectrum
 * names nothing, with its slug (`matches`, "due" for a passing cell); the
 * sign due (+1 or -1); and the cell in one sentence (`says`), told in the
 * recipe step `step` the diagnosis leads with (NULL: none): it names the
 * other member of the pair only when that step is j or the sign.
 */
void worked_cell_of(const struct comparison *c, size_t run, int plane, int i, const char *step,
                    struct worked_cell *w);

/*
 * The worked cell of a Wrong Answer: of the visible spectrum's failing
 * cells in order (smallest half first, real plane first, then i), the
 * first that exactly one expression fits, so that the cell shows the
 * mistake and no other reading; else the first failing visible cell; else
 * (every visible cell right) the first failing cell of the hidden runs.
 * Sentence as worked_cell_of's.
 * Returns false, leaving *w alone, when every cell passes.
 */
bool worked_pick(const struct comparison *c, const char *step, struct worked_cell *w);

/*
 * Every visible cell of every half, half by half in t's order, each half's
 * 16 cells as the verdict lists them (x 0..7 for y = 0, then y = 1), into
 * cells[WORKED_CELLS]. False when a half has no visible run.
 */
bool worked_all(const struct comparison *c, const char *step,
                struct worked_cell cells[WORKED_CELLS]);

/* The names got_matches can take, in the order they are tried, ending
 * with NULL (for tests and docs). */
const char *const *worked_expressions(void);

#endif
