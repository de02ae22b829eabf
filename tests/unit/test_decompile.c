/* Values read back as formulas: the right formula is the reference, a typo
 * reads back as itself, and numbers no short formula gives read as none. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/task.h"
#include "engine/diagnosis/decompile.h"
#include "engine/diagnosis/diagnose.h"
#include "engine/diagnosis/family.h"
#include "engine/grade.h"
#include "engine/runs.h"
#include "engine/reference.h"
#include "tests/support/compared.h"

#define NRUNS BF_RUNS

static const struct exercise *t;   /* the butterfly, set in main */

static const float (*input_of(const struct gpu_run *run))[BF_N]
{
    return (const float (*)[BF_N])run->spec;
}

/* The right outputs of every run. */
static void right_outputs(struct gpu_run runs[NRUNS], float out[NRUNS * BF_CELLS])
{
    runs_fill(exercise_default(), TASK_DEFAULT_SEED, runs);
    for (int r = 0; r < NRUNS; r++) {
        double want[BF_PLANES][BF_N];
        reference_pass(input_of(&runs[r]), runs[r].half, want);
        for (int k = 0; k < BF_CELLS; k++)
            out[r * BF_CELLS + k] = (float)want[k / BF_N][k % BF_N];
    }
}

static int half_index(int half)
{
    for (int h = 0; h < BF_NHALVES; h++)
        if (t->sweep[h] == half)
            return h;
    return -1;
}

/* The formula due for every value is the reference's arithmetic. */
static void test_due_formula_is_reference(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    right_outputs(runs, out);
    for (int r = 0; r < NRUNS; r++) {
        double want[BF_PLANES][BF_N];
        reference_pass(input_of(&runs[r]), runs[r].half, want);
        for (int p = 0; p < BF_PLANES; p++)
            for (int i = 0; i < BF_N; i++) {
                struct cell_formula f;
                decompile_due(runs[r].half, i, p, &f);
                assert_true(fabs(decompile_value(&f, input_of(&runs[r])) - want[p][i]) < 1e-12);
            }
    }
}

/* Right outputs read back as the due formulas, all of them. */
static void test_right_outputs_read_back(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    right_outputs(runs, out);
    static struct cell_formula f[BF_NHALVES][BF_PLANES][BF_N];
    assert_true(decompile_outputs(t, runs, NRUNS, out, f));
    for (int h = 0; h < BF_NHALVES; h++)
        for (int p = 0; p < BF_PLANES; p++)
            for (int i = 0; i < BF_N; i++) {
                struct cell_formula due;
                decompile_due(t->sweep[h], i, p, &due);
                assert_true(decompile_equal(&f[h][p][i], &due));
            }
}

/* A typo in one value's formula reads back as that formula, in words. */
static void test_typo_reads_back(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    right_outputs(runs, out);
    /* the upper members' imaginary part at half 2 as ar - ti: ai read as ar */
    for (int r = 0; r < NRUNS; r++) {
        if (runs[r].half != 2)
            continue;
        const float (*in)[BF_N] = input_of(&runs[r]);
        for (int i = 0; i < BF_N; i++) {
            if ((i / 2) % 2 == 0)
                continue;
            double want[BF_PLANES][BF_N];
            reference_pass(in, 2, want);
            int base = i - 2;
            out[r * BF_CELLS + BF_N + i] = (float)(want[1][i] - in[1][base] + in[0][base]);
        }
    }
    static struct cell_formula f[BF_NHALVES][BF_PLANES][BF_N];
    assert_true(decompile_outputs(t, runs, NRUNS, out, f));
    char text[128];
    /* i = 3 at half 2: w = -i, due ai - (wr·bi + wi·br) = ai + br */
    assert_string_equal(decompile_render(&f[half_index(2)][1][3], 2, 3, text, sizeof text),
                        "ar + br");
    struct cell_formula due;
    decompile_due(2, 3, 1, &due);
    assert_string_equal(decompile_render(&due, 2, 3, text, sizeof text), "ai + br");

    /* and the diagnosis names what differs, with the value */
    struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, NULL);
    diagnose_verdict(v, compared(t, runs, NRUNS, out), NULL, 0);
    assert_non_null(v->diagnosis);
    assert_string_equal(v->diagnosis->id, "wrong_a");
    /* only the upper members' imaginary part is off: the ending's step,
     * since every earlier step feeds both members */
    assert_string_equal(v->diagnosis->title,
                        "Some values of the upper member (j = 1) end wrong in the imaginary "
                        "plane");
    assert_string_equal(v->diagnosis->step, "sign");
    assert_string_equal(v->diagnosis->explanation,
                        "At half = 2, i = 2 the imaginary part is ar − bi where ai − bi is "
                        "due (4 of the 48 values).");
    assert_true(!strncmp(v->diagnosis->hint, "Hint 3", 6));
    verdict_free(v);
}

/* A stray constant (PI where tr belongs, say) reads back as a constant. */
static void test_stray_constant(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    right_outputs(runs, out);
    /* the real part of the lower members at half 4 as ar + PI */
    for (int r = 0; r < NRUNS; r++)
        if (runs[r].half == 4)
            for (int i = 0; i < 4; i++)
                out[r * BF_CELLS + i] = (float)(input_of(&runs[r])[0][i] + M_PI);
    static struct cell_formula f[BF_NHALVES][BF_PLANES][BF_N];
    assert_true(decompile_outputs(t, runs, NRUNS, out, f));
    char text[128];
    assert_string_equal(decompile_render(&f[half_index(4)][0][1], 4, 1, text, sizeof text),
                        "ar + 3.142");
    struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, NULL);
    diagnose_verdict(v, compared(t, runs, NRUNS, out), NULL, 0);
    assert_string_equal(v->diagnosis->id, "wrong_b+stray_constant");
    assert_string_equal(v->diagnosis->title,
                        "Some values of the lower member (j = 0) end wrong in the real plane");
    assert_string_equal(v->diagnosis->step, "sign");
    /* one hint */
    assert_string_equal(v->diagnosis->hint,
                        "Hint 3 — the ending: return ar ± tr when this.thread.y is 0 and "
                        "ai ± ti when it is 1");
    verdict_free(v);
}

/* Numbers no short formula gives, and NaN, read back as nothing. */
static void test_no_formula_for_noise(void **state)
{
    struct gpu_run runs[NRUNS];
    float out[NRUNS * BF_CELLS];
    static struct cell_formula f[BF_NHALVES][BF_PLANES][BF_N];
    right_outputs(runs, out);
    out[20 * BF_CELLS + 5] += 0.5f;          /* one hidden value off */
    assert_false(decompile_outputs(t, runs, NRUNS, out, f));
    right_outputs(runs, out);
    out[3] = NAN;
    assert_false(decompile_outputs(t, runs, NRUNS, out, f));
    uint64_t s = 5;
    for (int k = 0; k < NRUNS * BF_CELLS; k++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        out[k] = (float)((double)(s >> 11) / (double)(1ull << 53) * 6 - 3);
    }
    assert_false(decompile_outputs(t, runs, NRUNS, out, f));
}

static void test_render(void **state)
{
    char text[128];
    struct cell_formula f = { { { 1, 0, 2 }, { 0, 4, 5 }, { 1, 4, 8 } }, 0.0 };
    /* at half 4, i = 0: base 0, b = element 4 */
    assert_string_equal(decompile_render(&f, 4, 0, text, sizeof text),
                        "−ai + 0.7071·br − 0.3827·bi");
    /* other elements by their place; terms on one input merged */
    f = (struct cell_formula){ { { 0, 0, 0 }, { 0, 6, 1 }, { 0, 6, 2 } }, 0.0 };
    assert_string_equal(decompile_render(&f, 1, 0, text, sizeof text), "0");
    f = (struct cell_formula){ { { 0, 7, 1 }, { 1, 2, 3 }, { 1, 2, 3 } }, -3.14159 };
    assert_string_equal(decompile_render(&f, 1, 0, text, sizeof text),
                        "spectrum[0][7] + 1.8478·spectrum[1][2] − 3.142");
    for (int c = 1; c < DECOMPILE_COEFS; c++)
        assert_true(fabs(decompile_coef(c)) > 0.3 && fabs(decompile_coef(c)) <= 1);
    assert_true(decompile_coef(0) == 0);
}

int main(void)
{
    t = exercise_default();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_due_formula_is_reference),
        cmocka_unit_test(test_right_outputs_read_back),
        cmocka_unit_test(test_typo_reads_back),
        cmocka_unit_test(test_stray_constant),
        cmocka_unit_test(test_no_formula_for_noise),
        cmocka_unit_test(test_render),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
