/*
 * docs/EXERCISES.md's worked example, graded (issue 33, item 8): the
 * folder the doc writes out (test_doc_example.py writes it, from the doc
 * as it stands) is loaded from disk with the doc's own reference.c,
 * compiled into this test (meson extracts it from the doc), and checked
 * on a device as the check on load checks: every solution gets what its
 * expect line says, the named mistake is told apart, and the starter a
 * student would submit unchanged is diagnosed as that mistake, with the
 * mistake file's title, explanation and hint.
 *
 * usage: test_doc_example FOLDER
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/exercise/exercise_check.h"
#include "common/exercise/exercise_dir.h"
#include "common/exercise/exercise_load.h"
#include "engine/grade.h"
#include "tests/support/device_fixture.h"

/* The doc's reference.c, compiled under this name (tests/meson.build). */
void doc_scale_reference(int param, const float *in, double *out);

static struct grader *grader;
static struct exercise *scale;
static const char *folder;

static void test_the_example_checks_as_the_doc_says(void **state)
{
    (void)state;
    struct exercise_check c = { 0 };
    assert_true(exercise_check_run(scale, folder, device_fixture_grade, grader, &c));
    for (size_t i = 0; i < c.nproblems; i++)
        fprintf(stderr, "problem: %s\n", c.problems[i]);
    assert_int_equal(c.nproblems, 0);
    assert_true(c.reference_ok);
    assert_int_equal(c.solutions_ok, scale->nsolutions);
    assert_int_equal(scale->nsolutions, 4);    /* right, right_local, unscaled, always_two */
    assert_int_equal(c.mistakes_ok, 1);
    char summary[256];
    exercise_check_summary(scale, folder, &c, summary, sizeof summary);
    printf("%s\n", summary);
    exercise_check_clear(&c);
}

static void test_the_starter_is_the_named_mistake(void **state)
{
    (void)state;
    struct verdict *v = grader_grade_exercise(grader, scale, scale->starter,
                                              strlen(scale->starter));
    assert_non_null(v);
    assert_int_equal(v->status, VERDICT_WRONG_ANSWER);
    assert_non_null(v->diagnosis);
    assert_string_equal(v->diagnosis->id, "copies_input");
    assert_string_equal(v->diagnosis->title, "The input is returned unscaled");
    assert_string_equal(v->diagnosis->hint, "Multiply the element by factor.");
    verdict_free(v);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_doc_example FOLDER\n");
        return 2;
    }
    folder = argv[1];
    char err[512];
    scale = exercise_dir_load(folder, err, sizeof err);
    if (!scale) {
        fprintf(stderr, "the doc's example does not load: %s\n", err);
        return 1;
    }
    scale->reference = doc_scale_reference;
    grader = device_fixture_grader();
    if (!grader) {
        exercise_load_free(scale);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_example_checks_as_the_doc_says),
        cmocka_unit_test(test_the_starter_is_the_named_mistake),
    };
    int failed = cmocka_run_group_tests_name("doc_example", tests, NULL, NULL);
    grader_free(grader);
    exercise_load_free(scale);
    return failed;
}
