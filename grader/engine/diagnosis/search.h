/* search.h - which members of the family reproduce a kernel's outputs. */
#ifndef BUTTERFLY_SEARCH_H
#define BUTTERFLY_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/diagnosis/diagnose.h"
#include "engine/diagnosis/family.h"
#include "engine/gpu.h"

#define SEARCH_MAX_DEPTH   3   /* mistakes at once in a named member */
#define SEARCH_MAX_SHAPE_DEPTH 2   /* of them in its shape (planes, scale, multiply) */
#define SEARCH_MAX_SHAPES  256
#define SEARCH_MAX_FOUND   8   /* explanations kept */
#define SEARCH_MAX_DECODED 64  /* pairs kept per cell while decoding */

/*
 * One explanation of a kernel's outputs: a member of the family that gives
 * every output of every run within the task's tolerance.
 *
 * When `tables` is false, `member` is a member whose parameters are all
 * formulas of the family. When it is true, no formula within
 * SEARCH_MAX_DEPTH mistakes gives the pairs the kernel uses, but every
 * cell is still a ± w·b, computed right, for the elements, twiddle and
 * sign in `pairs` (the decoded pair nearest the right one, per cell):
 * the member is the right shape (`member`, zeroed) with those pairs.
 */
/*
 * A reading of decoded pairs through one step of the recipe: every cell is
 * what the recipe gives when that one step takes some value per cell (j,
 * base or r; the twiddle's angle; the sign; the elements read) and every
 * other step is right.
 */
enum search_step {   /* in the order they are tried: the sign before the twiddle it trades with */
    SEARCH_STEP_NONE, SEARCH_STEP_J, SEARCH_STEP_BASE, SEARCH_STEP_SIGN, SEARCH_STEP_R,
    SEARCH_STEP_W, SEARCH_STEP_READ, SEARCH_STEPS
};

struct search_found {
    struct family_member member;
    bool tables;
    enum search_step step;        /* with tables: the one step that explains them, if any */
    unsigned step_also;           /* bits (1 << step) of other steps that explain them too */
    signed char values[BF_NHALVES][BF_N];   /* the step's value per cell (j, base, r) */
    signed char step_values[SEARCH_STEPS][BF_NHALVES][BF_N];   /* the same for `step`
                                                   and every step of step_also */
    struct family_pair pairs[BF_NHALVES][BF_N];   /* [half index][i], when tables */
    int depth;                                        /* mistakes it makes */
};

/*
 * The explanations with the fewest mistakes: found[0] is the one named
 * first (parameters in family order); `more` counts equally good ones
 * beyond SEARCH_MAX_FOUND.
 */
struct search_result {
    size_t n, more;
    struct search_found found[SEARCH_MAX_FOUND];
};

/*
 * Searches the family for members that reproduce `out`: nruns runs (at
 * most BF_RUNS) in the grader's layout (run, plane, index), inputs in
 * `runs`. A member matches when every cell of every run agrees within t's
 * tolerance (compare_cell); where the member returns NaN or an infinity
 * the kernel must return the same. Fills *res and returns true when some
 * member matches. Runs on the visible spectra first to prune.
 */
bool search_outputs(const struct exercise *t, const struct gpu_run *runs, size_t nruns,
                    const float *out, struct search_result *res);

/* True when member m reproduces every cell of `out`, as search_outputs
 * decides it. */
bool search_member_matches(const struct exercise *t, const struct gpu_run *runs, size_t nruns,
                           const float *out, const struct family_member *m);

/* True when the member with pairs `pairs` ([half index][i]) and shape m
 * reproduces every cell of `out`. */
bool search_tables_match(const struct exercise *t, const struct gpu_run *runs, size_t nruns,
                         const float *out, const struct family_member *m,
                         const struct family_pair pairs[BF_NHALVES][BF_N]);

#endif
