#ifndef GRADER_REFUSAL_H
#define GRADER_REFUSAL_H

/*
 * refusal.h - whose fault a module refused on its way to the driver is.
 *
 * Between glslang and the driver the grader rewrites the module (the loop
 * counter, the index clamp, the debug strip) and validates the result. A
 * refusal there is the body's only when glslang's own module is refused
 * too: a student is never told their kernel is invalid because a rewrite
 * of ours broke it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/verdict.h"

/*
 * Sets v's status and message for a module refused with `msg`. `own` is
 * glslang's module (own_words words) and `rewritten` whether a rewrite of
 * ours came between it and the refused one. Rejected, with the
 * validator's words on glslang's module where it is invalid (or msg where
 * nothing was rewritten); else v keeps its status (Internal Error: the
 * grader's fault) and the message names `ours`, the rewrite that broke it.
 */
void refusal_set(struct verdict *v, const uint32_t *own, size_t own_words, bool rewritten,
                 const char *ours, const char *msg);

#endif
