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
#include "engine/compile/compile.h"

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

/* A body that calls helper() `calls` times, each call a separate site;
 * helper holds a 15.6 KiB array (4,000 floats). */
static char *helper_body(int calls)
{
    size_t cap = 512 + (size_t)calls * 24, n = 0;
    char *body = malloc(cap);
    n += (size_t)snprintf(body + n, cap - n, "float helper(int k);\nfloat s = 0.0;\n");
    for (int c = 0; c < calls; c++)
        n += (size_t)snprintf(body + n, cap - n, "s += helper(%d);\n", c);
    snprintf(body + n, cap - n, "return s;\n}\nfloat helper(int k) {\nfloat arr[4000];\n"
             "arr[k] = 1.0;\nreturn arr[3];\n");
    return body;
}

/* Memory is counted on the module as it will run, every call inlined: a
 * helper's array counts once per call. */
static void test_private_memory_after_inlining(void **state)
{
    char msg[320];
    int line;
    char *body = helper_body(1);
    assert_true(check(*state, body, &line, msg, sizeof msg));
    free(body);
    static const struct { int calls; const char *size, *times; } refused[] = {
        { 2, "31.3 KiB", "runs 2 times" },
        { 64, "1000.", "runs 64 times" },
        { 256, "3.9 MiB", "runs 256 times" },
    };
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        body = helper_body(refused[k].calls);
        assert_false(check(*state, body, &line, msg, sizeof msg));
        assert_non_null(strstr(msg, "the function 'helper' has 15.6 KiB"));
        assert_non_null(strstr(msg, "'arr'"));
        assert_non_null(strstr(msg, refused[k].times));
        assert_non_null(strstr(msg, refused[k].size));
        free(body);
    }
    /* a call inside a helper called twice is two copies too */
    const char *nested = "float outer(int k);\nreturn outer(1) + outer(2);\n}\n"
                         "float inner(int k) {\nfloat arr[3000];\narr[k] = 1.0;\nreturn arr[3];\n}\n"
                         "float outer(int k) {\nreturn inner(k) + inner(k + 1);\n";
    assert_false(check(*state, nested, &line, msg, sizeof msg));
    assert_non_null(strstr(msg, "'inner'"));
    assert_non_null(strstr(msg, "runs 4 times"));
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
        cmocka_unit_test(test_private_memory_after_inlining),
        cmocka_unit_test(test_double_is_refused_on_its_line),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
