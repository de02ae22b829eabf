/*
 * Which steps a body writes as the recipe does (issue 32): the lines the
 * diagnosis must never call wrong, read with the student's own names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/diagnosis/cues.h"
#include "engine/diagnosis/literal.h"

static unsigned steps_of(const char *body)
{
    char *compact = cues_compact(body, strlen(body));
    unsigned mask = literal_steps(compact);
    free(compact);
    return mask;
}

static const char recipe[] =
    "int i = this.thread.x;\n"
    "int j = (i / half) % 2;\n"
    "int base = i - j * half;\n"
    "int r = i % half;\n"
    "float ar = spectrum[0][base],        ai = spectrum[1][base];\n"
    "float br = spectrum[0][base + half], bi = spectrum[1][base + half];\n"
    "float wr = cos(-PI * float(r) / float(half));\n"
    "float wi = sin(-PI * float(r) / float(half));\n"
    "float tr = wr * br - wi * bi;\n"
    "float ti = wr * bi + wi * br;\n"
    "if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;\n"
    "return j == 0 ? ai + ti : ai - ti;\n";

static const unsigned all = LITERAL_I | LITERAL_J | LITERAL_BASE | LITERAL_R | LITERAL_READ |
                            LITERAL_W | LITERAL_WB | LITERAL_SIGN;

/* A copy of the recipe with one line replaced. */
static char *with(const char *line, const char *instead)
{
    const char *at = strstr(recipe, line);
    assert_non_null(at);
    size_t n = strlen(recipe) - strlen(line) + strlen(instead) + 1;
    char *out = malloc(n);
    assert_non_null(out);
    memcpy(out, recipe, (size_t)(at - recipe));
    strcpy(out + (at - recipe), instead);
    strcat(out, at + strlen(line));
    return out;
}

static void test_recipe_is_literal(void **state)
{
    (void)state;
    assert_int_equal(steps_of(recipe), all);
    assert_int_equal(literal_steps(NULL), 0);
}

/* The six false answers of issue 32: the line that is the recipe's stays
 * literal, the one that is not does not. */
static void test_issue_cases(void **state)
{
    (void)state;
    char *b = with("int base = i - j * half;", "int base = r;");
    unsigned m = steps_of(b);
    assert_true(m & LITERAL_J);
    assert_false(m & LITERAL_BASE);
    free(b);
    b = with("float wr = cos(-PI * float(r) / float(half));\n"
             "float wi = sin(-PI * float(r) / float(half));",
             "float ang = -PI * float(r + half) / float(half);\n"
             "float wr = cos(ang);\nfloat wi = sin(ang);");
    m = steps_of(b);
    assert_true(m & LITERAL_SIGN);
    assert_false(m & LITERAL_W);
    free(b);
    b = with("float wr = cos(-PI * float(r) / float(half));",
             "float wr = cos(-PI * float(r) / 2.0 * float(half));");
    m = steps_of(b);
    assert_true(m & LITERAL_R);
    assert_false(m & LITERAL_W);
    free(b);
}

/* The student's own names, spaces and comments do not matter. */
static void test_own_names(void **state)
{
    (void)state;
    const char *body =
        "int idx = this.thread.x; // mine\n"
        "int upper = (idx / half) % 2;\n"
        "int lo = idx - upper * half;\n"
        "int k = idx % half;\n"
        "float ang=-PI*float(k)/float(half);\n"
        "float wr = cos(ang), wi = sin(ang);\n";
    unsigned m = steps_of(body);
    assert_int_equal(m & (LITERAL_I | LITERAL_J | LITERAL_BASE | LITERAL_R | LITERAL_W),
                     LITERAL_I | LITERAL_J | LITERAL_BASE | LITERAL_R | LITERAL_W);
}

/* A line written right and then overwritten is not the recipe's; cos and
 * sin each in the other's place is not either. */
static void test_overwritten_and_swapped(void **state)
{
    (void)state;
    char *b = with("float ti = wr * bi + wi * br;\n",
                   "float ti = wr * bi + wi * br;\nif (half == 4) { wr = 0.0; }\n");
    assert_false(steps_of(b) & LITERAL_W);
    free(b);
    b = with("float wr = cos(-PI * float(r) / float(half));\n"
             "float wi = sin(-PI * float(r) / float(half));",
             "float wr = sin(-PI * float(r) / float(half));\n"
             "float wi = cos(-PI * float(r) / float(half));");
    assert_false(steps_of(b) & LITERAL_W);
    free(b);
    /* an ending scaled after the fact is not the recipe's ending */
    b = with("if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;\n"
             "return j == 0 ? ai + ti : ai - ti;\n",
             "float re = j == 0 ? ar + tr : ar - tr;\nfloat im = j == 0 ? ai + ti : ai - ti;\n"
             "return (this.thread.y == 0 ? re : im) / 2.0;\n");
    assert_false(steps_of(b) & LITERAL_SIGN);
    free(b);
}

static void test_contradicts(void **state)
{
    (void)state;
    assert_true(literal_contradicts(LITERAL_J, "j"));
    assert_false(literal_contradicts(LITERAL_J, "base"));
    assert_false(literal_contradicts(all, "plane"));
    assert_false(literal_contradicts(all, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recipe_is_literal),
        cmocka_unit_test(test_issue_cases),
        cmocka_unit_test(test_own_names),
        cmocka_unit_test(test_overwritten_and_swapped),
        cmocka_unit_test(test_contradicts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
