/* Worked cells: the numbers of one output cell, as a student checks them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/task.h"
#include "engine/compare.h"
#include "engine/diagnosis/family.h"
#include "engine/diagnosis/worked.h"
#include "engine/grade.h"
#include "engine/runs.h"
#include "engine/reference.h"
#include "tests/support/compared.h"

#define NRUNS BF_RUNS

static const struct exercise *t;   /* the butterfly, set in main */

static struct family_member member(const char *id)
{
    struct family_member m = { .constant = 0 };
    for (int p = 0; id && p < FAMILY_NPARAMS; p++) {
        const struct family_param_info *info = family_param((enum family_param)p);
        for (int v = 1; v < info->nvalues; v++)
            if (!strcmp(info->values[v].id, id))
                m.v[p] = (unsigned char)v;
    }
    return m;
}

static void outputs_of(const char *id, struct gpu_run runs[NRUNS], float out[NRUNS * BF_CELLS])
{
    struct family_member m = member(id);
    runs_fill(exercise_default(), TASK_DEFAULT_SEED, runs);
    for (int r = 0; r < NRUNS; r++)
        for (int p = 0; p < BF_PLANES; p++)
            for (int i = 0; i < BF_N; i++)
                out[r * BF_CELLS + p * BF_N + i] = (float)family_cell(
                    &m, (const float (*)[BF_N])runs[r].spec, runs[r].half, p, i);
}

/* The example of the issue: a + w·b returned where a − w·b was due. */
static void test_worked_cell_of_both_plus(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    outputs_of("both_plus", runs, out);
    struct worked_cell w;
    /* half 1 fails first, but there a + w·b is also a + b (w = 1): the
     * pick goes on to the first cell only a + w·b fits, half 4, i = 5 */
    assert_true(worked_pick(compared(t, runs, NRUNS, out), "sign", &w));
    assert_int_equal(w.half, 4);
    assert_int_equal(w.i, 5);
    assert_string_equal(w.got_matches, "a + w·b");
    assert_string_equal(w.matches, "a_plus_wb");
    assert_int_equal(w.sign, -1);
    /* told in the diagnosis's step, the sign: the other member's value */
    if (!strstr(w.says, "which is the real part of a + w·b, the value due at output 1, the "
                        "other member of the pair."))
        fail_msg("%s", w.says);
    /* worked through at half 1 all the same */
    worked_cell_of(compared(t, runs, NRUNS, out), 0, 0, 1, "sign", &w);
    assert_int_equal(w.half, 1);
    assert_false(w.hidden);
    assert_int_equal(w.i, 1);
    assert_int_equal(w.plane, 0);
    assert_int_equal(w.j, 1);
    assert_int_equal(w.base, 0);
    assert_int_equal(w.r, 0);
    assert_int_equal(w.partner, 0);
    assert_true(w.a.re == t->visible[0][0] && w.a.im == t->visible[1][0]);
    assert_true(w.b.re == t->visible[0][1] && w.b.im == t->visible[1][1]);
    assert_true(w.w.re == 1 && w.w.im == 0);
    assert_true(w.wb.re == w.b.re && w.wb.im == w.b.im);
    assert_string_equal(w.due, "a − w·b");
    assert_true(w.expected == t->visible[0][0] - t->visible[0][1]);
    assert_true(w.got == t->visible[0][0] + t->visible[0][1]);
    assert_string_equal(w.got_matches, "a + w·b");
    assert_false(w.passed);
}

/* A twiddle mistake shows first at half 2, where w = -i makes it look
 * like a − w·b; the worked cell is where only the flipped twiddle fits:
 * half 4, output 1. Its sentence never speaks of j or the other member. */
static void test_worked_cell_smallest_failing_half(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    outputs_of("twiddle_sign", runs, out);
    struct worked_cell w;
    assert_true(worked_pick(compared(t, runs, NRUNS, out), "w", &w));
    assert_int_equal(w.half, 4);
    assert_int_equal(w.i, 1);
    assert_int_equal(w.plane, 0);
    assert_string_equal(w.got_matches, "a + conj(w)·b");
    assert_null(strstr(w.says, "check j"));
    assert_null(strstr(w.says, "other member"));
    /* at half 2 the cell alone reads as a − w·b, said without "j" */
    worked_cell_of(compared(t, runs, NRUNS, out), 1 + BF_HIDDEN, 0, 1, "w", &w);
    assert_null(strstr(w.says, "other member"));
    assert_int_equal(w.half, 2);
    assert_int_equal(w.i, 1);
    assert_int_equal(w.r, 1);
    assert_int_equal(w.partner, 3);
    assert_true(w.w.re == 0 && w.w.im == -1);
    assert_true(fabs(w.wb.re - w.b.im) < 1e-12 && fabs(w.wb.im + w.b.re) < 1e-12);
    assert_string_equal(w.due, "a + w·b");
    /* with w = -i, e^(+iπ/2)·b is -w·b: the value is a − w·b */
    assert_string_equal(w.got_matches, "a − w·b");
}

/* Right on the visible spectrum, wrong on the hidden ones: the worked cell
 * is worked with the first failing hidden spectrum's numbers. */
static void test_worked_cell_hidden(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    outputs_of(NULL, runs, out);
    int bad_run = 1 + BF_HIDDEN + 3;      /* half 2, the third hidden spectrum */
    out[bad_run * BF_CELLS + BF_N + 6] += 1.0f;   /* imaginary, i = 6 */
    struct worked_cell w;
    assert_true(worked_pick(compared(t, runs, NRUNS, out), NULL, &w));
    assert_int_equal(w.half, 2);
    assert_true(w.hidden);
    assert_int_equal(w.i, 6);
    assert_int_equal(w.plane, 1);
    assert_int_equal(w.base, 4);
    assert_true(w.a.re == runs[bad_run].spec[4] && w.a.im == runs[bad_run].spec[BF_N + 4]);
    assert_true(w.got == out[bad_run * BF_CELLS + BF_N + 6]);
    assert_string_equal(w.got_matches, "");

    /* and nothing to work when every cell is right */
    outputs_of(NULL, runs, out);
    assert_false(worked_pick(compared(t, runs, NRUNS, out), NULL, &w));
}

/* Every visible cell, half by half, in the verdict's order. */
static void test_worked_all(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    outputs_of("both_plus", runs, out);
    static struct worked_cell cells[WORKED_CELLS];
    assert_true(worked_all(compared(t, runs, NRUNS, out), NULL, cells));
    for (int h = 0; h < BF_NHALVES; h++) {
        double want[BF_PLANES][BF_N];
        /* the half's visible run (runs_fill's order) holds the visible spectrum */
        reference_pass((const float (*)[BF_N])runs[h * (1 + BF_HIDDEN)].spec, t->sweep[h], want);
        for (int k = 0; k < BF_CELLS; k++) {
            const struct worked_cell *w = &cells[h * BF_CELLS + k];
            int p = k / BF_N, i = k % BF_N;
            assert_int_equal(w->half, t->sweep[h]);
            assert_int_equal(w->plane, p);
            assert_int_equal(w->i, i);
            assert_false(w->hidden);
            assert_true(fabs(w->expected - want[p][i]) < 1e-12);
            assert_int_equal(w->passed, w->j == 0);     /* both_plus: the upper fail */
            assert_string_equal(w->due, w->j == 0 ? "a + w·b" : "a − w·b");
            assert_string_equal(w->got_matches, w->j == 0 ? "" : "a + w·b");
            /* j, base and partner agree with each other */
            assert_int_equal(w->base + w->j * w->half, i);
            assert_int_equal(w->partner, w->j == 0 ? i + w->half : w->base);
        }
    }
}

/* The value returned named as the expression the mistake computes. */
static void test_got_matches_names_the_mistake(void **state)
{
    static const struct {
        const char *id;
        int half, i, plane;
        const char *matches;
    } cases[] = {
        { "both_plus", 2, 3, 1, "a + w·b" },
        { "roles_swapped", 4, 1, 0, "a − w·b" },
        { "upper_reversed", 4, 6, 0, "w·b − a" },
        { "conjugate_multiply", 4, 1, 0, "a + conj(w)·b" },
        { "no_twiddle", 4, 1, 1, "a + b" },
        { "returns_zero", 1, 0, 0, "0" },
        { "returns_input", 2, 1, 0, "a" },      /* a lower member's own input is a */
        { "returns_input", 2, 2, 0, "b" },      /* an upper member's is b */
        { "planes_swapped", 2, 0, 0, "the other plane of a + w·b" },
        { "scaled_half", 1, 0, 1, "(a + w·b) / 2" },
        { "scaled_double", 1, 1, 0, "2·(a − w·b)" },
    };
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        outputs_of(cases[c].id, runs, out);
        int h = 0;
        while (t->sweep[h] != cases[c].half)
            h++;
        struct worked_cell w;
        worked_cell_of(compared(t, runs, NRUNS, out), (size_t)h * (1 + BF_HIDDEN), cases[c].plane,
                       cases[c].i, NULL, &w);
        if (strcmp(w.got_matches, cases[c].matches))
            fail_msg("%s: \"%s\", wanted \"%s\"", cases[c].id, w.got_matches, cases[c].matches);
    }
}

/* The names, each once, and the ones the issue lists among them. */
static void test_expression_names(void **state)
{
    const char *const *names = worked_expressions();
    size_t n = 0;
    for (; names[n]; n++)
        for (size_t k = 0; k < n; k++)
            assert_string_not_equal(names[k], names[n]);
    static const char *const listed[] = { "a + w·b", "a − w·b", "a − b", "a + b", "b", "a",
                                          "w·a", "w·b", "0", "conj(w)·b" };
    for (size_t k = 0; k < sizeof listed / sizeof listed[0]; k++) {
        bool found = false;
        for (size_t e = 0; e < n; e++)
            found |= !strcmp(names[e], listed[k]);
        if (!found)
            fail_msg("%s missing", listed[k]);
    }
    for (size_t e = 0; e < n; e++)
        assert_true(strlen(names[e]) < sizeof ((struct worked_cell *)0)->got_matches);
}

int main(void)
{
    t = exercise_default();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_cell_of_both_plus),
        cmocka_unit_test(test_worked_cell_smallest_failing_half),
        cmocka_unit_test(test_worked_cell_hidden),
        cmocka_unit_test(test_worked_all),
        cmocka_unit_test(test_got_matches_names_the_mistake),
        cmocka_unit_test(test_expression_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
