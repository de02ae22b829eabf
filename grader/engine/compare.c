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

bool compare_run_is_visible(const struct exercise *e, const struct gpu_run *run)
{
    /* by content, not by position: a hand-made set of runs (the tests',
     * the benchmarks') is judged the same as the grader's own layout */
    for (int p = 0; p < e->in_planes; p++)
        if (memcmp(run->spec + p * e->in_n, e->visible[p], (size_t)e->in_n * sizeof(float)))
            return false;
    return true;
}

static int half_index(const struct exercise *e, int half)
{
    for (size_t h = 0; h < e->nsweep; h++)
        if (e->sweep[h] == half)
            return (int)h;
    return -1;
}

static void judge_run(const struct exercise *e, struct compared_run *cr, const uint32_t *marks)
{
    double due[EX_MAX_CELLS];
    e->reference(cr->run->half, cr->run->spec, due);
    cr->all_passed = true;
    for (int p = 0; p < e->out_planes; p++) {
        for (int i = 0; i < e->out_n; i++) {
            int k = p * e->out_n + i;
            cr->expected[p][i] = due[k];
            bool ok = compare_cell(due[k], cr->got[k], e->atol, e->rtol);
            cr->passed[p][i] = ok;
            cr->loop[p][i] = marks ? marks[k] : 0;
            cr->all_passed &= ok;
        }
    }
}

/* The first run and cell over the loop budget, visible runs before hidden. */
static void find_overrun(struct comparison *c)
{
    int n = c->ex->out_n;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t r = 0; r < c->nruns; r++) {
            const struct compared_run *cr = &c->run[r];
            if (cr->visible != (pass == 0))
                continue;
            for (int k = 0; k < exercise_out_cells(c->ex); k++) {
                if (cr->loop[k / n][k % n]) {
                    c->overrun = cr;
                    c->overrun_cell = k;
                    return;
                }
            }
        }
    }
}

bool compare_outputs(const struct exercise *e, const struct gpu_run *runs, size_t nruns,
                     const float *out, const uint32_t *marks, struct comparison *c)
{
    memset(c, 0, sizeof *c);
    if (nruns == 0 || nruns > EX_MAX_RUNS)
        return false;
    size_t cells = (size_t)exercise_out_cells(e);
    *c = (struct comparison){ .ex = e, .runs = runs, .out = out, .nruns = nruns,
                              .all_passed = true };
    for (size_t h = 0; h < e->nsweep; h++)
        c->half_passed[h] = true;
    for (size_t r = 0; r < nruns; r++) {
        struct compared_run *cr = &c->run[r];
        cr->run = &runs[r];
        cr->got = out + r * cells;
        cr->half_index = half_index(e, runs[r].half);
        cr->visible = compare_run_is_visible(e, &runs[r]);
        judge_run(e, cr, marks ? marks + r * cells : NULL);
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
