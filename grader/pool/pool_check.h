/*
 * pool_check.h - the check on load (common/exercise/exercise_check.h)
 * graded by the pool's workers: for the server before it listens and for
 * butterfly-grade --check-exercise, neither of which may grade in process.
 */
#ifndef BUTTERFLY_POOL_CHECK_H
#define BUTTERFLY_POOL_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/exercise/exercise_check.h"
#include "pool/pool.h"

/*
 * An exercise_grade_fn whose arg is a struct pool: grades body on one of
 * its workers and waits. Until jobs carry their exercise (issue 33's pool
 * plumbing), an exercise other than exercise_default() gets an Internal
 * Error saying so. NULL only when out of memory.
 */
struct verdict *pool_check_grade(void *pool, const struct exercise *e, const char *body,
                                 size_t len);

/*
 * Checks exercise e on p's workers (exercise_check_run), after waiting up
 * to timeout_ms for one to be ready: no worker, no check, and that is a
 * problem of its own in *out, with out->not_checked set. False only when
 * out of memory.
 */
bool pool_check_exercise(struct pool *p, const struct exercise *e, const char *where,
                         uint32_t timeout_ms, struct exercise_check *out);

#endif
