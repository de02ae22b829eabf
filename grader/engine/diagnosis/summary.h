/* summary.h - where a kernel's outputs fail, in words: for a Wrong Answer
 * that no member of the family explains. */
#ifndef BUTTERFLY_SUMMARY_H
#define BUTTERFLY_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/diagnosis/diagnose.h"
#include "engine/compare.h"
#include "engine/diagnosis/text.h"
#include "engine/gpu.h"

enum { NONFINITE_NAN, NONFINITE_INF, NONFINITE_MINUS_INF, NONFINITE_KINDS };

/* Where the failures are: masks over the task's halves (by index). */
struct failure_map {
    unsigned wrong[BF_PLANES][2];   /* [plane][member]: halves with a failing cell */
    unsigned halves;                  /* halves with any failing cell */
    bool visible_wrong, hidden_wrong;
    /* cells where the kernel returned NaN or an infinity */
    uint16_t visible_cells[NONFINITE_KINDS][BF_NHALVES];   /* bit plane * 8 + i */
    bool hidden_cells[NONFINITE_KINDS][BF_NHALVES];
};

/* The index of `half` in t->halves, or -1. */
int summary_half_index(const struct exercise *t, int half);

/* Maps where the compared outputs fail into *m. Returns true when some
 * cell fails. */
bool summary_map(const struct comparison *c, struct failure_map *m);

/* Appends "every half", "half 4", "half 2 and 4" for a mask of half indices. */
void summary_add_halves(struct text *s, const struct exercise *t, unsigned mask);

/*
 * Where `out` differs from the reference, in words: per plane, which
 * members (lower j = 0, upper j = 1) fail for which halves; the cells where
 * the kernel returned NaN or an infinity; a failure seen only on the hidden
 * spectra. Returns a malloc'd string, or NULL when every cell passes or on
 * OOM.
 */
char *summary_text(const struct comparison *c);

#endif
