/*
 * An exercise of another shape than the butterfly's (16 x 1, "scale",
 * tests/support/scale_exercise.h) graded on a real Vulkan device through
 * grader_grade_exercise: its harness, sweep, inputs, reference, loop
 * budget and grid are its own, and the butterfly graded by the same
 * grader before and after it is unchanged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/grade.h"
#include "tests/support/device_fixture.h"
#include "tests/support/scale_exercise.h"
#include "tests/test_bodies.h"

static struct grader *grader;

static const char right_body[] = "return float(factor) * values[0][this.thread.x];\n";

/* Right for factor = 1 only, and then only because it returns the input. */
static const char half_right_body[] =
    "int i = this.thread.x;\n"
    "return i < 8 ? float(factor) * values[0][i] : values[0][i];\n";

static struct verdict *grade(const struct exercise *e, const char *body)
{
    struct verdict *v = grader_grade_exercise(grader, e, body, strlen(body));
    assert_non_null(v);
    print_message("%s: %s: %s\n", e->id, verdict_status_to_str(v->status),
                  v->message ? v->message : "");
    return v;
}

static void test_right_body_accepted(void **state)
{
    (void)state;
    struct exercise e = scale_exercise();
    struct verdict *v = grade(&e, right_body);
    assert_int_equal(v->status, VERDICT_ACCEPTED);
    assert_string_equal(v->task, "scale");
    assert_int_equal(v->grid_n, 16);
    assert_int_equal(v->grid_planes, 1);
    assert_int_equal(v->halves_run, 3);
    for (int h = 0; h < 3; h++) {
        const struct half_result *hr = &v->halves[h];
        assert_int_equal(hr->half, e.sweep[h]);
        assert_true(hr->passed);
        assert_int_equal(hr->hidden_total, 2);
        assert_int_equal(hr->hidden_passed, 2);
        for (int i = 0; i < 16; i++) {
            assert_true(hr->cells[0][i].passed);
            assert_true(hr->cells[0][i].expected == (double)e.sweep[h] * e.visible[0][i]);
        }
    }
    assert_string_equal(v->message, "Every cell is right for factor = 1, 3 and -2, on the "
                                    "visible and the hidden inputs.");
    assert_null(v->diagnosis);
    assert_null(v->worked_cells);

    /* the JSON holds the exercise's id and grid, and reads back to them */
    size_t len;
    char *bytes = verdict_to_bytes(v, &len);
    assert_non_null(bytes);
    assert_non_null(strstr(bytes, "\"task\":\"scale\""));
    struct verdict *back = verdict_from_bytes(bytes, len);
    assert_non_null(back);
    assert_string_equal(back->task, "scale");
    assert_int_equal(back->grid_n, 16);
    assert_int_equal(back->grid_planes, 1);
    assert_int_equal(back->halves_run, 3);
    assert_true(back->halves[2].cells[0][15].expected == v->halves[2].cells[0][15].expected);
    verdict_free(back);
    free(bytes);
    verdict_free(v);
}

static void test_wrong_body_fails_its_cells(void **state)
{
    (void)state;
    struct exercise e = scale_exercise();
    struct verdict *v = grade(&e, half_right_body);
    assert_int_equal(v->status, VERDICT_WRONG_ANSWER);
    assert_int_equal(v->halves_run, 3);
    assert_true(v->halves[0].passed);          /* factor = 1 */
    for (int h = 1; h < 3; h++) {
        assert_false(v->halves[h].passed);
        assert_int_equal(v->halves[h].hidden_passed, 0);
        for (int i = 0; i < 16; i++)
            assert_int_equal(v->halves[h].cells[0][i].passed, i < 8);
    }
    assert_string_equal(v->message, "Wrong for factor = 3, -2; the other values are right.");
    /* the butterfly's search is not this exercise's */
    assert_null(v->diagnosis);
    assert_null(v->worked_cell);
    verdict_free(v);
}

static void test_its_own_loop_budget(void **state)
{
    (void)state;
    struct exercise e = scale_exercise();
    /* 200 iterations: far within the butterfly's budget, over this one's 100 */
    const char *body = "float s = 0.0;\n"
                       "for (int k = 0; k < 200 + int(values[0][0]); k++)\n"
                       "    s += 1.0;\n"
                       "return s;\n";
    struct verdict *v = grade(&e, body);
    assert_int_equal(v->status, VERDICT_TIME_LIMIT);
    assert_non_null(v->loop);
    assert_int_equal(v->loop->limit, 100);
    assert_int_equal(v->loop->line, 2);
    assert_non_null(strstr(v->message, "(factor = 1, the visible values)"));
    assert_null(strstr(v->message, "butterfly"));
    verdict_free(v);
}

static void test_butterfly_beside_it(void **state)
{
    (void)state;
    struct exercise e = scale_exercise();
    /* the same shape under the butterfly's names: one text, two exercises */
    struct exercise named = e;
    named.id = "scale_named";
    named.function = "butterfly";
    named.param = "half";
    named.input = "spectrum";
    const char *both = "return float(half) * spectrum[0][this.thread.x];\n";

    struct verdict *v = grade(exercise_default(), test_correct_body);
    assert_int_equal(v->status, VERDICT_ACCEPTED);
    verdict_free(v);

    v = grade(&named, both);
    assert_int_equal(v->status, VERDICT_ACCEPTED);
    assert_int_equal(v->grid_n, 16);
    verdict_free(v);

    /* the kept kernel of that text is the other exercise's: not reused */
    v = grade(exercise_default(), both);
    assert_int_equal(v->status, VERDICT_WRONG_ANSWER);
    assert_string_equal(v->task, "butterfly");
    assert_int_equal(v->grid_n, 8);
    assert_int_equal(v->grid_planes, 2);
    assert_int_equal(v->halves_run, 3);
    assert_int_equal(v->halves[2].half, 4);
    verdict_free(v);

    v = grade(exercise_default(), test_correct_body);
    assert_int_equal(v->status, VERDICT_ACCEPTED);
    assert_string_equal(v->message, "Every cell is right for half = 1, 2 and 4, on the visible "
                                    "and the hidden spectra.");
    verdict_free(v);
}

static void test_exercise_too_large_is_refused(void **state)
{
    (void)state;
    struct exercise e = scale_exercise();
    e.out_n = EX_MAX_N + 1;
    struct verdict *v = grade(&e, right_body);
    assert_int_equal(v->status, VERDICT_INTERNAL_ERROR);
    assert_int_equal(v->halves_run, 0);
    verdict_free(v);
}

int main(void)
{
    grader = device_fixture_grader();
    if (!grader)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_right_body_accepted),
        cmocka_unit_test(test_wrong_body_fails_its_cells),
        cmocka_unit_test(test_its_own_loop_budget),
        cmocka_unit_test(test_butterfly_beside_it),
        cmocka_unit_test(test_exercise_too_large_is_refused),
    };
    int failed = cmocka_run_group_tests_name("exercise_shape", tests, NULL, NULL);
    grader_free(grader);
    return failed;
}
