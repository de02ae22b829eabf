/*
 * test_lti_tag.c - a launch's tag (server/lti_tag.h): read back for the
 * student it was made for, refused for anyone else, under another key,
 * altered, or malformed (issue 29 item 6: a student cannot name a
 * resource link they were not launched from).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "server/identity/lti_tag.h"

static const uint8_t key[SESSION_KEY_BYTES] = { 1, 2, 3, 4 };
static const uint8_t other_key[SESSION_KEY_BYTES] = { 9, 9, 9 };

static void test_round_trip_and_refusals(void **state)
{
    (void)state;
    char tag[LTI_TAG_SIZE], t2[LTI_TAG_SIZE + 2];
    assert_true(lti_tag_make(key, "ada", 42, tag));
    assert_int_equal(lti_tag_read(key, "ada", tag), 42);
    assert_int_equal(lti_tag_read(key, "bob", tag), 0);          /* another student's page */
    assert_int_equal(lti_tag_read(other_key, "ada", tag), 0);    /* another server's key */
    /* another link with this link's signature */
    snprintf(t2, sizeof t2, "43%s", strchr(tag, '.'));
    assert_int_equal(lti_tag_read(key, "ada", t2), 0);
    /* one hex digit changed */
    snprintf(t2, sizeof t2, "%s", tag);
    t2[strlen(t2) - 1] = t2[strlen(t2) - 1] == '0' ? '1' : '0';
    assert_int_equal(lti_tag_read(key, "ada", t2), 0);
    /* the same link with a leading zero, a sign, no MAC, too long, nothing */
    snprintf(t2, sizeof t2, "0%s", tag);
    assert_int_equal(lti_tag_read(key, "ada", t2), 0);
    snprintf(t2, sizeof t2, "+%s", tag);
    assert_int_equal(lti_tag_read(key, "ada", t2), 0);
    assert_int_equal(lti_tag_read(key, "ada", "42."), 0);
    assert_int_equal(lti_tag_read(key, "ada", "42"), 0);
    assert_int_equal(lti_tag_read(key, "ada", "9999999999999999999.0123456789abcdef0123456789abcdef"), 0);
    char longer[200];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_int_equal(lti_tag_read(key, "ada", longer), 0);
    assert_int_equal(lti_tag_read(key, "ada", ""), 0);
    assert_int_equal(lti_tag_read(key, "ada", NULL), 0);
    assert_int_equal(lti_tag_read(key, NULL, tag), 0);
    /* no tag for no link */
    assert_false(lti_tag_make(key, "ada", 0, tag));
    assert_false(lti_tag_make(key, "ada", -1, tag));
    assert_false(lti_tag_make(key, "ada", LTI_TAG_MAX_LINK + 1, tag));
    /* the biggest link fits */
    assert_true(lti_tag_make(key, "ada", 999999999999999999LL, tag));
    assert_int_equal(lti_tag_read(key, "ada", tag), 999999999999999999LL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
