/*
 * The table of ?wait=false submissions (identity/records.c), on a real
 * SQLite store in a temporary folder: a job whose verdict came but whose
 * answer could not be made (out of memory: records_detached_done with no
 * answer) is lost, never "pending" for ever (issue 30, defect 3); one with
 * an answer is unrecorded with it; one recorded leaves the table; nobody
 * else reads any of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "server/identity/records.h"

static char dir[] = "/tmp/butterfly-detached-XXXXXX";

static int setup(void **state)
{
    char url[128], token[STORE_TOKEN_SIZE], err[256] = "";
    if (!mkdtemp(dir))
        return -1;
    snprintf(url, sizeof url, "sqlite:%s/records.db", dir);
    struct records *rs = records_start(url, 0, 0, 0, 0, token, false, err, sizeof err);
    if (!rs) {
        fprintf(stderr, "records_start: %s\n", err);
        return -1;
    }
    *state = rs;
    return 0;
}

static int teardown(void **state)
{
    records_free(*state);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const struct principal ada = { .kind = PRINCIPAL_GUEST, .id = "guest-ada", .name = "Ada" };
static const struct principal bob = { .kind = PRINCIPAL_GUEST, .id = "guest-bob", .name = "Bob" };

static void test_lost_is_not_pending(void **state)
{
    struct records *rs = *state;
    char *answer = NULL;
    assert_true(records_detach(rs, "0001", &ada));
    assert_int_equal(records_detached_get(rs, "0001", &ada, &answer), DETACHED_PENDING);
    assert_null(answer);
    /* the out-of-memory paths of submission.c: no answer to keep */
    records_detached_done(rs, "0001", false, NULL);
    enum detached_state st = records_detached_get(rs, "0001", &ada, &answer);
    assert_int_not_equal(st, DETACHED_PENDING);
    assert_int_equal(st, DETACHED_LOST);
    assert_null(answer);
    assert_int_equal(records_detached_get(rs, "0001", &bob, &answer), DETACHED_UNKNOWN);
}

static void test_unrecorded_keeps_its_answer(void **state)
{
    struct records *rs = *state;
    char *answer = NULL;
    assert_true(records_detach(rs, "0002", &ada));
    records_detached_done(rs, "0002", false, strdup("{\"recorded\":false}"));
    assert_int_equal(records_detached_get(rs, "0002", &ada, &answer), DETACHED_UNRECORDED);
    assert_non_null(answer);
    assert_string_equal(answer, "{\"recorded\":false}");
    free(answer);
    assert_int_equal(records_detached_get(rs, "0002", &bob, &answer), DETACHED_UNKNOWN);
}

static void test_recorded_leaves(void **state)
{
    struct records *rs = *state;
    char *answer = NULL;
    assert_true(records_detach(rs, "0003", &ada));
    records_detached_done(rs, "0003", true, NULL);
    assert_int_equal(records_detached_get(rs, "0003", &ada, &answer), DETACHED_UNKNOWN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lost_is_not_pending),
        cmocka_unit_test(test_unrecorded_keeps_its_answer),
        cmocka_unit_test(test_recorded_leaves),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
