/* Diagnosis: the search names each member of the family from its outputs,
 * says so in words, and names nothing that no member explains. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/task.h"
#include "engine/compare.h"
#include "engine/diagnosis/describe.h"
#include "engine/diagnosis/diagnose.h"
#include "engine/diagnosis/summary.h"
#include "engine/grade.h"
#include "engine/runs.h"
#include "engine/reference.h"
#include "tests/support/compared.h"

#define NRUNS BF_RUNS

static const struct exercise *t;   /* the butterfly, set in main */

static void make_runs(uint64_t seed, struct gpu_run runs[NRUNS])
{
    runs_fill(exercise_default(), seed, runs);
}

static const float (*input_of(const struct gpu_run *run))[BF_N]
{
    return (const float (*)[BF_N])run->spec;
}

/* What a kernel that is member m returns on every run, as floats. */
static void outputs_of(const struct family_member *m, const struct gpu_run runs[NRUNS],
                       float out[NRUNS * BF_CELLS])
{
    for (int r = 0; r < NRUNS; r++)
        for (int p = 0; p < BF_PLANES; p++)
            for (int i = 0; i < BF_N; i++)
                out[r * BF_CELLS + p * BF_N + i] =
                    (float)family_cell(m, input_of(&runs[r]), runs[r].half, p, i);
}

static float *cell(float *out, int run, int plane, int i)
{
    return &out[run * BF_CELLS + plane * BF_N + i];
}

/* The run index of the visible spectrum at half index h. */
static int visible_run(int h)
{
    return h * (1 + BF_HIDDEN);
}

/* Deterministic noise in [-1, 1]. */
static double noise(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) / (double)(1ull << 52) - 1.0;
}

/* The member with the mistakes named (ids of family values). */
static struct family_member member(const char *id1, const char *id2)
{
    struct family_member m = { .constant = 0 };
    const char *ids[2] = { id1, id2 };
    for (int k = 0; k < 2 && ids[k]; k++) {
        bool found = false;
        for (int p = 0; p < FAMILY_NPARAMS && !found; p++) {
            const struct family_param_info *info = family_param((enum family_param)p);
            for (int v = 1; v < info->nvalues && !found; v++)
                if (!strcmp(info->values[v].id, ids[k])) {
                    m.v[p] = (unsigned char)v;
                    found = true;
                }
        }
        if (!found)
            fail_msg("no mistake %s", ids[k]);
    }
    return m;
}

static bool same_member(const struct family_member *a, const struct family_member *b)
{
    return !memcmp(a->v, b->v, sizeof a->v);
}

/* True when every cell of out passes against the reference. */
static bool all_right(const struct gpu_run runs[NRUNS], const float *out)
{
    for (int r = 0; r < NRUNS; r++) {
        double want[BF_PLANES][BF_N];
        reference_pass(input_of(&runs[r]), runs[r].half, want);
        for (int p = 0; p < BF_PLANES; p++)
            for (int i = 0; i < BF_N; i++)
                if (!compare_cell(want[p][i], out[r * BF_CELLS + p * BF_N + i], t->atol,
                                  t->rtol))
                    return false;
    }
    return true;
}

/*
 * The search on member m's own outputs: something is found; every
 * explanation found really reproduces every cell; none makes more mistakes
 * than m; and m itself is among them unless a simpler member gives the
 * same outputs or the list was full.
 */
static void expect_recognised(const struct family_member *m, const struct gpu_run runs[NRUNS],
                              const char *what)
{
    float out[NRUNS * BF_CELLS];
    outputs_of(m, runs, out);
    if (all_right(runs, out))
        return;    /* the same outputs as the right pass: never a Wrong Answer */
    struct search_result res;
    if (!search_outputs(t, runs, NRUNS, out, &res))
        fail_msg("%s: nothing found", what);
    bool itself = false;
    for (size_t k = 0; k < res.n; k++) {
        const struct search_found *f = &res.found[k];
        bool ok = f->tables ? search_tables_match(t, runs, NRUNS, out, &f->member, f->pairs)
                            : search_member_matches(t, runs, NRUNS, out, &f->member);
        if (!ok)
            fail_msg("%s: found[%zu] does not reproduce the outputs", what, k);
        /* one step of the recipe with values of its own breaks fewer
         * steps than two mistakes: it may lead */
        if (f->tables && !(f->step != SEARCH_STEP_NONE && f->depth < family_depth(m)))
            fail_msg("%s: explained by tables only (step %d)", what, (int)f->step);
        if (f->depth > family_depth(m))
            fail_msg("%s: found[%zu] makes %d mistakes", what, k, f->depth);
        itself |= same_member(&f->member, m);
    }
    if (!itself && res.found[0].depth == family_depth(m) && res.more == 0)
        fail_msg("%s: not among the %zu found", what, res.n);
}

static const char *id_of(int p, int v)
{
    return family_param((enum family_param)p)->values[v].id;
}

/* Every member with one mistake is recognised, on several seeds. */
static void test_each_mistake_recognised(void **state)
{
    static const uint64_t seeds[] = { TASK_DEFAULT_SEED, 1, 0xdeadbeef };
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        struct gpu_run runs[NRUNS];
        make_runs(seeds[s], runs);
        for (int p = 0; p < FAMILY_NPARAMS; p++) {
            const struct family_param_info *info = family_param((enum family_param)p);
            for (int v = 1; v < info->nvalues; v++) {
                struct family_member m = { .constant = 0 };
                m.v[p] = (unsigned char)v;
                if (p == FP_OUTPUT && v == info->nvalues - 1)
                    m.constant = s == 0 ? 1.25 : -INFINITY;
                expect_recognised(&m, runs, id_of(p, v));
            }
        }
    }
}

/* Every member with two mistakes is recognised too. */
static void test_each_pair_of_mistakes_recognised(void **state)
{
    struct gpu_run runs[NRUNS];
    make_runs(TASK_DEFAULT_SEED, runs);
    size_t tried = 0;
    for (int p = 1; p < FAMILY_NPARAMS; p++) {
        for (int q = p + 1; q < FAMILY_NPARAMS; q++) {
            const struct family_param_info *a = family_param((enum family_param)p);
            const struct family_param_info *b = family_param((enum family_param)q);
            for (int v = 1; v < a->nvalues; v++) {
                for (int w = 1; w < b->nvalues; w++) {
                    struct family_member m = { .constant = 0 };
                    m.v[p] = (unsigned char)v;
                    m.v[q] = (unsigned char)w;
                    char what[128];
                    snprintf(what, sizeof what, "%s+%s", id_of(p, v), id_of(q, w));
                    expect_recognised(&m, runs, what);
                    tried++;
                }
            }
        }
    }
    assert_true(tried > 1000);
}

/* Names found for the outputs of the mistakes named. */
static struct search_result search_of(const char *id1, const char *id2, float *out)
{
    struct gpu_run runs[NRUNS];
    make_runs(TASK_DEFAULT_SEED, runs);
    struct family_member m = member(id1, id2);
    outputs_of(&m, runs, out);
    struct search_result res;
    assert_true(search_outputs(t, runs, NRUNS, out, &res));
    return res;
}

static bool found_named(const struct search_result *res, const char *id)
{
    struct family_member m = member(id, NULL);
    for (size_t k = 0; k < res->n; k++)
        if (same_member(&res->found[k].member, &m))
            return true;
    return false;
}

/* Mistakes that give the same outputs are named together, the first in
 * family order first. */
static void test_ambiguous_mistakes_named_together(void **state)
{
    static const struct {
        const char *ids[3];
    } groups[] = {
        { { "twiddle_sign", "conjugate_multiply", NULL } },
        { { "no_twiddle", "int_division", "r_zero" } },
        { { "both_plus", "angle_from_i", NULL } },
    };
    float out[NRUNS * BF_CELLS];
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        for (size_t k = 0; k < 3 && groups[g].ids[k]; k++) {
            struct search_result res = search_of(groups[g].ids[k], NULL, out);
            for (size_t e = 0; e < 3 && groups[g].ids[e]; e++)
                if (!found_named(&res, groups[g].ids[e]))
                    fail_msg("%s's outputs: %s not named", groups[g].ids[k], groups[g].ids[e]);
            struct family_member first = member(groups[g].ids[0], NULL);
            assert_true(same_member(&res.found[0].member, &first));
        }
    }
}

static struct diagnosis *describe(const char *id1, const char *id2)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    struct search_result res = search_of(id1, id2, out);
    make_runs(TASK_DEFAULT_SEED, runs);
    struct diagnosis *d = describe_member(compared(t, runs, NRUNS, out), &res, NULL);
    assert_non_null(d);
    return d;
}

static bool starts_with(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

static void expect_in(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("\"%s\" lacks \"%s\"", text, part);
}

/* The words: a title, one sentence of what and where, one hint, and the
 * rest (the right formula, the readings alike) behind "more". */
static void test_description_in_words(void **state)
{
    struct diagnosis *d = describe("twiddle_sign", NULL);
    assert_string_equal(d->id, "twiddle_sign");
    assert_string_equal(d->step, "w");
    assert_string_equal(d->title, "The twiddle turns the wrong way");
    assert_string_equal(d->explanation, "w = e^(+iπ·r/half): the sign of the twiddle's angle "
                                        "is flipped; it shows at half 2 and 4 (half 1 is "
                                        "right).");
    /* no boilerplate opening */
    assert_null(strstr(d->explanation, "Every cell, on the visible spectrum"));
    expect_in(d->more, "The right formula: w = e^(−iπ·r/half).");
    /* the conjugate multiply gives the same numbers: said, as equivalent */
    expect_in(d->more, "Equivalently, the same numbers come from a kernel where w·b is "
                       "conj(w)·b");
    /* one hint */
    assert_string_equal(d->hint, "Hint 2 — which twiddle? w = e^(−iπ·r/half), minus sign "
                                 "included");
    diagnosis_free(d);

    d = describe("planes_swapped", "twiddle_sign");
    assert_string_equal(d->id, "planes_swapped+twiddle_sign");
    /* one story (issue 32): the title names the lead mistake, the second
     * gets a sentence of its own */
    assert_string_equal(d->title, "The twiddle turns the wrong way");
    expect_in(d->explanation, "it shows at every half. A second mistake: each plane returns "
                              "the other plane's part");
    assert_null(strchr(d->hint, ';'));
    diagnosis_free(d);

    d = describe("returns_constant", NULL);
    assert_string_equal(d->id, "returns_zero");
    diagnosis_free(d);
}

/* Outputs no formula gives, but still a ± w·b cell by cell: named by what
 * differs, with the first cell where it does. */
static void test_tables_when_no_formula(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    make_runs(TASK_DEFAULT_SEED, runs);
    static const struct family_member right;
    /* b of cell i = 5 at half = 2 taken from element 0: no formula does that */
    for (int r = 0; r < NRUNS; r++) {
        for (int i = 0; i < BF_N; i++) {
            struct family_pair pr;
            family_pair_of(&right, runs[r].half, i, &pr);
            if (runs[r].half == 2 && i == 5)
                pr.b = 0;
            double v[2];
            family_shape_cells(&right, input_of(&runs[r]), &pr, i, v);
            *cell(out, r, 0, i) = (float)v[0];
            *cell(out, r, 1, i) = (float)v[1];
        }
    }
    struct search_result res;
    assert_true(search_outputs(t, runs, NRUNS, out, &res));
    assert_true(res.found[0].tables);
    assert_true(search_tables_match(t, runs, NRUNS, out, &res.found[0].member,
                                    res.found[0].pairs));
    struct diagnosis *d = describe_member(compared(t, runs, NRUNS, out), &res, NULL);
    /* one step, the elements read, explains it: told as that step */
    assert_string_equal(d->id, "wrong_read");
    assert_string_equal(d->step, "read");
    assert_string_equal(d->title, "a or b read from the wrong element");
    assert_string_equal(d->explanation, "b is element 0 where element 7 (base + half) is "
                                        "due at half = 2, i = 5; it shows at half 2 (half 1 "
                                        "and 4 are right).");
    assert_true(starts_with(d->hint, "Hint 1 — which pair am I in?"));
    diagnosis_free(d);
}

/* Outputs that no member gives get no name: near misses and noise. */
static void test_no_false_names(void **state)
{
    struct gpu_run runs[NRUNS];
    make_runs(TASK_DEFAULT_SEED, runs);
    uint64_t seed = 99;
    float out[NRUNS * BF_CELLS];
    struct search_result res;
    for (int p = 0; p < FAMILY_NPARAMS; p++) {
        const struct family_param_info *info = family_param((enum family_param)p);
        for (int v = 0; v < info->nvalues; v++) {
            struct family_member m = { .constant = 2.5 };
            m.v[p] = (unsigned char)v;
            /* one cell of one hidden run off by 0.5 */
            outputs_of(&m, runs, out);
            float *c = cell(out, 5 + (p * 7 + v) % 20, v % 2, (p + v) % 8);
            *c = isfinite(*c) ? *c + 0.5f : 0.5f;
            if (search_outputs(t, runs, NRUNS, out, &res))
                fail_msg("%s + one cell off: named", v ? id_of(p, v) : "right");
            /* every cell moved by up to 0.5 */
            outputs_of(&m, runs, out);
            for (int k = 0; k < NRUNS * BF_CELLS; k++)
                out[k] = (isfinite(out[k]) ? out[k] : 0) + (float)(0.5 * noise(&seed));
            if (search_outputs(t, runs, NRUNS, out, &res))
                fail_msg("%s + noise: named", v ? id_of(p, v) : "right");
        }
    }
    /* numbers with nothing to do with the inputs */
    for (int k = 0; k < NRUNS * BF_CELLS; k++)
        out[k] = (float)(4 * noise(&seed));
    assert_false(search_outputs(t, runs, NRUNS, out, &res));
    /* right on the visible spectrum, made up on the hidden ones */
    static const struct family_member right;
    outputs_of(&right, runs, out);
    for (int r = 0; r < NRUNS; r++)
        if (r % (1 + BF_HIDDEN) != 0)
            for (int k = 0; k < BF_CELLS; k++)
                out[r * BF_CELLS + k] = 0.25f * (float)k - 2.0f;
    assert_false(search_outputs(t, runs, NRUNS, out, &res));
}

static void test_right_outputs_get_nothing(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    static const struct family_member right;
    make_runs(TASK_DEFAULT_SEED, runs);
    outputs_of(&right, runs, out);
    assert_null(summary_text(compared(t, runs, NRUNS, out)));
    struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, NULL);
    diagnose_verdict(v, compared(t, runs, NRUNS, out), NULL, 0);
    assert_null(v->diagnosis);
    assert_null(v->summary);
    assert_null(v->worked_cell);
    assert_null(v->worked_cells);
    verdict_free(v);

    /* within tolerance, as a GPU's float sin and cos are */
    uint64_t seed = 7;
    for (int k = 0; k < NRUNS * BF_CELLS; k++)
        out[k] += (float)(0.002 * noise(&seed));
    assert_null(summary_text(compared(t, runs, NRUNS, out)));
}

/* ---- the summary, when nothing is named ---- */

static void expect_summary(const float *out, const char *want)
{
    struct gpu_run runs[NRUNS];
    make_runs(TASK_DEFAULT_SEED, runs);
    char *s = summary_text(compared(t, runs, NRUNS, out));
    assert_non_null(s);
    assert_string_equal(s, want);
    free(s);
}

static void right_outputs(float out[NRUNS * BF_CELLS], struct gpu_run runs[NRUNS])
{
    static const struct family_member right;
    make_runs(TASK_DEFAULT_SEED, runs);
    outputs_of(&right, runs, out);
}

static void test_summary_one_plane_one_member(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    right_outputs(out, runs);
    /* imaginary plane, upper members, half 2 (i = 2, 3, 6, 7) and 4 (4..7) */
    for (int r = 0; r < NRUNS; r++)
        for (int i = 0; i < BF_N; i++)
            if (runs[r].half > 1 && (i / runs[r].half) % 2 == 1)
                *cell(out, r, 1, i) = -*cell(out, r, 1, i) + 1.0f;
    expect_summary(out, "real plane right everywhere; imaginary plane wrong at the "
                        "upper members for half 2 and 4");
}

static void test_summary_members_differ(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    right_outputs(out, runs);
    *cell(out, visible_run(0), 0, 0) += 1.0f;      /* half 1, lower */
    *cell(out, visible_run(1), 0, 2) += 1.0f;      /* half 2, upper */
    *cell(out, visible_run(2) + 3, 0, 5) += 1.0f;  /* half 4, upper, hidden */
    for (int p = 0; p < BF_PLANES; p++)
        *cell(out, visible_run(0) + 1, p, 6) -= 1.0f;   /* half 1, lower, both */
    expect_summary(out, "real plane wrong at the lower members for half 1 and at the "
                        "upper members for half 2 and 4; imaginary plane wrong at "
                        "the lower members for half 1");
}

/* A NaN or an infinity is what the kernel returned: said so, with the cells. */
static void test_summary_says_nan_returned(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    right_outputs(out, runs);
    for (int r = visible_run(1); r < visible_run(2); r++)
        for (int i = 0; i < BF_N; i++)
            if (i % 4 == 1)
                *cell(out, r, 1, i) = NAN;
    *cell(out, visible_run(2) + 2, 0, 7) = INFINITY;
    expect_summary(out, "real plane wrong at the upper members for half 4; imaginary plane "
                        "wrong at the lower members for half 2; it returned NaN at half 2 "
                        "(imaginary i = 1, 5); it returned Infinity at half 4 (hidden "
                        "spectra only)");
    for (int r = 0; r < NRUNS; r++)
        for (int i = 0; i < BF_CELLS; i++)
            if (r != visible_run(0) || i % 2)
                out[r * BF_CELLS + i] = NAN;
    expect_summary(out, "both planes wrong at both members for every half; it returned NaN "
                        "at half 1 (real i = 1, 3, 5, 7; imaginary i = 1, 3, 5, 7), half 2 "
                        "(every cell), half 4 (every cell)");
    for (int k = 0; k < NRUNS * BF_CELLS; k++)
        out[k] = NAN;
    expect_summary(out, "both planes wrong at both members for every half; it returned NaN "
                        "in every cell");
}

static void test_summary_hidden_only(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    right_outputs(out, runs);
    for (int r = 0; r < NRUNS; r++)
        if (r % (1 + BF_HIDDEN) != 0)
            for (int k = 0; k < BF_CELLS; k++)
                out[r * BF_CELLS + k] = 0.25f * (float)k - 2.0f;
    expect_summary(out, "both planes wrong at both members for every half; right on "
                        "the visible spectrum, wrong only on hidden ones");
}

/* ---- the verdict ---- */

/* A named mistake, and a NaN kernel, through diagnose_verdict. */
static void test_verdict_gets_name_or_summary(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    make_runs(TASK_DEFAULT_SEED, runs);
    struct family_member m = member("both_plus", NULL);
    outputs_of(&m, runs, out);
    struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, NULL);
    v->summary = strdup("stale");
    diagnose_verdict(v, compared(t, runs, NRUNS, out), NULL, 0);
    assert_non_null(v->diagnosis);
    assert_string_equal(v->diagnosis->id, "both_plus");
    assert_null(v->summary);
    assert_non_null(v->worked_cell);
    assert_non_null(v->worked_cells);
    verdict_free(v);

    /* the upper imaginary cells left NaN: no member, a summary that says NaN */
    m = member(NULL, NULL);
    outputs_of(&m, runs, out);
    for (int r = 0; r < NRUNS; r++)
        for (int i = 0; i < BF_N; i++)
            if ((i / runs[r].half) % 2)
                *cell(out, r, 1, i) = NAN;
    v = verdict_new(VERDICT_WRONG_ANSWER, NULL);
    diagnose_verdict(v, compared(t, runs, NRUNS, out), NULL, 0);
    assert_null(v->diagnosis);
    assert_non_null(v->summary);
    expect_in(v->summary, "it returned NaN at half 1 (imaginary i = 1, 3, 5, 7)");
    assert_null(strstr(v->summary, "written"));
    verdict_free(v);

    /* every cell NaN: named, in words that say the kernel returned it */
    for (int k = 0; k < NRUNS * BF_CELLS; k++)
        out[k] = NAN;
    v = verdict_new(VERDICT_WRONG_ANSWER, NULL);
    diagnose_verdict(v, compared(t, runs, NRUNS, out), NULL, 0);
    assert_string_equal(v->diagnosis->id, "returns_nan");
    expect_in(v->diagnosis->explanation, "Every cell returns NaN");
    verdict_free(v);
}

/* Readings the outputs prove alike: the one the code shows leads, the
 * other is said "equivalently"; without a cue the family's order decides. */
static void test_code_picks_among_equal_readings(void **state)
{
    static const struct {
        const char *made_by, *body, *lead, *step;
    } cases[] = {
        { "both_plus", "float wr = cos(-PI * float(i) / float(half));", "angle_from_i", "w" },
        { "both_plus", "return j == 0 ? ar + tr : ar + tr;", "both_plus", "sign" },
        { "both_plus", NULL, "both_plus", "sign" },
        { "no_twiddle", "float theta = -PI * float(r / half);", "int_division", "w" },
        { "twiddle_sign", "float tr = wr * br + wi * bi;", "conjugate_multiply", "wb" },
        { "twiddle_sign", "float wr = cos(PI * float(r) / float(half));", "twiddle_sign", "w" },
    };
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    make_runs(TASK_DEFAULT_SEED, runs);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct family_member m = member(cases[k].made_by, NULL);
        outputs_of(&m, runs, out);
        struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, NULL);
        const char *body = cases[k].body;
        diagnose_verdict(v, compared(t, runs, NRUNS, out), body, body ? strlen(body) : 0);
        assert_non_null(v->diagnosis);
        if (strcmp(v->diagnosis->id, cases[k].lead) || strcmp(v->diagnosis->step, cases[k].step))
            fail_msg("%s: led with %s (%s), wanted %s (%s)", body ? body : "no code",
                     v->diagnosis->id, v->diagnosis->step, cases[k].lead, cases[k].step);
        /* the other readings are still said, as equivalent */
        expect_in(v->diagnosis->more, "Equivalently, the same numbers come from a kernel where");
        verdict_free(v);
    }
}

/* A division by zero on lavapipe left the smallest denormal, 1.4e-45, in
 * every cell: within the tolerance of 0, but not 0, and never said to be. */
static void test_denormal_not_called_zero(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    make_runs(TASK_DEFAULT_SEED, runs);
    for (int k = 0; k < NRUNS * BF_CELLS; k++)
        out[k] = 1.40129846e-45f;
    struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, NULL);
    diagnose_verdict(v, compared(t, runs, NRUNS, out), NULL, 0);
    assert_non_null(v->diagnosis);
    assert_string_equal(v->diagnosis->id, "returns_zero");
    assert_null(strstr(v->diagnosis->explanation, "Every cell returns 0;"));
    expect_in(v->diagnosis->explanation, "1.4013e-45");
    expect_in(v->worked_cell->says, "returned 1.4013e-45");
    verdict_free(v);
}

/* The diagnosis, the summary and the worked cells survive the pool's JSON hop. */
static void test_json_round_trip(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    make_runs(TASK_DEFAULT_SEED, runs);
    for (int pass = 0; pass < 2; pass++) {
        struct family_member m = member("both_plus", NULL);
        outputs_of(&m, runs, out);
        if (pass == 1)
            *cell(out, 0, 0, 0) = NAN;
        struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, "Wrong for every half.");
        diagnose_verdict(v, compared(t, runs, NRUNS, out), NULL, 0);
        json_t *j = verdict_to_json(v);
        assert_non_null(j);
        char *text = json_dumps(j, JSON_REAL_PRECISION(17));
        json_t *again = json_loads(text, 0, NULL);
        struct verdict *back = verdict_from_json(again);
        assert_non_null(back);
        if (pass == 0) {
            assert_string_equal(back->diagnosis->id, "both_plus");
            assert_string_equal(back->diagnosis->explanation, v->diagnosis->explanation);
            assert_string_equal(back->diagnosis->hint, v->diagnosis->hint);
            assert_string_equal(back->diagnosis->step, v->diagnosis->step);
            assert_string_equal(back->diagnosis->more, v->diagnosis->more);
            assert_null(back->summary);
        } else {
            assert_null(back->diagnosis);
            assert_string_equal(back->summary, v->summary);
            assert_true(isnan(back->worked_cells[0].got));
        }
        assert_memory_equal(back->worked_cell, v->worked_cell, sizeof *v->worked_cell);
        for (int k = 0; k < WORKED_CELLS; k++) {
            const struct worked_cell *a = &back->worked_cells[k], *b = &v->worked_cells[k];
            assert_string_equal(a->due, b->due);
            assert_string_equal(a->got_matches, b->got_matches);
            assert_string_equal(a->matches, b->matches);
            assert_string_equal(a->says, b->says);
            assert_int_equal(a->sign, b->sign);
            assert_true(a->expected == b->expected && a->passed == b->passed);
            assert_true(a->got == b->got || (isnan(a->got) && isnan(b->got)));
            assert_true(a->w.re == b->w.re && a->wb.im == b->wb.im);
        }
        json_t *j2 = verdict_to_json(back);
        char *text2 = json_dumps(j2, JSON_REAL_PRECISION(17));
        assert_string_equal(text, text2);
        free(text);
        free(text2);
        json_decref(j2);
        json_decref(again);
        json_decref(j);
        verdict_free(back);
        verdict_free(v);
    }
}

int main(void)
{
    t = exercise_default();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_mistake_recognised),
        cmocka_unit_test(test_each_pair_of_mistakes_recognised),
        cmocka_unit_test(test_ambiguous_mistakes_named_together),
        cmocka_unit_test(test_description_in_words),
        cmocka_unit_test(test_tables_when_no_formula),
        cmocka_unit_test(test_no_false_names),
        cmocka_unit_test(test_right_outputs_get_nothing),
        cmocka_unit_test(test_summary_one_plane_one_member),
        cmocka_unit_test(test_summary_members_differ),
        cmocka_unit_test(test_summary_says_nan_returned),
        cmocka_unit_test(test_summary_hidden_only),
        cmocka_unit_test(test_verdict_gets_name_or_summary),
        cmocka_unit_test(test_code_picks_among_equal_readings),
        cmocka_unit_test(test_denormal_not_called_zero),
        cmocka_unit_test(test_json_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
