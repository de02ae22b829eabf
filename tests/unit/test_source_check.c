/* The checks before compiling: size, NUL, UTF-8, blank, directives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/defaults.h"
#include "common/task.h"
#include "engine/checks/source_check.h"

static char msg[256];
static int line;

static bool check(const char *s, size_t len)
{
    msg[0] = '\0';
    return source_check(s, len, &line, msg, sizeof msg);
}

#define CHECK_STR(s) check((s), strlen(s))

static void test_plain_body_passes(void **state)
{
    assert_true(CHECK_STR("return spectrum[0][this.thread.x];\n"));
    /* #define and #if are the student's own business */
    assert_true(CHECK_STR("#define TWO 2.0\n#if 1\nreturn TWO;\n#endif\n"));
    /* UTF-8 in a comment is fine */
    assert_true(CHECK_STR("// w = e^(−iπ·r/half)\nreturn 0.0;"));
}

/* A macro bomb is refused before glslang, on the line that expands it. */
static void test_macro_bomb_is_refused(void **state)
{
    (void)state;
    assert_false(CHECK_STR("#define A x = x + 1.0;\n#define B A A A A A A A A A A\n"
                           "#define C B B B B B B B B B B\n#define D C C C C C C C C C C\n"
                           "#define E D D D D D D D D D D\n#define F E E E E E E E E E E\n"
                           "float x = 0.0;\nF\nreturn x;\n"));
    assert_int_equal(line, 8);
    char want[96];
    snprintf(want, sizeof want, "line 8: your macros expand to more than %u tokens",
             MAX_PREPROCESSED_TOKENS);
    assert_non_null(strstr(msg, want));
    /* a few macros are the student's own business */
    assert_true(CHECK_STR("#define A x = x + 1.0;\n#define B A A A A A A A A A A\n"
                          "float x = 0.0;\nB B B\nreturn x;\n"));
}

static void test_empty_and_blank(void **state)
{
    assert_false(check("", 0));
    assert_non_null(strstr(msg, "empty"));
    assert_false(CHECK_STR("  \n\t\r\n  "));
    assert_non_null(strstr(msg, "empty"));
}

static void test_size_limit(void **state)
{
    char *big = malloc(TASK_MAX_SOURCE + 1);
    memset(big, ' ', TASK_MAX_SOURCE + 1);
    memcpy(big, "return 0.0;", 11);
    assert_true(check(big, TASK_MAX_SOURCE));
    assert_false(check(big, TASK_MAX_SOURCE + 1));
    assert_non_null(strstr(msg, "64 KiB"));
    free(big);
}

static void test_nul_byte(void **state)
{
    assert_false(check("return 0.0;\n\0x", 14));
    assert_non_null(strstr(msg, "NUL"));
    assert_int_equal(line, 2);
    /* a body of nothing but NUL bytes is a binary file, not an empty body */
    assert_false(check("\0\0\0\0", 4));
    assert_non_null(strstr(msg, "NUL"));
    assert_null(strstr(msg, "empty"));
}

static void test_invalid_utf8(void **state)
{
    static const char *bad[] = {
        "return 0.0; // \xff",          /* never valid */
        "return 0.0; // \xc0\xaf",      /* overlong '/' */
        "return 0.0; // \xed\xa0\x80",  /* surrogate */
        "return 0.0; // \xf4\x90\x80\x80", /* above U+10FFFF */
        "return 0.0; // \xe2\x82",      /* cut short */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(CHECK_STR(bad[i]));
        assert_non_null(strstr(msg, "UTF-8"));
    }
}

static void test_control_characters(void **state)
{
    /* ESC, DEL and the other C0 controls are refused on their line ... */
    static const char *bad[] = { "float a;\n#error \x1b[31m\nreturn 0.0;",
                                 "float a;\nreturn 0.0; // \x7f", "float a;\n\x01return 0.0;" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(CHECK_STR(bad[i]));
        assert_non_null(strstr(msg, "control character"));
        assert_int_equal(line, 2);
    }
    /* ... GLSL's whitespace is not */
    assert_true(CHECK_STR("float a;\t\v\f\r\nreturn 0.0;"));
    /* a NUL later on says more about the file */
    assert_false(check("\x1b return 0.0;\n\0", 15));
    assert_non_null(strstr(msg, "NUL"));
}

static void test_each_directive_has_its_message(void **state)
{
    static const struct { const char *src; const char *name; const char *why; } cases[] = {
        { "#version 460\nreturn 0.0;", "#version", "GLSL version" },
        { "#extension GL_EXT_buffer_reference : enable\nreturn 0.0;", "#extension", "extensions" },
        { "#include \"/etc/hostname\"\nreturn 0.0;", "#include", "stand on its own" },
        { "#line 100\nreturn 0.0;", "#line", "line numbers" },
        { "#pragma optimize(off)\nreturn 0.0;", "#pragma", "#pragma" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_false(CHECK_STR(cases[i].src));
        assert_non_null(strstr(msg, cases[i].name));
        assert_non_null(strstr(msg, cases[i].why));
        assert_int_equal(line, 1);
    }
}

static void test_disguised_directives(void **state)
{
    /* comments before and after the #, spaces, and line continuations */
    assert_false(CHECK_STR("float x = 1.0;\n  /* c */ # /* d */ version 450\n"));
    assert_int_equal(line, 2);
    assert_false(CHECK_STR("#\\\nextension GL_EXT_x : enable\n"));
    assert_false(CHECK_STR("#ver\\\nsion 450\n"));
    assert_false(CHECK_STR("/* many\nlines\n*/ #pragma x\n"));
    assert_int_equal(line, 3);
}

static void test_carriage_returns_end_lines_too(void **state)
{
    /* glslang ends a line at a lone CR, and joins continuations written
     * with CR or CRLF: each of these is a directive to it */
    assert_false(CHECK_STR("float x = 1.0;\r#extension GL_EXT_buffer_reference : enable\n"));
    assert_non_null(strstr(msg, "#extension"));
    assert_false(CHECK_STR("// comment\r#pragma x\n"));
    assert_false(CHECK_STR("#\\\r\nextension GL_EXT_x : enable\n"));
    assert_false(CHECK_STR("#\\\rversion 450\n"));
    assert_false(CHECK_STR("#inc\\\n\\\nlude \"x\"\n"));
    /* CRLF line ends count lines as LF does */
    assert_false(CHECK_STR("float x;\r\nfloat y;\r\n#line 7\r\n"));
    assert_int_equal(line, 3);
}

static void test_not_directives(void **state)
{
    /* a # that is not the first token, or one inside a comment */
    assert_true(CHECK_STR("// #version 450\nreturn 0.0;"));
    assert_true(CHECK_STR("/* #extension x */ return 0.0;"));
    assert_true(CHECK_STR("#define V version\nreturn 0.0;"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_body_passes),
        cmocka_unit_test(test_macro_bomb_is_refused),
        cmocka_unit_test(test_empty_and_blank),
        cmocka_unit_test(test_size_limit),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_invalid_utf8),
        cmocka_unit_test(test_control_characters),
        cmocka_unit_test(test_each_directive_has_its_message),
        cmocka_unit_test(test_disguised_directives),
        cmocka_unit_test(test_carriage_returns_end_lines_too),
        cmocka_unit_test(test_not_directives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
