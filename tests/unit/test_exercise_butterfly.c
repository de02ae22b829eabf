/* The butterfly loaded from exercises/butterfly/ (the registry, from the
 * embedded folder) against grader/common/task.c's table, field by field:
 * what lets the table go (issue 33). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "common/exercise/exercise.h"
#include "common/task.h"

static const struct exercise *butterfly(void)
{
    const struct exercise *e = exercise_find("butterfly");
    assert_non_null(e);
    return e;
}

static void test_the_default_is_the_butterfly_first_in_the_list(void **state)
{
    assert_ptr_equal(exercise_default(), butterfly());
    assert_true(exercise_count() >= 1);
    assert_ptr_equal(exercise_at(0), butterfly());
    assert_null(exercise_at(exercise_count()));
    assert_null(exercise_find("no-such-exercise"));
    assert_null(exercise_find(NULL));
}

static void test_names_and_text(void **state)
{
    const struct exercise *e = butterfly();
    const struct task *t = &task_butterfly;
    assert_string_equal(e->id, t->id);
    assert_string_equal(e->title, t->title);
    assert_string_equal(e->subtitle, t->subtitle);
    assert_string_equal(e->signature, t->signature);
    /* the starter byte for byte: the page and every saved draft start from it */
    assert_string_equal(e->starter, t->starter);
    assert_string_equal(e->course, "The FFT on the GPU");
    assert_int_equal(e->order, 2);
    assert_false(e->example);
    assert_string_equal(e->function, "butterfly");
    assert_string_equal(e->input, "spectrum");
    assert_string_equal(e->param, "half");
    assert_string_equal(e->diagnosis, "butterfly");
    assert_non_null(e->brief);
    assert_true(strlen(e->brief) > 0);
}

static void test_api_rows(void **state)
{
    const struct exercise *e = butterfly();
    size_t n = 0;
    for (const struct task_api_name *a = task_butterfly.api; a->name; a++, n++) {
        assert_true(n < e->napi);
        assert_string_equal(e->api[n].name, a->name);
        assert_string_equal(e->api[n].type, a->type);
        assert_string_equal(e->api[n].meaning, a->meaning);
    }
    assert_int_equal(e->napi, n);
}

static void test_sizes_sweep_tolerances_budget(void **state)
{
    const struct exercise *e = butterfly();
    const struct task *t = &task_butterfly;
    assert_int_equal(e->in_n, TASK_N);
    assert_int_equal(e->out_n, TASK_N);
    assert_int_equal(e->in_planes, TASK_PLANES);
    assert_int_equal(e->out_planes, TASK_PLANES);
    assert_int_equal(exercise_out_cells(e), TASK_CELLS);
    assert_int_equal(e->nsweep, TASK_NHALVES);
    for (int h = 0; h < TASK_NHALVES; h++)
        assert_int_equal(e->sweep[h], t->halves[h]);
    assert_int_equal(e->hidden, TASK_HIDDEN);
    assert_int_equal(exercise_runs(e), TASK_RUNS);
    /* equal as doubles: 0.005 in JSON is the same double as 5e-3 in C */
    assert_true(e->atol == t->atol);
    assert_true(e->rtol == t->rtol);
    assert_int_equal(e->loop_budget, t->loop_budget);
    assert_int_equal(e->loop_budget, TASK_LOOP_BUDGET);
}

static void test_visible_spectrum(void **state)
{
    const struct exercise *e = butterfly();
    for (int p = 0; p < TASK_PLANES; p++)
        for (int k = 0; k < TASK_N; k++)
            assert_memory_equal(&e->visible[p][k], &task_butterfly.visible[p][k], sizeof(float));
}

/* The hidden spectra from input.hidden (min, max, grid) are task.c's, draw
 * for draw: the verdicts of every seed stay the same. */
static void test_hidden_inputs_draw_for_draw(void **state)
{
    const struct exercise *e = butterfly();
    assert_int_equal(e->hidden_lo, -128);
    assert_int_equal(e->hidden_hi, 128);
    assert_int_equal(e->hidden_grid, 64);
    static const uint64_t seeds[] = { TASK_DEFAULT_SEED, 0, 1, 0xffffffffffffffffull };
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++)
        for (unsigned i = 0; i < TASK_RUNS; i++) {
            float want[TASK_PLANES][TASK_N], got[TASK_CELLS];
            task_hidden_spectrum(seeds[s], i, want);
            exercise_hidden_input(e, seeds[s], i, got);
            assert_memory_equal(got, want, sizeof want);
        }
}

/* The reference linked under the butterfly's name is the page's pass:
 * half 1 of a ramp gives sums and differences. */
static void test_reference_is_linked(void **state)
{
    const struct exercise *e = butterfly();
    assert_non_null(e->reference);
    float in[TASK_CELLS] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    double out[TASK_CELLS];
    e->reference(1, in, out);
    assert_true(fabs(out[0] - 3.0) < 1e-12);
    assert_true(fabs(out[1] + 1.0) < 1e-12);
}

/* The samples copied into solutions/ say what the check on load must get. */
static void test_solutions_say_what_they_expect(void **state)
{
    const struct exercise *e = butterfly();
    static const struct { const char *file; enum exercise_expect expect; const char *mistake; } want[] = {
        { "solutions/correct.glsl", EXPECT_ACCEPTED, NULL },
        { "solutions/correct_branches.glsl", EXPECT_ACCEPTED, NULL },
        { "solutions/correct_vec2.glsl", EXPECT_ACCEPTED, NULL },
        { "solutions/correct_with_bom.glsl", EXPECT_ACCEPTED, NULL },
        { "solutions/wrong_both_plus.glsl", EXPECT_WRONG, "both_plus" },
        { "solutions/wrong_swapped_planes.glsl", EXPECT_WRONG, "planes_swapped" },
        { "solutions/wrong_twiddle_sign.glsl", EXPECT_WRONG, "twiddle_sign" },
    };
    assert_int_equal(e->nsolutions, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < e->nsolutions; i++) {
        const struct exercise_solution *s = &e->solutions[i];
        assert_string_equal(s->file, want[i].file);
        assert_int_equal(s->expect, want[i].expect);
        if (want[i].mistake)
            assert_string_equal(s->mistake, want[i].mistake);
        else
            assert_null(s->mistake);
        assert_int_equal(strlen(s->body), s->len);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_default_is_the_butterfly_first_in_the_list),
        cmocka_unit_test(test_names_and_text),
        cmocka_unit_test(test_api_rows),
        cmocka_unit_test(test_sizes_sweep_tolerances_budget),
        cmocka_unit_test(test_visible_spectrum),
        cmocka_unit_test(test_hidden_inputs_draw_for_draw),
        cmocka_unit_test(test_reference_is_linked),
        cmocka_unit_test(test_solutions_say_what_they_expect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
