/* Reference butterfly against passes worked out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "engine/reference.h"

static const float ramp[2][8] = {
    { 1, 2, 3, 4, 5, 6, 7, 8 },
    { 0, 0, 0, 0, 0, 0, 0, 0 },
};

static void expect_pass(const float in[2][8], int half, const double want[2][8])
{
    double out[2][8];
    reference_pass(in, half, out);
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < 8; i++)
            assert_true(fabs(out[p][i] - want[p][i]) < 1e-12);
}

static void test_half1_is_sum_and_difference(void **state)
{
    /* w = 1 everywhere: pairs (0,1) (2,3) ... give a+b and a-b */
    static const double want[2][8] = {
        { 3, -1, 7, -1, 11, -1, 15, -1 },
        { 0, 0, 0, 0, 0, 0, 0, 0 },
    };
    expect_pass(ramp, 1, want);
}

static void test_half1_complex_inputs(void **state)
{
    /* a = 1, b = i: a + b = 1 + i, a - b = 1 - i */
    static const float in[2][8] = { { 1, 0 }, { 0, 1 } };
    static const double want[2][8] = { { 1, 1 }, { 1, -1 } };
    expect_pass(in, 1, want);
}

static void test_half2_quarter_turn(void **state)
{
    /* i = 1 and 3 use w = e^(-i pi/2) = -i, so w * 4 = -4i */
    static const double want[2][8] = {
        { 4, 2, -2, 2, 12, 6, -2, 6 },
        { 0, -4, 0, 4, 0, -8, 0, 8 },
    };
    expect_pass(ramp, 2, want);
}

static void test_half4_eighth_turns(void **state)
{
    const double s = sqrt(0.5);
    /* w_r = e^(-i pi r/4): b = 6 * w_1, 7 * w_2 = -7i, 8 * w_3 */
    const double want[2][8] = {
        { 6, 2 + 6 * s, 3, 4 - 8 * s, -4, 2 - 6 * s, 3, 4 + 8 * s },
        { 0, -6 * s, -7, -8 * s, 0, 6 * s, 7, 8 * s },
    };
    expect_pass(ramp, 4, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_half1_is_sum_and_difference),
        cmocka_unit_test(test_half1_complex_inputs),
        cmocka_unit_test(test_half2_quarter_turn),
        cmocka_unit_test(test_half4_eighth_turns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
