/* The cell comparison and its NaN, infinity and zero rules; a whole
 * grading's outputs judged (compare_outputs) and worded (outcome_set) on
 * hand-made buffers, with no device. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/task.h"
#include "common/verdict.h"
#include "engine/compare.h"
#include "engine/outcome.h"
#include "engine/reference.h"
#include "engine/runs.h"

#define ATOL 5e-3
#define RTOL 1e-3

static void test_exact(void **state)
{
    assert_true(compare_cell(1.5, 1.5, ATOL, RTOL));
    assert_true(compare_cell(0.0, 0.0, ATOL, RTOL));
}

static void test_inside_tolerance(void **state)
{
    assert_true(compare_cell(1.0, 1.0 + 0.004, ATOL, RTOL));
    /* rtol widens the band for large values: 100 +- (0.005 + 0.1) */
    assert_true(compare_cell(100.0, 100.1, ATOL, RTOL));
    assert_true(compare_cell(-2.0, -2.006, ATOL, RTOL));
}

static void test_outside_tolerance(void **state)
{
    assert_false(compare_cell(1.0, 1.01, ATOL, RTOL));
    assert_false(compare_cell(100.0, 100.2, ATOL, RTOL));
    assert_false(compare_cell(1.0, -1.0, ATOL, RTOL));
}

static void test_nan_never_passes(void **state)
{
    assert_false(compare_cell(1.0, NAN, ATOL, RTOL));
    assert_false(compare_cell(0.0, -NAN, ATOL, RTOL));
    /* even with a tolerance wide enough for anything */
    assert_false(compare_cell(0.0, NAN, INFINITY, 0));
}

static void test_infinity_never_passes(void **state)
{
    assert_false(compare_cell(1.0, INFINITY, ATOL, RTOL));
    assert_false(compare_cell(1.0, -INFINITY, ATOL, RTOL));
    assert_false(compare_cell(1e308, INFINITY, ATOL, 1.0));
}

static void test_negative_zero_equals_zero(void **state)
{
    assert_true(compare_cell(0.0, -0.0, 0, 0));
    assert_true(compare_cell(-0.0, 0.0, 0, 0));
}

/* The grader's runs, and outputs a right kernel would give (the reference
 * rounded to float), for hand-made changes. */
struct outputs {
    struct gpu_run runs[TASK_RUNS];
    float out[TASK_RUNS * TASK_CELLS];
    uint32_t marks[TASK_RUNS * TASK_CELLS];
};

static struct outputs *right_outputs(void)
{
    struct outputs *o = calloc(1, sizeof *o);
    assert_non_null(o);
    runs_fill(exercise_default(), TASK_DEFAULT_SEED, o->runs);
    for (int r = 0; r < TASK_RUNS; r++) {
        float in[TASK_PLANES][TASK_N];
        double want[TASK_PLANES][TASK_N];
        memcpy(in, o->runs[r].spec, sizeof in);
        reference_pass(in, o->runs[r].half, want);
        for (int k = 0; k < TASK_CELLS; k++)
            o->out[r * TASK_CELLS + k] = (float)want[k / TASK_N][k % TASK_N];
    }
    return o;
}

/* The run of half index h on spectrum s (0: the visible one). */
static int run_of(int h, int s)
{
    return h * (1 + TASK_HIDDEN) + s;
}

static struct verdict *worded(const struct outputs *o, struct comparison *c)
{
    assert_true(compare_outputs(exercise_default(), o->runs, TASK_RUNS, o->out, o->marks, c));
    struct verdict *v = verdict_new(VERDICT_INTERNAL_ERROR, NULL);
    assert_non_null(v);
    static const int lines[] = { 7, 12 };
    outcome_set(v, c, lines, 2);
    return v;
}

static void test_outputs_accepted(void **state)
{
    struct outputs *o = right_outputs();
    struct comparison c;
    struct verdict *v = worded(o, &c);
    assert_true(c.all_passed);
    assert_int_equal(v->status, VERDICT_ACCEPTED);
    assert_int_equal(v->halves_run, TASK_NHALVES);
    for (int h = 0; h < TASK_NHALVES; h++) {
        assert_true(v->halves[h].passed);
        assert_int_equal(v->halves[h].hidden_passed, TASK_HIDDEN);
        assert_int_equal(v->halves[h].hidden_total, TASK_HIDDEN);
        /* the grid shows the visible spectrum's run */
        assert_true(c.visible[h] == &c.run[run_of(h, 0)]);
        assert_true(v->halves[h].cells[1][3].passed);
    }
    assert_null(v->loop);
    verdict_free(v);
    free(o);
}

/* One wrong cell of one hidden run is a Wrong Answer for that half only,
 * and the grid (visible cells) is all green. */
static void test_outputs_one_hidden_cell_wrong(void **state)
{
    struct outputs *o = right_outputs();
    o->out[run_of(1, 4) * TASK_CELLS + TASK_N + 2] += 1.0f;
    struct comparison c;
    struct verdict *v = worded(o, &c);
    assert_false(c.all_passed);
    assert_false(c.run[run_of(1, 4)].passed[1][2]);
    assert_false(c.run[run_of(1, 4)].visible);
    assert_int_equal(v->status, VERDICT_WRONG_ANSWER);
    assert_true(v->halves[0].passed);
    assert_false(v->halves[1].passed);
    assert_true(v->halves[2].passed);
    assert_int_equal(v->halves[1].hidden_passed, TASK_HIDDEN - 1);
    for (int k = 0; k < TASK_CELLS; k++)
        assert_true(v->halves[1].cells[k / TASK_N][k % TASK_N].passed);
    assert_string_equal(v->message, "Wrong for half = 2; the other halves are right.");
    verdict_free(v);
    free(o);
}

/* NaN (a cell never written: the buffer's sentinel), infinities of both
 * signs: each fails, on the visible grid where it is. */
static void test_outputs_nonfinite_and_unwritten(void **state)
{
    static const float bad[] = { NAN, INFINITY, -INFINITY };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        struct outputs *o = right_outputs();
        for (int h = 0; h < TASK_NHALVES; h++)
            o->out[run_of(h, 0) * TASK_CELLS + 5] = bad[b];
        struct comparison c;
        struct verdict *v = worded(o, &c);
        assert_int_equal(v->status, VERDICT_WRONG_ANSWER);
        assert_string_equal(v->message, "Wrong for every half (1, 2, 4).");
        for (int h = 0; h < TASK_NHALVES; h++) {
            assert_false(v->halves[h].cells[0][5].passed);
            assert_true(v->halves[h].cells[0][4].passed);
            assert_int_equal(v->halves[h].hidden_passed, TASK_HIDDEN);
        }
        verdict_free(v);
        free(o);
    }
}

/* Just inside atol + rtol * |expected| passes, just outside fails. */
static void test_outputs_tolerance_edges(void **state)
{
    const struct exercise *t = exercise_default();
    for (int side = 0; side < 2; side++) {
        struct outputs *o = right_outputs();
        struct comparison c;
        assert_true(compare_outputs(t, o->runs, TASK_RUNS, o->out, NULL, &c));
        double e = c.run[run_of(2, 0)].expected[0][6];
        double band = t->atol + t->rtol * fabs(e);
        o->out[run_of(2, 0) * TASK_CELLS + 6] = (float)(e + (side ? 1.05 : 0.95) * band);
        struct verdict *v = worded(o, &c);
        assert_int_equal(v->status, side ? VERDICT_WRONG_ANSWER : VERDICT_ACCEPTED);
        assert_int_equal(v->halves[2].cells[0][6].passed, !side);
        verdict_free(v);
        free(o);
    }
}

/* Visible runs are told by their spectrum, not their place. */
static void test_outputs_visibility_by_spectrum(void **state)
{
    struct outputs *o = right_outputs();
    struct comparison c;
    assert_true(compare_outputs(exercise_default(), o->runs, TASK_RUNS, o->out, NULL, &c));
    for (int r = 0; r < TASK_RUNS; r++)
        assert_int_equal(c.run[r].visible, r % (1 + TASK_HIDDEN) == 0);
    /* reversed, the visible runs are found where they now are */
    struct gpu_run rev[TASK_RUNS];
    float out[TASK_RUNS * TASK_CELLS];
    for (int r = 0; r < TASK_RUNS; r++) {
        rev[r] = o->runs[TASK_RUNS - 1 - r];
        memcpy(out + r * TASK_CELLS, o->out + (TASK_RUNS - 1 - r) * TASK_CELLS,
               TASK_CELLS * sizeof *out);
    }
    assert_true(compare_outputs(exercise_default(), rev, TASK_RUNS, out, NULL, &c));
    assert_true(c.all_passed);
    assert_true(c.visible[0] == &c.run[TASK_RUNS - 1]);
    assert_int_equal(c.hidden_total[0], TASK_HIDDEN);
    assert_false(compare_outputs(exercise_default(), rev, 0, out, NULL, &c));
    free(o);
}

/* A loop over the budget wins over right cells: Time Limit Exceeded,
 * naming the first visible run that ran over before any hidden one. */
static void test_outputs_loop_overrun(void **state)
{
    struct outputs *o = right_outputs();
    o->marks[run_of(0, 3) * TASK_CELLS + 1] = 1;              /* hidden, half 1 */
    o->marks[run_of(2, 0) * TASK_CELLS + TASK_N + 4] = 2;     /* visible, half 4 */
    struct comparison c;
    struct verdict *v = worded(o, &c);
    assert_false(c.all_passed);
    assert_int_equal(v->status, VERDICT_TIME_LIMIT);
    assert_non_null(v->loop);
    assert_int_equal(v->loop->line, 12);
    assert_int_equal(v->loop->half, 4);
    assert_false(v->loop->hidden);
    assert_int_equal(v->loop->i, 4);
    assert_int_equal(v->loop->plane, 1);
    assert_int_equal(v->ndiags, 1);
    assert_int_equal(v->diags[0].line, 12);
    assert_int_equal(v->halves_run, 0);
    verdict_free(v);
    free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_inside_tolerance),
        cmocka_unit_test(test_outside_tolerance),
        cmocka_unit_test(test_nan_never_passes),
        cmocka_unit_test(test_infinity_never_passes),
        cmocka_unit_test(test_negative_zero_equals_zero),
        cmocka_unit_test(test_outputs_accepted),
        cmocka_unit_test(test_outputs_one_hidden_cell_wrong),
        cmocka_unit_test(test_outputs_nonfinite_and_unwritten),
        cmocka_unit_test(test_outputs_tolerance_edges),
        cmocka_unit_test(test_outputs_visibility_by_spectrum),
        cmocka_unit_test(test_outputs_loop_overrun),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
