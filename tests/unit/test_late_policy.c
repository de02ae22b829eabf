/* The late policy's parser and arithmetic (common/due/late_policy.h), the
 * date parser class due reads (common/due/iso8601.h) and what a learning
 * system's gradebook gets for a student with late attempts
 * (gradebook_late_score). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/due/iso8601.h"
#include "common/due/late_policy.h"
#include "gradebook/default_layout.h"

static void test_parses_the_three_policies(void **state)
{
    struct late_policy p = { LATE_ACCEPT, 7 };
    char text[32];
    assert_true(late_policy_parse("none", &p));
    assert_int_equal(p.kind, LATE_NONE);
    assert_true(late_policy_parse("accept", &p));
    assert_int_equal(p.kind, LATE_ACCEPT);
    static const char *ok[] = { "penalty:0%", "penalty:10%", "penalty:100%", "penalty:007%" };
    static const unsigned pct[] = { 0, 10, 100, 7 };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_true(late_policy_parse(ok[i], &p));
        assert_int_equal(p.kind, LATE_PENALTY);
        assert_int_equal(p.penalty_pct, pct[i]);
    }
    late_policy_format(&(struct late_policy){ LATE_PENALTY, 25 }, text, sizeof text);
    assert_string_equal(text, "penalty:25%");
    late_policy_format(&(struct late_policy){ LATE_NONE, 0 }, text, sizeof text);
    assert_string_equal(text, "none");
}

static void test_refuses_anything_else(void **state)
{
    static const char *bad[] = { "", "None", "penalty", "penalty:", "penalty:%", "penalty:10",
                                 "penalty:101%", "penalty:-5%", "penalty:+5%", "penalty: 5%",
                                 "penalty:5%%", "penalty:5% ", "penalty:1000%", "penalty:5.5%",
                                 "accept ", "half" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct late_policy p = { LATE_ACCEPT, 42 };
        assert_false(late_policy_parse(bad[i], &p));
        assert_int_equal(p.kind, LATE_ACCEPT);   /* left alone */
        assert_int_equal(p.penalty_pct, 42);
    }
    assert_false(late_policy_parse(NULL, &(struct late_policy){ 0 }));
}

/* An on-time 3/9 then a late 9/9: 3, 9 and 4.5 (docs/LTI.md's example). */
static void test_scores_as_the_lti_score(void **state)
{
    struct gradebook_late late = { 1, 3, 9, true };
    struct late_policy none = { LATE_NONE, 0 }, accept = { LATE_ACCEPT, 0 },
                       half = { LATE_PENALTY, 50 };
    assert_true(gradebook_late_score(9, false, &late, &none) == 3.0);
    assert_true(gradebook_late_score(9, false, &late, &accept) == 9.0);
    assert_true(gradebook_late_score(9, false, &late, &half) == 4.5);
    /* the penalty never takes a student below their best on time */
    late = (struct gradebook_late){ 1, 8, 9, true };
    assert_true(gradebook_late_score(9, false, &late, &half) == 8.0);
    /* nothing on time: none gives 0 */
    late = (struct gradebook_late){ 2, -1, 9, true };
    assert_true(gradebook_late_score(9, false, &late, &none) == 0.0);
    /* no late attempt, or a row from files: the score as it is */
    assert_true(gradebook_late_score(6, false, &(struct gradebook_late){ 0, 6, -1, false },
                                     &none) == 6.0);
    assert_true(gradebook_late_score(6, false, NULL, &none) == 6.0);
    /* policy last: the last attempt, counted as late when it is */
    late = (struct gradebook_late){ 1, 3, 9, true };
    assert_true(gradebook_late_score(9, true, &late, &none) == 3.0);
    assert_true(gradebook_late_score(9, true, &late, &half) == 4.5);
    late.chosen_late = false;
    assert_true(gradebook_late_score(2, true, &late, &none) == 2.0);
}

static void test_dates_need_their_zone(void **state)
{
    int64_t ms = 0;
    assert_true(iso8601_ms("2001-02-03T04:05:06Z", &ms));
    assert_true(ms == 981173106000);
    assert_true(iso8601_ms("2001-02-03T05:05:06+01:00", &ms));
    assert_true(ms == 981173106000);
    assert_true(iso8601_ms("2001-02-03 04:05:06.250Z", &ms));
    assert_true(ms == 981173106250);
    static const char *bad[] = { "", "2001-02-03T04:05:06", "2001-02-30T04:05Z", "tomorrow",
                                 "$Canvas.assignment.dueAt.iso8601", "2001-02-03T04:05:06+1:00",
                                 "2001-02-03T24:00Z" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(iso8601_ms(bad[i], &ms));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parses_the_three_policies),
        cmocka_unit_test(test_refuses_anything_else),
        cmocka_unit_test(test_scores_as_the_lti_score),
        cmocka_unit_test(test_dates_need_their_zone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
