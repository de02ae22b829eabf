/* pool_check.c - the check on load, graded by the pool's workers. */
#include "pool/pool_check.h"


struct verdict *pool_check_grade(void *pool, const struct exercise *e, const char *body,
                                 size_t len)
{
    struct pool_result r;
    pool_grade_exercise(pool, e, body, len, &r);
    if (!r.verdict)
        return NULL;
    struct verdict *v = verdict_from_bytes(r.verdict, r.verdict_len);
    pool_result_clear(&r);
    return v;
}

bool pool_check_exercise(struct pool *p, const struct exercise *e, const char *where,
                         uint32_t timeout_ms, struct exercise_check *out)
{
    char err[256] = "";
    if (pool_wait_ready(p, 1, timeout_ms, err, sizeof err) == 0) {
        char fb[64];
        *out = (struct exercise_check){ .not_checked = true };
        return exercise_check_add(out, "%s: not checked: no worker is ready to grade its "
                                  "solutions (%s)", exercise_check_where(e, where, fb, sizeof fb),
                                  *err ? err : "no reason given");
    }
    return exercise_check_run(e, where, pool_check_grade, p, out);
}
