/*
 * The harness template filled for an exercise: the butterfly's is its
 * harness as it was before exercises were data (tests/unit/
 * harness_butterfly.comp, the text its verdicts were made with), and
 * another shape's is its own and compiles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/io/read_input.h"
#include "engine/compile/compile.h"
#include "engine/harness.h"
#include "tests/support/scale_exercise.h"

static const char *butterfly_harness_path;

static void test_butterfly_harness_is_the_old_one(void **state)
{
    (void)state;
    char err[256];
    size_t want_len, len;
    char *want = read_input(butterfly_harness_path, 1 << 20, &want_len, err, sizeof err);
    assert_non_null(want);
    /* the old template's marker line is where the body goes */
    const char *mark = strstr(want, "\n@BODY@\n");
    assert_non_null(mark);
    const char *body = "int i = this.thread.x;\nreturn spectrum[0][i];";
    char *got = harness_assemble(exercise_default(), body, strlen(body), &len);
    assert_non_null(got);
    size_t head = (size_t)(mark - want) + 1;
    /* scripts/embed.py ends every line it embeds with a newline, the empty
     * one after the file's last newline too: the harness as it was built
     * and compiled is the file and one more newline */
    assert_int_equal(len, want_len + 1 - strlen("@BODY@") + strlen(body));
    assert_memory_equal(got, want, head);
    assert_memory_equal(got + head, body, strlen(body));
    const char *tail = mark + 1 + strlen("@BODY@");
    assert_memory_equal(got + head + strlen(body), tail, strlen(tail));
    assert_string_equal(got + head + strlen(body) + strlen(tail), "\n");
    free(got);
    free(want);
}

static void test_other_shape_has_its_own_names_and_sizes(void **state)
{
    (void)state;
    struct exercise e = scale_exercise();
    size_t len;
    char *src = harness_assemble(&e, "return 0.0;", 11, &len);
    assert_non_null(src);
    assert_int_equal(strlen(src), len);
    assert_non_null(strstr(src, "layout(local_size_x = 16, local_size_y = 1, local_size_z = 1) in;"));
    assert_non_null(strstr(src, "    float spec[1][16];"));
    assert_non_null(strstr(src, "#define factor bf_half\n#define values (bf_in.spec)"));
    assert_non_null(strstr(src, "float scale(const in bf_this_t"));
    assert_non_null(strstr(src, "#undef scale\n"));
    assert_non_null(strstr(src, "    float bf_value[16];\n    uint bf_loop[16];"));
    assert_non_null(strstr(src, "gl_LocalInvocationID.y * 16u +"));
    assert_non_null(strstr(src, "that run's 68 bytes"));   /* 4 + 16 floats */
    /* nothing of the template's own is left, and nothing of the butterfly's */
    assert_null(strchr(src, '@'));
    assert_null(strstr(src, "butterfly"));
    assert_null(strstr(src, "spectrum"));
    free(src);
}

/* The title goes into a comment: a newline in it must not end the comment. */
static void test_title_stays_a_comment(void **state)
{
    (void)state;
    struct exercise e = scale_exercise();
    e.title = "Two\nlines: return 1.0; }";
    struct compiler *c = compiler_new();
    assert_non_null(c);
    struct compile_result r;
    const char *right = "return float(factor) * values[0][this.thread.x];";
    assert_true(compiler_compile_exercise(c, &e, right, strlen(right), &r));
    assert_true(r.ok);
    compile_result_clear(&r);
    compiler_free(c);
}

static void test_other_shape_compiles(void **state)
{
    (void)state;
    struct exercise e = scale_exercise();
    struct compiler *c = compiler_new();
    assert_non_null(c);
    struct compile_result r;
    const char *right = "return float(factor) * values[0][this.thread.x];";
    assert_true(compiler_compile_exercise(c, &e, right, strlen(right), &r));
    assert_true(r.ok);
    compile_result_clear(&r);
    /* the butterfly's names mean nothing in it */
    const char *theirs = "return float(half) * spectrum[0][this.thread.x];";
    assert_true(compiler_compile_exercise(c, &e, theirs, strlen(theirs), &r));
    assert_false(r.ok);
    assert_true(r.ndiags > 0);
    assert_int_equal(r.diags[0].line, 1);
    compile_result_clear(&r);
    compiler_free(c);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_harness HARNESS_BUTTERFLY_COMP\n");
        return 64;
    }
    butterfly_harness_path = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_butterfly_harness_is_the_old_one),
        cmocka_unit_test(test_other_shape_has_its_own_names_and_sizes),
        cmocka_unit_test(test_other_shape_compiles),
        cmocka_unit_test(test_title_stays_a_comment),
    };
    return cmocka_run_group_tests_name("harness", tests, NULL, NULL);
}
