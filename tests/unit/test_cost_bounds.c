/*
 * The bounds a body's cost is refused by, counted on its code (no device):
 * the macro simulation counts at least what glslang's preprocessor
 * expands, whatever trick hides a bomb (nested calls, "##", #if branches,
 * #undef, self-reference), and stops at once; and every sample body, right
 * or wrong, is far below each bound (their largest figures are printed:
 * docs/VERDICT.md quotes them).
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/task.h"
#include "tests/support/sample_bodies.h"
#include "tests/test_bodies.h"

#include "common/clock.h"
#include "common/defaults.h"
#include "engine/checks/macro_cost.h"
#include "engine/checks/spirv_cost.h"
#include "engine/compile/compile.h"

/* Room for the generated bodies: the body limit (64 KiB) and more. */
#define TASK_BODY_ROOM (128 * 1024)

static const char *const *dirs;
static int ndirs;

static unsigned long tokens(const char *body)
{
    struct macro_cost mc;
    macro_cost_count(body, strlen(body), ULONG_MAX - 1, &mc);
    assert_false(mc.no_memory);
    return mc.tokens;
}

static bool within(const char *body, unsigned long limit, int *line)
{
    struct macro_cost mc;
    bool ok = macro_cost_count(body, strlen(body), limit, &mc);
    *line = mc.line;
    return ok;
}

static void test_plain_code_counts_its_tokens(void **state)
{
    (void)state;
    /* return x ; and the comment counts nothing */
    assert_int_equal(tokens("return x; // a comment\n"), 3);
    /* the directive's 4, return TWO ;, 1 for the definition used and the
     * replacement's 2.0 twice: copied into place, then read again as
     * glslang rescans it */
    assert_int_equal(tokens("#define TWO 2.0\nreturn TWO;\n"), 4 + 3 + 1 + 2);
}

/* Ten levels of ten-fold: 10^6 statements, refused on the line that
 * expands them, in a few milliseconds. */
static void test_macro_bomb_stops_at_once(void **state)
{
    (void)state;
    const char *bomb =
        "#define A x = x * 1.0001 + 0.5;\n#define B A A A A A A A A A A\n"
        "#define C B B B B B B B B B B\n#define D C C C C C C C C C C\n"
        "#define E D D D D D D D D D D\n#define F E E E E E E E E E E\n"
        "#define G F F F F F F F F F F\nfloat x = 0.0;\nG\nreturn x;\n";
    int line;
    double t0 = clock_now_ms();
    assert_false(within(bomb, MAX_PREPROCESSED_TOKENS, &line));
    print_message("macro bomb refused after %.1f ms\n", clock_now_ms() - t0);
    assert_int_equal(line, 9);
}

/* Every way a definition can multiply: each must count what glslang
 * would expand, so each of these is over a limit of 10,000. */
static void test_tricks_are_counted(void **state)
{
    (void)state;
    static const char *const tricks[] = {
        /* arguments are expanded before substitution: F(F(F(a))) */
        "#define F(x) x x x x x x x x x x\nF(F(F(F(F(a)))))\n",
        /* a parameter used ten times, the argument a bomb of its own */
        "#define A a a a a a a a a a a\n#define B A A A A A A A A A A\n"
        "#define C B B B B B B B B B B\n#define F(x) x x x x x x x x x x\nF(C) F(C)\n",
        /* the bomb hides behind a name made by "##" */
        "#define AB a a a a a a a a a a\n#define CAT(p, q) p##q\n"
        "#define T CAT(A,B) CAT(A,B) CAT(A,B) CAT(A,B) CAT(A,B) CAT(A,B) CAT(A,B) CAT(A,B) "
        "CAT(A,B) CAT(A,B)\n#define U T T T T T T T T T T\nU U U U U U U U U U U\n",
        /* the large definition in the #if branch glslang takes, the small one last */
        "#define B a a a a a a a a a a\n#define C B B B B B B B B B B\n"
        "#if 1\n#define D C C C C C C C C C C\n#else\n#define D a\n#endif\nD D D D D D D D D D D\n",
        /* #undef and a definition again */
        "#define B a a a a a a a a a a\n#define C B B B B B B B B B B\n"
        "#define D C C C C C C C C C C\n#undef D\n#define D x\n#undef D\n"
        "#define D C C C C C C C C C C\nD D D D D D D D D D D\n",
        /* a bomb in an #if expression */
        "#define B 1+1+1+1+1+1+1+1+1+1\n#define C B+B+B+B+B+B+B+B+B+B\n"
        "#define D C+C+C+C+C+C+C+C+C+C\n#if D+D+D+D+D+D+D+D+D+D+D > 0\n#endif\n",
        /* a call whose arguments run over lines and a directive */
        "#define B a a a a a a a a a a\n#define C B B B B B B B B B B\n"
        "#define F(x) x x x x x x x x x x\nF(\n#define Z\nC C C C C C C C C C C)\n",
        /* line continuations inside the names */
        "#define B a a a a a a a a a a\n#def\\\nine C B B B B B B B B B B\n"
        "#define D C C C C C C C C C C\nD D D D D D D D D D D\n",
    };
    for (size_t i = 0; i < sizeof tricks / sizeof *tricks; i++) {
        int line;
        if (within(tricks[i], 10000, &line))
            fail_msg("trick %zu counted %lu tokens, under 10,000", i, tokens(tricks[i]));
    }
}

/* What glslang stops, the count stops too: a macro that names itself,
 * directly, through another, or through an argument, is not expanded
 * again. */
static void test_self_reference_ends(void **state)
{
    (void)state;
    assert_true(tokens("#define A A\nA A\n") < 20);
    assert_true(tokens("#define A B\n#define B A\nA B\n") < 30);
    assert_true(tokens("#define F(x) x\n#define A F(A)\nA\n") < 40);
    assert_true(tokens("#define F(x) F(x) x\nF(F(1))\n") < 80);
    /* a call nested 100 deep in arguments is refused, not recursed into */
    char deep[1024] = "#define F(x) x\n";
    for (int i = 0; i < 100; i++)
        strcat(deep, "F(");
    strcat(deep, "1");
    for (int i = 0; i < 100; i++)
        strcat(deep, ")");
    struct macro_cost mc;
    assert_false(macro_cost_count(deep, strlen(deep), MAX_PREPROCESSED_TOKENS, &mc));
    assert_true(mc.too_deep);
}

/* Bodies that would make a careless count slow (thousands of
 * definitions of one name, thousands of parameters, calls left open)
 * take milliseconds, like everything else. */
static void test_count_is_fast_on_any_body(void **state)
{
    (void)state;
    static char body[TASK_BODY_ROOM];
    char *p = body, *end = body + sizeof body;
    struct macro_cost mc;
    for (int i = 0; i < 5000; i++)
        p += snprintf(p, (size_t)(end - p), "#define A\n");
    snprintf(p, (size_t)(end - p), "#define B A A A A A A A A\n#define C B B B B B B B B\nC C C\n");
    double t0 = clock_now_ms();
    macro_cost_count(body, strlen(body), MAX_PREPROCESSED_TOKENS, &mc);
    double redefinitions = clock_now_ms() - t0;
    /* the count stops at the bound, whatever the body makes of it */
    assert_true(mc.tokens <= MAX_PREPROCESSED_TOKENS + 1);
    p = body;
    p += snprintf(p, (size_t)(end - p), "#define F(");
    for (int i = 0; i < 5000; i++)
        p += snprintf(p, (size_t)(end - p), "%sp%d", i ? "," : "", i);
    p += snprintf(p, (size_t)(end - p), ") p4999 p4999 p4999 p4999 p4999 p4999 p4999 p4999\n");
    for (int i = 0; i < 500 && end - p > 8; i++)
        p += snprintf(p, (size_t)(end - p), "F(1) ");
    t0 = clock_now_ms();
    macro_cost_count(body, strlen(body), MAX_PREPROCESSED_TOKENS, &mc);
    double parameters = clock_now_ms() - t0;
    assert_true(mc.tokens <= MAX_PREPROCESSED_TOKENS + 1);
    print_message("5,000 definitions of one name: %.1f ms; 5,000 parameters: %.1f ms\n",
                  redefinitions, parameters);
    /* the times are figures, not a verdict (no test depends on the
     * machine's speed): about 3 ms each on a busy 2-core VM */
}

/* a+a+...+a, n terms, in one statement or through a macro */
static char *chain(int n, bool macro)
{
    size_t cap = (size_t)n * 2 + 128;
    char *b = malloc(cap), *p = b, *end = b + cap;
    assert_non_null(b);
    p += snprintf(p, (size_t)(end - p), macro ? "#define CHAIN a" : "return a");
    for (int i = 1; i < n; i++)
        p += snprintf(p, (size_t)(end - p), "+a");
    snprintf(p, (size_t)(end - p), macro ? "\nreturn CHAIN;\n" : ";\n");
    return b;
}

static void test_long_expression_is_refused(void **state)
{
    (void)state;
    struct macro_cost mc;
    for (int macro = 0; macro < 2; macro++) {
        char *at = chain((int)MAX_EXPRESSION_OPERATORS + 1, macro);
        char *over = chain((int)MAX_EXPRESSION_OPERATORS + 2, macro);
        assert_true(macro_cost_count(at, strlen(at), MAX_PREPROCESSED_TOKENS, &mc));
        assert_int_equal(mc.most_operators, MAX_EXPRESSION_OPERATORS);
        assert_false(macro_cost_count(over, strlen(over), MAX_PREPROCESSED_TOKENS, &mc));
        assert_true(mc.long_expression);
        assert_int_equal(mc.line, macro ? 2 : 1);
        free(at);
        free(over);
    }
    /* a statement ends the count: many short ones are fine */
    char many[8192] = "";
    for (int i = 0; i < 600; i++)
        strcat(many, "x=a+b;");
    assert_true(macro_cost_count(many, strlen(many), MAX_PREPROCESSED_TOKENS, &mc));
    assert_int_equal(mc.most_operators, 2);
}

struct largest {
    struct compiler *c;
    unsigned long tokens, operators;
    uint64_t inlined, run;
    char tokens_name[64], inlined_name[64], run_name[64];
    size_t measured;
};

static bool measure_one(void *arg, const char *name, const char *body)
{
    struct largest *l = arg;
    unsigned long t = tokens(body);
    struct macro_cost mc;
    macro_cost_count(body, strlen(body), ULONG_MAX - 1, &mc);
    if (mc.most_operators > l->operators)
        l->operators = mc.most_operators;
    if (t > l->tokens) {
        l->tokens = t;
        snprintf(l->tokens_name, sizeof l->tokens_name, "%s", name);
    }
    struct compile_result r;
    assert_true(compiler_compile(l->c, body, strlen(body), &r));
    if (r.ok) {
        uint64_t inlined, run;
        assert_true(spirv_cost_measure(r.spirv, r.nwords, &inlined, &run));
        if (inlined > l->inlined) {
            l->inlined = inlined;
            snprintf(l->inlined_name, sizeof l->inlined_name, "%s", name);
        }
        if (run > l->run) {
            l->run = run;
            snprintf(l->run_name, sizeof l->run_name, "%s", name);
        }
        l->measured++;
    }
    compile_result_clear(&r);
    return true;
}

/* The samples (right, wrong, the named mistakes, the wild indexes) are
 * at most a tenth of every bound: the bounds refuse only what no
 * exercise needs. */
static void test_samples_are_far_below_the_bounds(void **state)
{
    (void)state;
    struct largest l = { .c = compiler_new() };
    assert_non_null(l.c);
    for (int i = 0; i < ndirs; i++)
        sample_bodies_each(dirs[i], measure_one, &l);
    for (size_t i = 0; i < index_bodies_count; i++)
        measure_one(&l, "index_bodies", index_bodies[i]);
    measure_one(&l, "test_correct_body", test_correct_body);
    compiler_free(l.c);
    print_message("%zu sample modules; largest: %lu tokens (%s), %llu cost units inlined (%s), "
                  "%llu run (%s)\n", l.measured, l.tokens, l.tokens_name,
                  (unsigned long long)l.inlined, l.inlined_name, (unsigned long long)l.run,
                  l.run_name);
    assert_true(l.measured >= 20);
    print_message("the most operators in one statement: %lu\n", l.operators);
    assert_true(l.tokens * 10 <= MAX_PREPROCESSED_TOKENS);
    assert_true(l.operators * 10 <= MAX_EXPRESSION_OPERATORS);
    assert_true(l.inlined * 10 <= MAX_KERNEL_COST_UNITS);
    assert_true(l.run * 10 <= MAX_RUN_COST_UNITS);
}

int main(int argc, char **argv)
{
    dirs = (const char *const *)argv + 1;
    ndirs = argc - 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_code_counts_its_tokens),
        cmocka_unit_test(test_macro_bomb_stops_at_once),
        cmocka_unit_test(test_tricks_are_counted),
        cmocka_unit_test(test_self_reference_ends),
        cmocka_unit_test(test_count_is_fast_on_any_body),
        cmocka_unit_test(test_long_expression_is_refused),
        cmocka_unit_test(test_samples_are_far_below_the_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
