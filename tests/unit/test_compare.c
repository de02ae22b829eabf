/* The cell comparison and its NaN, infinity and zero rules. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "engine/compare.h"

#define ATOL 5e-3
#define RTOL 1e-3

static void test_exact(void **state)
{
    assert_true(compare_cell(1.5, 1.5, ATOL, RTOL));
    assert_true(compare_cell(0.0, 0.0, ATOL, RTOL));
}

static void test_inside_tolerance(void **state)
{
    assert_true(compare_cell(1.0, 1.0 + 0.004, ATOL, RTOL));
    /* rtol widens the band for large values: 100 +- (0.005 + 0.1) */
    assert_true(compare_cell(100.0, 100.1, ATOL, RTOL));
    assert_true(compare_cell(-2.0, -2.006, ATOL, RTOL));
}

static void test_outside_tolerance(void **state)
{
    assert_false(compare_cell(1.0, 1.01, ATOL, RTOL));
    assert_false(compare_cell(100.0, 100.2, ATOL, RTOL));
    assert_false(compare_cell(1.0, -1.0, ATOL, RTOL));
}

static void test_nan_never_passes(void **state)
{
    assert_false(compare_cell(1.0, NAN, ATOL, RTOL));
    assert_false(compare_cell(0.0, -NAN, ATOL, RTOL));
    /* even with a tolerance wide enough for anything */
    assert_false(compare_cell(0.0, NAN, INFINITY, 0));
}

static void test_infinity_never_passes(void **state)
{
    assert_false(compare_cell(1.0, INFINITY, ATOL, RTOL));
    assert_false(compare_cell(1.0, -INFINITY, ATOL, RTOL));
    assert_false(compare_cell(1e308, INFINITY, ATOL, 1.0));
}

static void test_negative_zero_equals_zero(void **state)
{
    assert_true(compare_cell(0.0, -0.0, 0, 0));
    assert_true(compare_cell(-0.0, 0.0, 0, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_inside_tolerance),
        cmocka_unit_test(test_outside_tolerance),
        cmocka_unit_test(test_nan_never_passes),
        cmocka_unit_test(test_infinity_never_passes),
        cmocka_unit_test(test_negative_zero_equals_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
