/* The strict number parser behind every command-line option. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/parse_num.h"

static void test_accepts_plain_numbers(void **state)
{
    uint64_t x = 0;
    assert_true(parse_u64("0", 10, &x));
    assert_int_equal(x, 0);
    assert_true(parse_u64("600000", 600000, &x));
    assert_int_equal(x, 600000);
    assert_true(parse_u64("18446744073709551615", UINT64_MAX, &x));
    assert_true(x == UINT64_MAX);
}

static void test_refuses_everything_else(void **state)
{
    static const char *bad[] = { "", "-1", "+1", " 1", "1 ", "1x", "0x10", "abc",
                                 "18446744073709551616", "600001" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t x = 42;
        assert_false(parse_u64(bad[i], 600000, &x));
        assert_int_equal(x, 42);   /* left alone on failure */
    }
    uint64_t x = 42;
    assert_false(parse_u64(NULL, 10, &x));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepts_plain_numbers),
        cmocka_unit_test(test_refuses_everything_else),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
