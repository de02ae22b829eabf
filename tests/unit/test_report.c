/* The text report: what a person reading a terminal sees of a verdict. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/report.h"

static void expect_in(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("the report lacks \"%s\":\n%s", part, text);
}

static struct verdict *wrong_answer(void)
{
    struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, "Wrong for half = 2, 4.");
    v->halves_run = 1;
    v->halves[0].half = 2;
    v->halves[0].hidden_total = 8;
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 8; x++)
            v->halves[0].cells[y][x] = (struct cell_result){ 1.0, 1.0f, true };
    v->halves[0].cells[0][1] = (struct cell_result){ 1.5, -2.5f, false };
    v->halves[0].cells[1][3] = (struct cell_result){ 2.0, NAN, false };
    v->halves[0].cells[1][5] = (struct cell_result){ 2.0, -INFINITY, false };
    v->diagnosis = diagnosis_new("twiddle_sign", "The twiddle turns the wrong way",
                                 "Every cell is what w = e^(+iπ·r/half) gives.",
                                 "Hint 2 — which twiddle? w = e^(−iπ·r/half)");
    v->worked_cell = calloc(1, sizeof *v->worked_cell);
    *v->worked_cell = (struct worked_cell){
        .half = 2, .i = 1, .plane = 0, .j = 0, .base = 1, .r = 1, .partner = 3,
        .a = { -0.5, 1.25 }, .b = { 0.75, 2 }, .w = { 0, -1 }, .wb = { 2, -0.75 },
        .due = "a + w·b", .expected = 1.5, .got = -2.5, .got_matches = "a − w·b",
    };
    return v;
}

/* The named mistake, then its cell worked through with the kernel's numbers. */
static void test_worked_cell_in_report(void **state)
{
    struct verdict *v = wrong_answer();
    char *text = report_to_string(v);
    assert_non_null(text);
    expect_in(text, "Likely mistake: The twiddle turns the wrong way");
    expect_in(text, "Look at: Hint 2 — which twiddle?");
    expect_in(text, "Worked cell: half = 2, the visible spectrum, i = 1, real plane\n");
    expect_in(text, "  j = 0 (lower member), base = 1, r = 1, partner = 3\n");
    expect_in(text, "  a = element 1 = (-0.5, 1.25), b = element 3 = (0.75, 2)\n");
    expect_in(text, "  w = e^(-iπ·1/2) = (0, -1), w·b = (2, -0.75)\n");
    expect_in(text, "  due: a + w·b = 1.5 (real part)\n");
    expect_in(text, "  returned: -2.5, which is a − w·b\n");
    /* the worked cell comes after the mistake and before the grids */
    assert_true(strstr(text, "Likely mistake") < strstr(text, "Worked cell"));
    assert_true(strstr(text, "Worked cell") < strstr(text, "half = 2: FAILED"));
    free(text);

    v->worked_cell->hidden = true;
    v->worked_cell->got_matches[0] = '\0';
    v->worked_cell->got = NAN;
    text = report_to_string(v);
    expect_in(text, "half = 2, a hidden spectrum, i = 1");
    expect_in(text, "  returned: NaN\n");
    free(text);
    verdict_free(v);
}

/* NaN and the infinities are named as what the kernel returned. */
static void test_non_finite_cells_named(void **state)
{
    struct verdict *v = wrong_answer();
    char *text = report_to_string(v);
    expect_in(text, "i=3 imag: expected 2, got NaN\n");
    expect_in(text, "i=5 imag: expected 2, got -Infinity\n");
    assert_null(strstr(text, "not written"));
    free(text);
    verdict_free(v);
}

/* A rewritten compiler message keeps the compiler's own words beside it. */
static void test_rewritten_diagnostic_keeps_original(void **state)
{
    struct verdict *v = verdict_new(VERDICT_COMPILATION_ERROR, "line 1: missing ';'");
    v->diags = calloc(2, sizeof *v->diags);
    v->diags[0] = (struct diagnostic){ 1, 0, DIAG_ERROR,
                                       strdup("missing ';' at the end of this line?"),
                                       strdup("'' :  syntax error, unexpected RETURN") };
    v->diags[1] = (struct diagnostic){ 2, 0, DIAG_ERROR, strdup("'x' : some message"), NULL };
    v->ndiags = 2;
    char *text = report_to_string(v);
    expect_in(text, "  line 1: error: missing ';' at the end of this line?\n"
                    "    (the compiler's words: '' :  syntax error, unexpected RETURN)\n"
                    "  line 2: error: 'x' : some message\n");
    assert_null(strstr(text, "Worked cell"));
    free(text);
    verdict_free(v);
}

/* A verdict that ran says how to repeat it; one that never ran has no
 * spectra to repeat and says nothing of a seed. */
static void test_seed_to_repeat_a_grading(void **state)
{
    struct verdict *v = wrong_answer();
    v->seed = 9007199254740991u;
    char *text = report_to_string(v);
    expect_in(text, "Seed: 9007199254740991 (butterfly-grade --seed 9007199254740991 ");
    free(text);
    verdict_free(v);

    v = verdict_new(VERDICT_COMPILATION_ERROR, "line 1: missing ';'");
    v->seed = 42;
    text = report_to_string(v);
    assert_null(strstr(text, "Seed:"));
    free(text);
    verdict_free(v);
}

/* Another exercise's report speaks of its own parameter and inputs, and
 * its seed line names the exercise, so the command repeats this grading. */
static void test_other_exercise_names(void **state)
{
    const struct exercise *e = exercise_find("bit_reversal");
    assert_non_null(e);
    struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, "Wrong for bits = 2.");
    verdict_set_exercise(v, e);
    v->halves_run = 1;
    v->halves[0].half = 2;
    v->halves[0].hidden_total = 8;
    v->halves[0].hidden_passed = 3;
    for (int x = 0; x < e->out_n; x++)
        v->halves[0].cells[0][x] = (struct cell_result){ 1.0, 1.0f, true };
    v->halves[0].cells[0][4] = (struct cell_result){ 5.0, 7.0f, false };
    v->seed = 77;
    char *text = report_to_string(v);
    expect_in(text, "\nbits = 2: FAILED (hidden inputs 3/8)\n");
    expect_in(text, "    i=4 p0: expected 5, got 7\n");
    expect_in(text, "Seed: 77 (butterfly-grade --exercise bit_reversal --seed 77 draws the same "
                    "hidden inputs again)\n");
    assert_null(strstr(text, "half"));
    assert_null(strstr(text, "spectr"));
    free(text);
    verdict_free(v);

    /* the butterfly's own words stay its own */
    v = wrong_answer();
    v->seed = 5;
    text = report_to_string(v);
    expect_in(text, "\nhalf = 2: FAILED (hidden spectra 0/8)\n");
    expect_in(text, "Seed: 5 (butterfly-grade --seed 5 draws the same hidden spectra again)\n");
    free(text);
    verdict_free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_cell_in_report),
        cmocka_unit_test(test_other_exercise_names),
        cmocka_unit_test(test_non_finite_cells_named),
        cmocka_unit_test(test_rewritten_diagnostic_keeps_original),
        cmocka_unit_test(test_seed_to_repeat_a_grading),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
