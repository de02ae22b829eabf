/* reference.h - the C reference butterfly, in double precision, and the
 * wrong butterflies students write, computed by the same code. */
#ifndef BUTTERFLY_REFERENCE_H
#define BUTTERFLY_REFERENCE_H

#include <stdbool.h>

#include "task.h"

/* How the two results of a pair are signed (Hint 3 — the ending). */
enum butterfly_ending {
    ENDING_CORRECT = 0,      /* lower a + w·b, upper a - w·b */
    ENDING_BOTH_PLUS,        /* both members a + w·b */
    ENDING_ROLES_SWAPPED,    /* lower a - w·b, upper a + w·b */
};

/*
 * One way of computing a pass, as a set of mistakes; a zeroed variant is
 * the correct pass. Each field names the one step it changes, so that a
 * mistake is computed by the reference's own code with that step changed.
 */
struct butterfly_variant {
    /* which pair (Hint 1) */
    bool j_from_parity;          /* j = i % 2 instead of (i / half) % 2 */
    bool partner_next;           /* b at base + 1 instead of base + half */
    /* which twiddle (Hint 2) */
    bool angle_positive;         /* e^(+iπ…): the angle's sign flipped */
    bool angle_two_pi;           /* 2π instead of π */
    bool angle_from_i;           /* i instead of r */
    bool angle_over_size;        /* over TASK_N instead of half */
    bool angle_int_division;     /* float(r / half): 0 in int arithmetic */
    bool no_twiddle;             /* w = 1: b is never multiplied */
    /* the complex multiply and the ending (Hint 3) */
    bool conjugate_multiply;     /* conj(w)·b: tr = wr br + wi bi, ti = wr bi - wi br */
    bool componentwise_multiply; /* tr = wr br, ti = wi bi */
    enum butterfly_ending ending;
    bool planes_swapped;         /* the real result in the imaginary plane and back */
    bool scaled_half;            /* every output times 1/2 */
};

/*
 * Computes one butterfly pass of half-block size `half` (1, 2 or 4) over
 * `in` into `out`, cell by cell the way the kernel must: each output cell
 * works out its own pair and twiddle. `in` and `out` must not overlap.
 */
void reference_pass(const float in[TASK_PLANES][TASK_N], int half,
                    double out[TASK_PLANES][TASK_N]);

/*
 * Computes the pass as variant `v` does (NULL: the correct pass), by the
 * same code as reference_pass. An index a mistake sends out of 0..7 is
 * clamped into it, as the grader's robust-access pass does on the device,
 * so that the result is what such a kernel really returns.
 */
void reference_pass_variant(const float in[TASK_PLANES][TASK_N], int half,
                            const struct butterfly_variant *v,
                            double out[TASK_PLANES][TASK_N]);

#endif
