/*
 * What a compiled kernel may cost, on modules glslang makes from bodies (no
 * device needed): per-thread variables up to 16 KiB pass and more is
 * refused with the array's name; double precision is refused in plain
 * words, on the line where it is first used.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/test_bodies.h"

#include "engine/checks/spirv_check.h"
#include "engine/checks/spirv_cost.h"
#include "engine/compile.h"

static int setup(void **state)
{
    *state = compiler_new();
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    compiler_free(*state);
    return 0;
}

/* Compiles body and runs spirv_check on it; *line gets its line. */
static bool check(struct compiler *c, const char *body, int *line, char *msg, size_t msgsz)
{
    struct compile_result r;
    assert_true(compiler_compile(c, body, strlen(body), &r));
    if (!r.ok)
        fail_msg("does not compile: %s", r.log ? r.log : "");
    bool ok = spirv_check(r.spirv, r.nwords, line, msg, msgsz);
    compile_result_clear(&r);
    return ok;
}

static void test_correct_body_passes(void **state)
{
    char msg[256];
    int line = -1;
    assert_true(check(*state, test_correct_body, &line, msg, sizeof msg));
    assert_int_equal(line, 0);
}

static void test_private_memory_limit(void **state)
{
    char msg[256], body[256];
    int line;
    /* 3,900 floats (15.2 KiB) and the harness's own few variables fit */
    snprintf(body, sizeof body, "float small[3900];\nsmall[this.thread.x] = 1.0;\n"
             "return small[3];\n");
    assert_true(check(*state, body, &line, msg, sizeof msg));
    /* 4,200 (16.4 KiB) do not */
    snprintf(body, sizeof body, "float table[4200];\ntable[this.thread.x] = 1.0;\n"
             "return table[3];\n");
    assert_false(check(*state, body, &line, msg, sizeof msg));
    assert_non_null(strstr(msg, "'table'"));
    assert_non_null(strstr(msg, "at most 16 KiB"));
    /* 64 M floats, which took lavapipe's LLVM to its memory cap */
    snprintf(body, sizeof body, "float big[67108864];\nbig[this.thread.x] = 1.0;\n"
             "return big[3];\n");
    assert_false(check(*state, body, &line, msg, sizeof msg));
    assert_non_null(strstr(msg, "256.0 MiB"));
}

static void test_double_is_refused_on_its_line(void **state)
{
    char msg[256];
    int line = 0;
    const char *body = "int i = this.thread.x;\n"
                       "float f = spectrum[0][i];\n"
                       "double d = double(f) * 2.0lf;\n"
                       "return float(d);\n";
    assert_false(check(*state, body, &line, msg, sizeof msg));
    assert_string_equal(msg, "double precision is not available in this exercise; use float");
    assert_int_equal(line, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_correct_body_passes),
        cmocka_unit_test(test_private_memory_limit),
        cmocka_unit_test(test_double_is_refused_on_its_line),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
