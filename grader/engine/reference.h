/* reference.h - the butterfly's C reference in its diagnosis's shapes. */
#ifndef BUTTERFLY_REFERENCE_H
#define BUTTERFLY_REFERENCE_H

#include "engine/diagnosis/diagnose.h"

/*
 * Computes one butterfly pass of half-block size `half` (1, 2 or 4) over
 * `in` into `out`, cell by cell the way the kernel must: each output cell
 * works out its own pair and twiddle. `in` and `out` must not overlap.
 * The mistakes students make are computed by family.h, not here: the
 * reference stays the page's formula and nothing else.
 */
void reference_pass(const float in[BF_PLANES][BF_N], int half,
                    double out[BF_PLANES][BF_N]);

#endif
