/*
 * The loop budget's SPIR-V pass, on modules glslang really makes from
 * bodies (no device needed): every loop is found, in order, with its
 * line; the rewritten module is valid SPIR-V, its count joining a loop's
 * own exit test where it can; a body without loops comes
 * out unchanged; and stripping debug information makes bodies that differ
 * only in comments and names the same.
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

#include "engine/checks/spirv_loops.h"
#include "engine/checks/spirv_robust.h"
#include "engine/checks/spirv_strip.h"
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

/* Compiles a body and clamps it, as the grader does before the pass. */
static uint32_t *compiled(struct compiler *c, const char *body, size_t *nwords)
{
    struct compile_result r;
    uint32_t *safe = NULL;
    char msg[256];
    assert_true(compiler_compile(c, body, strlen(body), &r));
    if (!r.ok)
        fail_msg("does not compile: %s", r.log ? r.log : "");
    assert_true(spirv_robust_apply(r.spirv, r.nwords, &safe, nwords, msg, sizeof msg));
    compile_result_clear(&r);
    return safe;
}

/* The number of OpReturn and OpReturnValue instructions in a module. */
static unsigned returns(const uint32_t *w, size_t n)
{
    unsigned count = 0;
    for (size_t at = 5; at < n && (w[at] >> 16) > 0; at += w[at] >> 16)
        count += (w[at] & 0xffff) == 253 || (w[at] & 0xffff) == 254;   /* OpReturn(Value) */
    return count;
}

/* The returns the last instrument() added: one per loop whose bail
 * returns, none for a loop whose count joined its own exit test. */
static unsigned added_returns;

/* Instruments, checks the result is valid, and returns the loop count. */
static size_t instrument(struct compiler *c, const char *body, int *lines, size_t max_lines)
{
    size_t n, out_n, nloops;
    uint32_t *out;
    char msg[256];
    uint32_t *words = compiled(c, body, &n);
    if (!spirv_loops_instrument(words, n, 10000, &out, &out_n, &nloops, msg, sizeof msg))
        fail_msg("instrumenting failed: %s", msg);
    if (!spirv_robust_validate(out, out_n, msg, sizeof msg))
        fail_msg("the instrumented module is invalid: %s", msg);
    added_returns = returns(out, out_n) - returns(words, n);
    for (size_t k = 0; k < nloops && k < max_lines; k++)
        lines[k] = spirv_loops_line(words, n, (uint32_t)(k + 1));
    if (nloops == 0) {   /* nothing to count: the module comes back as it was */
        assert_int_equal(out_n, n);
        assert_memory_equal(out, words, n * sizeof *words);
    } else {
        assert_true(out_n > n);
    }
    free(out);
    free(words);
    return nloops;
}

static void test_no_loop_is_unchanged(void **state)
{
    int lines[1];
    assert_int_equal(instrument(*state, test_correct_body, lines, 1), 0);
}

/* The number of OpStore instructions in a module. */
static unsigned stores(const uint32_t *w, size_t n)
{
    unsigned count = 0;
    for (size_t at = 5; at < n && (w[at] >> 16) > 0; at += w[at] >> 16)
        count += (w[at] & 0xffff) == 62;   /* OpStore */
    return count;
}

/* Without a loop nothing can set the mark, so its store goes and the
 * module stays valid; with a loop, or once gone, the module is left alone. */
static void test_mark_store_dropped_without_loops(void **state)
{
    size_t n, m;
    char msg[256];
    uint32_t *words = compiled(*state, test_correct_body, &n);
    unsigned before = stores(words, n);
    m = spirv_loops_drop_mark_store(words, n);
    assert_int_equal(m, n - 3);
    assert_int_equal(stores(words, m), before - 1);
    if (!spirv_robust_validate(words, m, msg, sizeof msg))
        fail_msg("the module without the mark's store is invalid: %s", msg);
    assert_int_equal(spirv_loops_drop_mark_store(words, m), m);
    free(words);
    words = compiled(*state, "float s = 0.0;\nfor (int k = 0; k < 4; k++) s += 1.0;\n"
                             "return s;\n", &n);
    uint32_t *copy = malloc(n * sizeof *copy);
    assert_non_null(copy);
    memcpy(copy, words, n * sizeof *copy);
    assert_int_equal(spirv_loops_drop_mark_store(words, n), n);
    assert_memory_equal(words, copy, n * sizeof *copy);
    free(copy);
    free(words);
}

static void test_every_loop_form_is_found_with_its_line(void **state)
{
    const char *body =
        "float s = 0.0;\n"                                           /* 1 */
        "for (int k = 0; k < 4; k++) { s += spectrum[0][k]; }\n"     /* 2 */
        "int n = 0;\n"                                               /* 3 */
        "while (n < 3) { n++; if (n == 2) continue; s += 1.0; }\n"   /* 4 */
        "do {\n"                                                     /* 5 */
        "    s *= 0.5;\n"                                            /* 6 */
        "} while (s > 8.0);\n"                                       /* 7 */
        "for (int a = 0; a < 2; a++)\n"                              /* 8 */
        "    for (int b = 0; b < 2; b++) { if (b == a) break; s += 1.0; }\n" /* 9 */
        "return s;\n";
    int lines[8] = {0};
    size_t n = instrument(*state, body, lines, 8);
    assert_int_equal(n, 5);
    /* the `for` and `while` loops count in their own test; the do-while,
     * whose test is in its continue block, returns when over */
    assert_int_equal(added_returns, 1);
    assert_int_equal(lines[0], 2);
    assert_int_equal(lines[1], 4);
    /* a do-while's header is where it starts */
    assert_true(lines[2] >= 5 && lines[2] <= 7);
    assert_int_equal(lines[3], 8);
    assert_int_equal(lines[4], 9);
}

/* Loops whose headers are reached in odd ways: the count of iterations
 * (an OpPhi in each header, 1 on its back edge) keeps every module valid. */
static void test_odd_loop_shapes_stay_valid(void **state)
{
    static const char *const bodies[] = {
        /* a switch inside, breaking and continuing */
        "float s = 0.0;\nfor (int k = 0; k < 8; k++) {\n"
        "    switch (k % 3) { case 0: continue; case 1: s += 1.0; break; default: break; }\n"
        "    s += 0.5;\n}\nreturn s;\n",
        /* a loop inside a switch case */
        "float s = 0.0;\nswitch (half) {\ncase 1: for (int k = 0; k < 3; k++) s += 1.0; break;\n"
        "default: while (s < 4.0) s += 2.0;\n}\nreturn s;\n",
        /* a short-circuit in the step: the continue construct has blocks of its own */
        "int a = 0, b = 0;\nfor (int k = 0; k < 8; k += (a > 1 && b < 3) ? 2 : 1) { a++; b++; }\n"
        "return float(a);\n",
        /* a loop that returns at once: its back edge is never taken */
        "while (true) { return 1.0; }\n",
        /* a do-while with continue, nested in a while */
        "int n = 0;\nwhile (n < 20) {\n    int m = 0;\n"
        "    do { m++; if (m == 2) continue; n++; } while (m < 4);\n}\nreturn float(n);\n",
        /* loops in helpers, one calling the other */
        "int f(int m);\nreturn float(f(3) + f(4));\n}\n"
        "int g(int m) { int s = 0; for (int k = 0; k < m; k++) s += k; return s; }\n"
        "int f(int m) { int t = 0; while (t < m) t += g(m); return t;\n",
        /* an empty endless loop */
        "for (;;) {}\nreturn 0.0;\n",
    };
    for (size_t k = 0; k < sizeof bodies / sizeof bodies[0]; k++) {
        int lines[8];
        assert_true(instrument(*state, bodies[k], lines, 8) >= 1);
    }
}

/* Which form each loop's count takes (spirv_loops.c, find_folds). */
static void test_the_count_joins_a_loop_test_unless_its_bound_is_past_the_budget(void **state)
{
    static const struct { const char *body; unsigned returns; } cases[] = {
        /* a bound known when it runs: the count joins the test */
        { "float s = 0.0;\nfor (int k = 0; k < half; k++) s += 1.0;\nreturn s;\n", 0 },
        { "float s = 0.0;\nwhile (s < spectrum[0][1]) s += 1.0;\nreturn s;\n", 0 },
        { "float s = 0.0;\nfor (int k = 0; k < 10000; k++) s += 1.0;\nreturn s;\n", 0 },
        /* a constant bound past the budget: the driver may prove the
         * budget ends it, when its bail returns */
        { "float s = 0.0;\nfor (int k = 0; k < 1000000; k++) s += 1.0;\nreturn s;\n", 1 },
        { "float s = 0.0;\nfor (uint k = 0u; k != 4000000000u; k++) s += 1.0;\nreturn s;\n", 1 },
        /* no test at the top: endless, or a do-while */
        { "float s = 0.0;\nwhile (true) { s += 1.0; if (s > spectrum[0][1]) break; }\n"
          "return s;\n", 1 },
        { "float s = 0.0;\ndo { s += 1.0; } while (s < spectrum[0][1]);\nreturn s;\n", 1 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int lines[2];
        assert_int_equal(instrument(*state, cases[k].body, lines, 2), 1);
        if (added_returns != cases[k].returns)
            fail_msg("case %zu: %u returns added, wanted %u", k, added_returns, cases[k].returns);
    }
}

static void test_loop_from_a_macro_is_on_the_line_that_uses_it(void **state)
{
    const char *body =
        "#define SPIN(x) while ((x) < 1e30) { (x) += 1.0; }\n"
        "float x = spectrum[0][0];\n"
        "\n"
        "SPIN(x)\n"
        "return x;\n";
    int lines[2] = {0};
    assert_int_equal(instrument(*state, body, lines, 2), 1);
    assert_int_equal(lines[0], 4);
}

static void test_budget_of_zero_is_refused(void **state)
{
    size_t n, out_n, nloops;
    uint32_t *out = (uint32_t *)1;
    char msg[128] = "";
    uint32_t *words = compiled(*state, "while (true) {}\nreturn 0.0;\n", &n);
    assert_false(spirv_loops_instrument(words, n, 0, &out, &out_n, &nloops, msg, sizeof msg));
    assert_null(out);
    assert_non_null(strstr(msg, "budget"));
    free(words);
}

static void test_strip_ignores_comments_and_names(void **state)
{
    const char *a = "float x = spectrum[0][this.thread.x];\nreturn x * 2.0;\n";
    const char *b = "// twice the input\n\nfloat doubled  =  spectrum[0][this.thread.x]; /* in */\n"
                    "return doubled * 2.0;\n";
    const char *c = "float x = spectrum[0][this.thread.x];\nreturn x * 3.0;\n";
    size_t na, nb, nc, sa, sb, sc;
    uint32_t *wa = compiled(*state, a, &na), *wb = compiled(*state, b, &nb);
    uint32_t *wc = compiled(*state, c, &nc);
    uint32_t *xa, *xb, *xc;
    assert_true(spirv_strip_debug(wa, na, &xa, &sa));
    assert_true(spirv_strip_debug(wb, nb, &xb, &sb));
    assert_true(spirv_strip_debug(wc, nc, &xc, &sc));
    assert_int_equal(sa, sb);
    assert_memory_equal(xa, xb, sa * sizeof *xa);
    /* a different constant is a different kernel */
    assert_false(sa == sc && !memcmp(xa, xc, sa * sizeof *xa));
    assert_true(sa < na);
    free(wa), free(wb), free(wc), free(xa), free(xb), free(xc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_loop_is_unchanged),
        cmocka_unit_test(test_mark_store_dropped_without_loops),
        cmocka_unit_test(test_every_loop_form_is_found_with_its_line),
        cmocka_unit_test(test_odd_loop_shapes_stay_valid),
        cmocka_unit_test(test_the_count_joins_a_loop_test_unless_its_bound_is_past_the_budget),
        cmocka_unit_test(test_loop_from_a_macro_is_on_the_line_that_uses_it),
        cmocka_unit_test(test_budget_of_zero_is_refused),
        cmocka_unit_test(test_strip_ignores_comments_and_names),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
