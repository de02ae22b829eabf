/* Diagnosis: every catalogue entry names its own outputs, and nothing else. */
#include <math.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compare.h"
#include "diagnose.h"
#include "grade.h"

#define NRUNS TASK_RUNS

static const struct task *t = &task_butterfly;

/* The runs exactly as the grader builds them. */
static void make_runs(uint64_t seed, struct gpu_run runs[NRUNS])
{
    grade_fill_runs(seed, runs);
}

/* What a kernel making mistake v returns on every run, as floats. */
static void outputs_of(const struct butterfly_variant *v, const struct gpu_run runs[NRUNS],
                       float out[NRUNS * TASK_CELLS])
{
    for (int r = 0; r < NRUNS; r++) {
        float in[TASK_PLANES][TASK_N];
        double o[TASK_PLANES][TASK_N];
        memcpy(in, runs[r].spec, sizeof in);
        reference_pass_variant(in, runs[r].half, v, o);
        for (int p = 0; p < TASK_PLANES; p++)
            for (int i = 0; i < TASK_N; i++)
                out[r * TASK_CELLS + p * TASK_N + i] = (float)o[p][i];
    }
}

static float *cell(float *out, int run, int plane, int i)
{
    return &out[run * TASK_CELLS + plane * TASK_N + i];
}

/* The run index of the visible spectrum at half index h. */
static int visible_run(int h)
{
    return h * (1 + TASK_HIDDEN);
}

/* Deterministic noise in [-1, 1]. */
static double noise(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) / (double)(1ull << 52) - 1.0;
}

static char *summary_of(const float *out)
{
    struct gpu_run runs[NRUNS];
    make_runs(TASK_DEFAULT_SEED, runs);
    return diagnose_summary(t, runs, NRUNS, out);
}

static bool starts_with(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* Ids unique, texts present, and every hint names one of the page's. */
static void test_catalogue_is_well_formed(void **state)
{
    size_t n;
    const struct diagnose_entry *c = diagnose_catalogue(&n);
    assert_true(n >= 12);
    for (size_t e = 0; e < n; e++) {
        assert_true(strlen(c[e].id) > 0 && strlen(c[e].title) > 0);
        assert_true(strlen(c[e].explanation) > 40);
        assert_true(starts_with(c[e].hint, "Hint 1 — which pair am I in?") ||
                    starts_with(c[e].hint, "Hint 2 — which twiddle?") ||
                    starts_with(c[e].hint, "Hint 3 — the ending"));
        assert_ptr_equal(diagnose_find(c[e].id), &c[e]);
        for (size_t f = e + 1; f < n; f++)
            assert_string_not_equal(c[e].id, c[f].id);
    }
    assert_null(diagnose_find("no_such_mistake"));
}

/* Each entry's own outputs get that entry, on the default seed and others. */
static void test_each_entry_diagnosed_as_itself(void **state)
{
    static const uint64_t seeds[] = { TASK_DEFAULT_SEED, 1, 42, 0xdeadbeef };
    size_t n;
    const struct diagnose_entry *c = diagnose_catalogue(&n);
    for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
        struct gpu_run runs[NRUNS];
        make_runs(seeds[k], runs);
        for (size_t e = 0; e < n; e++) {
            float out[NRUNS * TASK_CELLS];
            outputs_of(&c[e].variant, runs, out);
            const struct diagnose_entry *got = diagnose_match(t, runs, NRUNS, out);
            if (got != &c[e])
                fail_msg("seed %llu: %s diagnosed as %s", (unsigned long long)seeds[k],
                         c[e].id, got ? got->id : "nothing");

            struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, NULL);
            diagnose_verdict(v, t, runs, NRUNS, out);
            assert_non_null(v->diagnosis);
            assert_string_equal(v->diagnosis->id, c[e].id);
            assert_string_equal(v->diagnosis->hint, c[e].hint);
            assert_null(v->summary);
            verdict_free(v);
        }
    }
}

/* The mistakes an entry merges really give its outputs, so they get it too. */
static void test_merged_mistakes_coincide(void **state)
{
    size_t n, merged = 0;
    const struct diagnose_entry *c = diagnose_catalogue(&n);
    struct gpu_run runs[NRUNS];
    make_runs(TASK_DEFAULT_SEED, runs);
    for (size_t e = 0; e < n; e++) {
        float want[NRUNS * TASK_CELLS];
        outputs_of(&c[e].variant, runs, want);
        for (size_t m = 0; m < c[e].nsame; m++, merged++) {
            float got[NRUNS * TASK_CELLS];
            outputs_of(&c[e].same_as[m], runs, got);
            for (int k = 0; k < NRUNS * TASK_CELLS; k++)
                assert_true(fabs(got[k] - want[k]) < 1e-5);
            assert_ptr_equal(diagnose_match(t, runs, NRUNS, got), &c[e]);
        }
    }
    assert_int_equal(merged, 3);   /* conjugate, int division, angle from i */
}

/*
 * No entry is the correct pass, and no two entries can be confused: on the
 * visible spectrum alone each pair differs somewhere by more than twice the
 * tolerance, so no output is within tolerance of both.
 */
static void test_entries_are_distinct(void **state)
{
    size_t n;
    const struct diagnose_entry *c = diagnose_catalogue(&n);
    for (size_t e = 0; e <= n; e++) {
        /* e == n stands for the correct pass */
        const struct butterfly_variant *a = e < n ? &c[e].variant : NULL;
        for (size_t f = 0; f < e; f++) {
            double worst = 0;
            for (int h = 0; h < TASK_NHALVES; h++) {
                double oa[TASK_PLANES][TASK_N], ob[TASK_PLANES][TASK_N];
                reference_pass_variant(t->visible, t->halves[h], a, oa);
                reference_pass_variant(t->visible, t->halves[h], &c[f].variant, ob);
                for (int p = 0; p < TASK_PLANES; p++) {
                    for (int i = 0; i < TASK_N; i++) {
                        double tol = t->atol + t->rtol * fmax(fabs(oa[p][i]), fabs(ob[p][i]));
                        worst = fmax(worst, fabs(oa[p][i] - ob[p][i]) / (2 * tol));
                    }
                }
            }
            if (worst < 10)
                fail_msg("%s and %s are too close on the visible spectrum",
                         e < n ? c[e].id : "the correct pass", c[f].id);
        }
    }
}

static void test_correct_gets_nothing(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * TASK_CELLS];
    make_runs(TASK_DEFAULT_SEED, runs);
    outputs_of(NULL, runs, out);
    assert_null(diagnose_match(t, runs, NRUNS, out));
    assert_null(diagnose_summary(t, runs, NRUNS, out));
    struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, NULL);
    diagnose_verdict(v, t, runs, NRUNS, out);
    assert_null(v->diagnosis);
    assert_null(v->summary);
    verdict_free(v);

    /* within tolerance, as a GPU's float sin and cos are */
    uint64_t seed = 7;
    for (int k = 0; k < NRUNS * TASK_CELLS; k++)
        out[k] += (float)(0.002 * noise(&seed));
    assert_null(diagnose_match(t, runs, NRUNS, out));
    assert_null(diagnose_summary(t, runs, NRUNS, out));
}

/* Near misses of an entry, and noise, get a summary and no diagnosis. */
static void test_perturbed_gets_summary_only(void **state)
{
    size_t n;
    const struct diagnose_entry *c = diagnose_catalogue(&n);
    struct gpu_run runs[NRUNS];
    make_runs(TASK_DEFAULT_SEED, runs);
    uint64_t seed = 99;
    for (size_t e = 0; e <= n; e++) {
        const struct butterfly_variant *v = e < n ? &c[e].variant : NULL;
        float out[NRUNS * TASK_CELLS];

        /* one cell of one hidden run off by 0.5 */
        outputs_of(v, runs, out);
        *cell(out, 5 + (int)e % 20, (int)e % 2, (int)e % 8) += 0.5f;
        struct verdict *vd = verdict_new(VERDICT_WRONG_ANSWER, NULL);
        diagnose_verdict(vd, t, runs, NRUNS, out);
        assert_null(vd->diagnosis);
        assert_non_null(vd->summary);
        assert_true(strlen(vd->summary) > 10);
        verdict_free(vd);

        /* every cell moved by up to 0.5 */
        outputs_of(v, runs, out);
        for (int k = 0; k < NRUNS * TASK_CELLS; k++)
            out[k] += (float)(0.5 * noise(&seed));
        assert_null(diagnose_match(t, runs, NRUNS, out));
        char *s = diagnose_summary(t, runs, NRUNS, out);
        assert_non_null(s);
        free(s);

        /* one cell never written */
        outputs_of(v, runs, out);
        *cell(out, 0, 1, 3) = NAN;
        assert_null(diagnose_match(t, runs, NRUNS, out));
    }
}

static void expect_summary(const float *out, const char *want)
{
    char *s = summary_of(out);
    assert_non_null(s);
    assert_string_equal(s, want);
    free(s);
}

static void test_summary_one_plane_one_member(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * TASK_CELLS];
    make_runs(TASK_DEFAULT_SEED, runs);
    outputs_of(NULL, runs, out);
    /* imaginary plane, upper members, half 2 (i = 2, 3, 6, 7) and 4 (4..7) */
    for (int r = 0; r < NRUNS; r++)
        for (int i = 0; i < TASK_N; i++)
            if (runs[r].half > 1 && (i / runs[r].half) % 2 == 1)
                *cell(out, r, 1, i) = -*cell(out, r, 1, i) + 1.0f;
    expect_summary(out, "real plane right everywhere; imaginary plane wrong at the "
                        "upper members for half 2 and 4");
}

static void test_summary_single_cell(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * TASK_CELLS];
    make_runs(TASK_DEFAULT_SEED, runs);
    outputs_of(NULL, runs, out);
    *cell(out, visible_run(2), 0, 1) += 1.0f;   /* half 4, i = 1: lower */
    expect_summary(out, "real plane wrong at the lower members for half 4; "
                        "imaginary plane right everywhere");
}

static void test_summary_members_differ(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * TASK_CELLS];
    make_runs(TASK_DEFAULT_SEED, runs);
    outputs_of(NULL, runs, out);
    *cell(out, visible_run(0), 0, 0) += 1.0f;      /* half 1, lower */
    *cell(out, visible_run(1), 0, 2) += 1.0f;      /* half 2, upper */
    *cell(out, visible_run(2) + 3, 0, 5) += 1.0f;  /* half 4, upper, hidden */
    for (int p = 0; p < TASK_PLANES; p++)
        *cell(out, visible_run(0) + 1, p, 6) -= 1.0f;   /* half 1, lower, both */
    expect_summary(out, "real plane wrong at the lower members for half 1 and at the "
                        "upper members for half 2 and 4; imaginary plane wrong at "
                        "the lower members for half 1");
}

static void test_summary_never_written(void **state)
{
    float out[NRUNS * TASK_CELLS];
    for (int k = 0; k < NRUNS * TASK_CELLS; k++)
        out[k] = NAN;
    expect_summary(out, "both planes wrong at both members for every half; "
                        "some cells never written (NaN) for every half");

    struct gpu_run runs[NRUNS];
    make_runs(TASK_DEFAULT_SEED, runs);
    outputs_of(NULL, runs, out);
    for (int r = visible_run(1); r < visible_run(2); r++)
        for (int i = 0; i < TASK_N; i++)
            *cell(out, r, 1, i) = NAN;
    expect_summary(out, "real plane right everywhere; imaginary plane wrong at both "
                        "members for half 2; some cells never written (NaN) for half 2");
}

static void test_summary_hidden_only(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * TASK_CELLS];
    make_runs(TASK_DEFAULT_SEED, runs);
    outputs_of(NULL, runs, out);
    for (int r = 0; r < NRUNS; r++)
        if (r % (1 + TASK_HIDDEN) != 0)
            for (int k = 0; k < TASK_CELLS; k++)
                out[r * TASK_CELLS + k] = 0.25f * (float)k - 2.0f;
    expect_summary(out, "both planes wrong at both members for every half; right on "
                        "the visible spectrum, wrong only on hidden ones");
}

static void test_summary_of_a_known_mistake(void **state)
{
    /* the summary a twiddle-sign kernel would get were it not named */
    struct gpu_run runs[NRUNS];
    float out[NRUNS * TASK_CELLS];
    make_runs(TASK_DEFAULT_SEED, runs);
    outputs_of(&diagnose_find("twiddle_sign")->variant, runs, out);
    expect_summary(out, "both planes wrong at both members for half 2 and 4");
    outputs_of(&diagnose_find("planes_swapped")->variant, runs, out);
    expect_summary(out, "both planes wrong at both members for every half");
}

/* The diagnosis and the summary survive the worker pool's JSON hop. */
static void test_json_round_trip(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * TASK_CELLS];
    make_runs(TASK_DEFAULT_SEED, runs);
    for (int pass = 0; pass < 2; pass++) {
        outputs_of(&diagnose_find("both_plus")->variant, runs, out);
        if (pass == 1)
            *cell(out, 0, 0, 0) = NAN;
        struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, "Wrong for every half.");
        diagnose_verdict(v, t, runs, NRUNS, out);
        json_t *j = verdict_to_json(v);
        assert_non_null(j);
        struct verdict *back = verdict_from_json(j);
        assert_non_null(back);
        if (pass == 0) {
            assert_non_null(back->diagnosis);
            assert_string_equal(back->diagnosis->id, "both_plus");
            assert_string_equal(back->diagnosis->explanation, v->diagnosis->explanation);
            assert_string_equal(back->diagnosis->hint, v->diagnosis->hint);
            assert_null(back->summary);
        } else {
            assert_null(back->diagnosis);
            assert_non_null(back->summary);
            assert_string_equal(back->summary, v->summary);
        }
        json_decref(j);
        verdict_free(back);
        verdict_free(v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalogue_is_well_formed),
        cmocka_unit_test(test_each_entry_diagnosed_as_itself),
        cmocka_unit_test(test_merged_mistakes_coincide),
        cmocka_unit_test(test_entries_are_distinct),
        cmocka_unit_test(test_correct_gets_nothing),
        cmocka_unit_test(test_perturbed_gets_summary_only),
        cmocka_unit_test(test_summary_one_plane_one_member),
        cmocka_unit_test(test_summary_single_cell),
        cmocka_unit_test(test_summary_members_differ),
        cmocka_unit_test(test_summary_never_written),
        cmocka_unit_test(test_summary_hidden_only),
        cmocka_unit_test(test_summary_of_a_known_mistake),
        cmocka_unit_test(test_json_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
