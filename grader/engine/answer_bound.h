/*
 * answer_bound.h - the grader, not the worker's frame, bounds a verdict's
 * size.
 *
 * Every text a verdict carries is bounded where it is made (compiler text
 * in compile_text.h, messages by their formats); this is the last check,
 * on the verdict as it will be sent, so that no body can make its answer
 * too large to deliver: such a verdict would cost its worker and come back
 * as Internal Error, a grade avoided rather than a zero recorded.
 */
#ifndef BUTTERFLY_ANSWER_BOUND_H
#define BUTTERFLY_ANSWER_BOUND_H

#include <stdbool.h>
#include <stddef.h>

#include "common/verdict.h"

/*
 * The size in bytes of v as the worker sends it (compact JSON); 0 when it
 * cannot be written (out of memory).
 */
size_t answer_bound_size(const struct verdict *v);

/*
 * Makes v at most `max` bytes as answer_bound_size counts them, by leaving
 * out its compiler text: first the raw log, then every diagnostic but the
 * first. A Compilation Error that had to lose text gets a plain message
 * saying so (it stays the student's Compilation Error, graded once).
 * Returns true when v is within max afterwards (or was already).
 */
bool answer_bound_apply(struct verdict *v, size_t max);

#endif
