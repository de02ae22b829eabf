/* compare.c - the one comparison every cell goes through, and the
 * judgement of a whole grading's outputs. */
#include "engine/compare.h"

#include <math.h>
#include <string.h>

#include "engine/reference.h"

bool compare_cell(double expected, double got, double atol, double rtol)
{
    if (!isfinite(got) || !isfinite(expected))
        return false;
    /* written so that a NaN anywhere makes the test false, not true */
    return fabs(got - expected) <= atol + rtol * fabs(expected);
}

bool compare_run_is_visible(const struct task *t, const struct gpu_run *run)
{
    /* by content, not by position: a hand-made set of runs (the tests',
     * the benchmarks') is judged the same as the grader's own layout */
    return !memcmp(run->spec, t->visible, sizeof t->visible);
}

static int half_index(const struct task *t, int half)
{
    for (int h = 0; h < TASK_NHALVES; h++)
        if (t->halves[h] == half)
            return h;
    return -1;
}

static void judge_run(const struct task *t, struct compared_run *cr, const uint32_t *marks)
{
    float in[TASK_PLANES][TASK_N];
    memcpy(in, cr->run->spec, sizeof in);
    reference_pass(in, cr->run->half, cr->expected);
    cr->all_passed = true;
    for (int p = 0; p < TASK_PLANES; p++) {
        for (int i = 0; i < TASK_N; i++) {
            bool ok = compare_cell(cr->expected[p][i], cr->got[p * TASK_N + i], t->atol, t->rtol);
            cr->passed[p][i] = ok;
            cr->loop[p][i] = marks ? marks[p * TASK_N + i] : 0;
            cr->all_passed &= ok;
        }
    }
}

/* The first run and cell over the loop budget, visible runs before hidden. */
static void find_overrun(struct comparison *c)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t r = 0; r < c->nruns; r++) {
            const struct compared_run *cr = &c->run[r];
            if (cr->visible != (pass == 0))
                continue;
            for (int k = 0; k < TASK_CELLS; k++) {
                if (cr->loop[k / TASK_N][k % TASK_N]) {
                    c->overrun = cr;
                    c->overrun_cell = k;
                    return;
                }
            }
        }
    }
}

bool compare_outputs(const struct task *t, const struct gpu_run *runs, size_t nruns,
                     const float *out, const uint32_t *marks, struct comparison *c)
{
    memset(c, 0, sizeof *c);
    if (nruns == 0 || nruns > TASK_RUNS)
        return false;
    *c = (struct comparison){ .task = t, .runs = runs, .out = out, .nruns = nruns,
                              .all_passed = true };
    for (int h = 0; h < TASK_NHALVES; h++)
        c->half_passed[h] = true;
    for (size_t r = 0; r < nruns; r++) {
        struct compared_run *cr = &c->run[r];
        cr->run = &runs[r];
        cr->got = out + r * TASK_CELLS;
        cr->half_index = half_index(t, runs[r].half);
        cr->visible = compare_run_is_visible(t, &runs[r]);
        judge_run(t, cr, marks ? marks + r * TASK_CELLS : NULL);
        c->all_passed &= cr->all_passed;
        int h = cr->half_index;
        if (h < 0)
            continue;
        c->half_passed[h] &= cr->all_passed;
        if (cr->visible && !c->visible[h])
            c->visible[h] = cr;
        else if (!cr->visible) {
            c->hidden_total[h]++;
            c->hidden_passed[h] += cr->all_passed;
        }
    }
    find_overrun(c);
    if (c->overrun)
        c->all_passed = false;
    return true;
}
