/* Harness assembly and shaderc: diagnostics land on the student's lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_bodies.h"

#include "compile.h"
#include "harness.h"

#define correct test_correct_body

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

static void test_harness_wraps_body(void **state)
{
    size_t len;
    char *src = harness_assemble("return 1.0;", 11, &len);
    assert_non_null(src);
    assert_int_equal(strlen(src), len);
    const char *line1 = strstr(src, "#line 1\nreturn 1.0;\n}");
    assert_non_null(line1);
    /* the output buffer is declared only after the body */
    assert_true(strstr(src, "bf_out_block") > line1);
    assert_null(strstr(src, "@BODY@"));
    free(src);
}

static void test_correct_body_compiles(void **state)
{
    struct compile_result r;
    assert_true(compiler_compile(*state, correct, strlen(correct), &r));
    assert_true(r.ok);
    assert_true(r.nwords > 5);
    assert_int_equal(r.spirv[0], 0x07230203u);
    assert_int_equal(r.ndiags, 0);
    compile_result_clear(&r);
}

static void test_syntax_error_on_line_3(void **state)
{
    const char *body = "int i = this.thread.x;\nfloat x = 1.0;\nfloat y = x +* 2.0;\nreturn y;\n";
    struct compile_result r;
    assert_true(compiler_compile(*state, body, strlen(body), &r));
    assert_false(r.ok);
    assert_null(r.spirv);
    assert_true(r.ndiags >= 1);
    assert_int_equal(r.diags[0].line, 3);
    assert_int_equal(r.diags[0].severity, DIAG_ERROR);
    assert_int_equal(r.diags[0].column, 0);
    assert_non_null(strstr(r.diags[0].message, "syntax error"));
    assert_non_null(r.log);
    compile_result_clear(&r);
}

static void test_course_names_work(void **state)
{
    /* this, half, spectrum and PI under the course's names */
    const char *body = "return spectrum[this.thread.y][this.thread.x] * float(half) * PI;";
    struct compile_result r;
    assert_true(compiler_compile(*state, body, strlen(body), &r));
    assert_true(r.ok);
    compile_result_clear(&r);
}

static void test_body_cannot_reach_harness_buffers(void **state)
{
    const char *body = "bf_out[0] = 1.0;\nreturn 0.0;";
    struct compile_result r;
    assert_true(compiler_compile(*state, body, strlen(body), &r));
    assert_false(r.ok);
    assert_int_equal(r.diags[0].line, 1);
    assert_non_null(strstr(r.diags[0].message, "bf_out"));
    compile_result_clear(&r);
}

static void test_macros_cannot_bend_main(void **state)
{
    /* The harness #undefs every name it uses after the body, so these
     * would break main() (and fail to compile) if they reached it. */
    const char *body = "#define float int\n#define bf_out bf_runs\nreturn 1.0;";
    struct compile_result r;
    assert_true(compiler_compile(*state, body, strlen(body), &r));
    assert_true(r.ok);
    compile_result_clear(&r);
    body = "#define bf_cell 0u\n#define main not_main\nreturn 1.0;";
    assert_true(compiler_compile(*state, body, strlen(body), &r));
    assert_true(r.ok);
    compile_result_clear(&r);
}

static void test_unclosed_brace_lands_after_body(void **state)
{
    const char *body = "if (half == 1) {\nreturn 0.0;\n";
    struct compile_result r;
    assert_true(compiler_compile(*state, body, strlen(body), &r));
    assert_false(r.ok);
    assert_true(r.ndiags >= 1);
    for (size_t i = 0; i < r.ndiags; i++)
        assert_int_equal(r.diags[i].line, 3);   /* 2 body lines + 1 */
    compile_result_clear(&r);
}

static void test_parse_log(void **state)
{
    struct diagnostic d[4];
    const char *log = "body:2: error: 'x' : undeclared identifier\n"
                      "body:9: warning: something\n"
                      "1:4: error: 'main' : bad\n"
                      "3 errors generated.\n";
    size_t n = compile_parse_log(log, 5, d, 4);
    assert_int_equal(n, 3);
    assert_int_equal(d[0].line, 2);
    assert_string_equal(d[0].message, "'x' : undeclared identifier");
    assert_int_equal(d[1].severity, DIAG_WARNING);
    assert_int_equal(d[1].line, 6);   /* past the body: after it */
    assert_int_equal(d[2].line, 6);   /* the harness after the body */
    for (size_t i = 0; i < n; i++)
        free(d[i].message);
}

static void test_log_is_capped(void **state)
{
    /* thousands of failing lines: the diagnostics and the log stay bounded */
    size_t n = 4000, len = 0;
    char *body = malloc(n * 16 + 16);
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(body + len, "x%zu = 1;\n", i);
    struct compile_result r;
    assert_true(compiler_compile(*state, body, len, &r));
    assert_false(r.ok);
    assert_true(r.ndiags <= COMPILE_MAX_DIAGNOSTICS);
    assert_true(strlen(r.log) <= COMPILE_MAX_LOG);
    compile_result_clear(&r);
    free(body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_harness_wraps_body),
        cmocka_unit_test(test_correct_body_compiles),
        cmocka_unit_test(test_syntax_error_on_line_3),
        cmocka_unit_test(test_course_names_work),
        cmocka_unit_test(test_body_cannot_reach_harness_buffers),
        cmocka_unit_test(test_macros_cannot_bend_main),
        cmocka_unit_test(test_unclosed_brace_lands_after_body),
        cmocka_unit_test(test_parse_log),
        cmocka_unit_test(test_log_is_capped),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
