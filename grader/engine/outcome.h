/* outcome.h - the verdict a grading's judged outputs earn, in words. */
#ifndef BUTTERFLY_OUTCOME_H
#define BUTTERFLY_OUTCOME_H

#include <stddef.h>

#include "common/verdict.h"
#include "engine/compare.h"

/*
 * Sets v's status and message from the comparison: Time Limit Exceeded
 * when a thread ran over the loop budget (v->loop says where, with a
 * diagnostic on the loop's line; loop_lines[k - 1] is loop k's body line),
 * else Accepted or Wrong Answer with every half's visible cells and hidden
 * tally in v->halves. Naming the mistake of a Wrong Answer is the
 * diagnosis's (diagnose.h). No device; on OOM the verdict carries less.
 */
void outcome_set(struct verdict *v, const struct comparison *c, const int *loop_lines,
                 size_t nloops);

#endif
