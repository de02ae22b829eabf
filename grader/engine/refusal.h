#ifndef GRADER_REFUSAL_H
#define GRADER_REFUSAL_H

/*
 * refusal.h - whose fault a module refused on its way to the driver is.
 *
 * Between glslang and the driver the grader rewrites the module (the loop
 * counter, the index clamp, the debug strip) and validates the result. A
 * refusal there is the body's only when glslang's own module is refused
 * too: a student is never told their kernel is invalid, or cannot be made
 * safe, because a step of ours failed on a valid one.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/verdict.h"

/*
 * Sets v's message, and its status when the body is to blame, for a
 * module refused with `msg` by `ours` (the grader's step that refused it,
 * in words). `own` is glslang's module (own_words words): where the
 * validator refuses it, Rejected, in the validator's words on it; else v
 * keeps its status (Internal Error: the grader's fault, whatever the
 * step: a rewrite that broke the module, a pass that failed, memory).
 */
void refusal_set(struct verdict *v, const uint32_t *own, size_t own_words, const char *ours,
                 const char *msg);

#endif
