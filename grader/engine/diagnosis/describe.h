/* describe.h - the words of a diagnosis. */
#ifndef BUTTERFLY_DESCRIBE_H
#define BUTTERFLY_DESCRIBE_H

#include <stddef.h>

#include "common/task.h"
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
 * on the same outputs): an id (the mistakes' ids joined by '+'), a title,
 * an explanation in words of how the member differs from the right
 * formula, with the other members that give the same outputs, and the
 * page's hints that help. NULL when res is empty or on OOM.
 */
struct diagnosis *describe_member(const struct comparison *c, const struct search_result *res);

/*
 * The diagnosis of outputs read back as formulas (decompile_outputs on the
 * same outputs): what differs from the right formulas (ids wrong_a,
 * wrong_b, wrong_twiddle, wrong_sign, wrong_part, stray_constant, by '+'),
 * with the first wrong values shown. NULL on OOM.
 */
struct diagnosis *describe_formulas(
    const struct comparison *c,
    const struct cell_formula formulas[TASK_NHALVES][TASK_PLANES][TASK_N]);

#endif
