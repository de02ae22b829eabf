/*
 * Named mistakes as data, the pure part: outputs equal a mistake's on
 * every cell of every run within the exercise's tolerance, or they are not
 * that mistake; the first in file order wins.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "engine/mistakes.h"

/* Two runs of a 2 x 2 output: 8 cells in all. */
#define RUNS 2
#define CELLS (RUNS * 4)

static const struct exercise_mistake files[] = {
    { .id = "sign", .title = "The twiddle's sign", .explanation = "w is e^{+i...}" },
    { .id = "swap", .title = "Planes swapped", .explanation = "re and im", .hint = "step j" },
    { .id = "sign_too", .title = "Same as sign", .explanation = "again" },
};

static struct exercise shaped(void)
{
    return (struct exercise){ .id = "tiny", .out_n = 2, .out_planes = 2, .atol = 0.005,
                              .rtol = 0.001, .mistakes = files, .nmistakes = 3 };
}

static const float sign_out[CELLS] = { 1, -1, 0.5f, 2, 3, -3, 0, 100 };
static const float swap_out[CELLS] = { 0.5f, 2, 1, -1, 0, 100, 3, -3 };

static void test_equal_within_tolerance_on_every_cell(void **state)
{
    (void)state;
    struct exercise e = shaped();
    float got[CELLS];
    memcpy(got, sign_out, sizeof got);
    assert_true(mistakes_equal(&e, RUNS, got, sign_out));
    /* 100 allows 0.005 + 0.1 */
    got[7] = 100.1f;
    got[0] = 1.0049f;
    assert_true(mistakes_equal(&e, RUNS, got, sign_out));
    /* one cell of the last run beyond the tolerance is another kernel */
    got[7] = 100.2f;
    assert_false(mistakes_equal(&e, RUNS, got, sign_out));
    /* only the runs given are compared */
    assert_true(mistakes_equal(&e, 1, got, sign_out));
}

static void test_not_finite_never_matches(void **state)
{
    (void)state;
    struct exercise e = shaped();
    float got[CELLS], due[CELLS];
    memcpy(got, sign_out, sizeof got);
    memcpy(due, sign_out, sizeof due);
    got[2] = NAN;
    assert_false(mistakes_equal(&e, RUNS, got, sign_out));
    due[2] = got[2];   /* a mistake that writes NaN proves nothing by it */
    assert_false(mistakes_equal(&e, RUNS, got, due));
    assert_false(mistakes_equal(&e, RUNS, sign_out, NULL));
    assert_false(mistakes_equal(&e, 0, sign_out, sign_out));
}

static void test_first_in_file_order_wins(void **state)
{
    (void)state;
    struct exercise e = shaped();
    const float *due[] = { sign_out, swap_out, sign_out };
    assert_int_equal(mistakes_match(&e, RUNS, sign_out, due), 0);
    assert_int_equal(mistakes_match(&e, RUNS, swap_out, due), 1);
    /* a mistake that could not be run is passed over */
    const float *first_missing[] = { NULL, swap_out, sign_out };
    assert_int_equal(mistakes_match(&e, RUNS, sign_out, first_missing), 2);
    float other[CELLS] = { 0 };
    assert_int_equal(mistakes_match(&e, RUNS, other, due), -1);
    e.nmistakes = 0;
    assert_int_equal(mistakes_match(&e, RUNS, sign_out, due), -1);
}

static void test_diagnosis_carries_the_file_header(void **state)
{
    (void)state;
    struct diagnosis *d = mistakes_diagnosis(&files[1]);
    assert_non_null(d);
    assert_string_equal(d->id, "swap");
    assert_string_equal(d->title, "Planes swapped");
    assert_string_equal(d->explanation, "re and im");
    assert_string_equal(d->hint, "step j");
    diagnosis_free(d);
    d = mistakes_diagnosis(&files[0]);
    assert_string_equal(d->hint, "");
    diagnosis_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal_within_tolerance_on_every_cell),
        cmocka_unit_test(test_not_finite_never_matches),
        cmocka_unit_test(test_first_in_file_order_wins),
        cmocka_unit_test(test_diagnosis_carries_the_file_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
