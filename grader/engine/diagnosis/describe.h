/* describe.h - the words of a diagnosis. */
#ifndef BUTTERFLY_DESCRIBE_H
#define BUTTERFLY_DESCRIBE_H

#include <stddef.h>

#include "engine/diagnosis/diagnose.h"
#include "common/verdict.h"
#include "engine/compare.h"
#include "engine/diagnosis/decompile.h"
#include "engine/diagnosis/search.h"
#include "engine/gpu.h"

/* How the title of a diagnosis by values read back begins ("Some values
 * take the wrong b"), for tools that count the tiers. */
extern const char describe_values_title[];

/* The id of aspect k of the pairs and values tiers ("wrong_a", ...), or
 * NULL past the last (for docs and tests). */
const char *describe_aspect_id(int k);

/*
 * The diagnosis that names the explanations of `res` (from search_outputs
 * on the same outputs): an id (the mistakes' ids joined by '+'), the
 * recipe step it leads with, a title in the course's words, one sentence
 * of what the kernel does and where it shows, one hint of the page, and
 * behind "more" the right formula and the other readings that give the
 * same numbers ("equivalently"). Of readings the outputs prove alike, the
 * one the body's code shows leads (compact: cues_compact of the body, may
 * be NULL). NULL when res is empty or on OOM.
 */
struct diagnosis *describe_member(const struct comparison *c, const struct search_result *res,
                                  const char *compact);

/*
 * The diagnosis of outputs read back as formulas (decompile_outputs on the
 * same outputs): what differs from the right formulas (ids wrong_a,
 * wrong_b, wrong_twiddle, wrong_sign, wrong_part, stray_constant, by '+'),
 * with the first wrong values shown; of the steps the values could be, one
 * not in `literal` (literal_steps of the body, 0 when unknown) leads.
 * NULL on OOM.
 */
struct diagnosis *describe_formulas(
    const struct comparison *c,
    const struct cell_formula formulas[BF_NHALVES][BF_PLANES][BF_N], unsigned literal);

#endif
