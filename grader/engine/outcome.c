/* outcome.c - the verdict a grading's judged outputs earn, in words. */
#include "engine/outcome.h"

#include <stdio.h>
#include <stdlib.h>

/* Where the loop budget ran out, and the Time Limit Exceeded that says so:
 * the same on every device. */
static void loop_verdict(struct verdict *v, const struct comparison *c, const int *loop_lines,
                         size_t nloops)
{
    const struct compared_run *cr = c->overrun;
    int cell = c->overrun_cell;
    uint32_t loop = cr->loop[cell / TASK_N][cell % TASK_N];
    unsigned limit = c->task->loop_budget;
    v->status = VERDICT_TIME_LIMIT;
    if (!(v->loop = calloc(1, sizeof *v->loop))) {
        verdict_set_message(v, "A loop ran more than %u times.", limit);
        return;
    }
    *v->loop = (struct verdict_loop){
        .line = loop <= nloops ? loop_lines[loop - 1] : 0,
        .limit = limit,
        .half = cr->run->half,
        .hidden = !cr->visible,
        .i = cell % TASK_N,
        .plane = cell / TASK_N,
    };
    const struct verdict_loop *l = v->loop;
    char where[32] = "";
    if (l->line > 0)
        snprintf(where, sizeof where, " on line %d", l->line);
    verdict_set_message(v, "The loop%s ran more than %u times for output cell i = %d, plane %d "
                        "(half = %d, %s spectrum): every thread may take at most %u loop "
                        "iterations in all. Look for a loop whose condition never becomes "
                        "false; the butterfly needs no loop at all.",
                        where, l->limit, l->i, l->plane, l->half,
                        l->hidden ? "a hidden" : "the visible", l->limit);
    if (l->line > 0) {
        char msg[96];
        snprintf(msg, sizeof msg, "this loop ran more than %u times", l->limit);
        verdict_add_diagnostic(v, l->line, DIAG_ERROR, msg);
    }
}

/* Every half's visible cells and hidden tally, for the grid. */
static void fill_halves(struct verdict *v, const struct comparison *c)
{
    for (int h = 0; h < TASK_NHALVES; h++) {
        struct half_result *hr = &v->halves[h];
        const struct compared_run *vis = c->visible[h];
        hr->half = c->task->halves[h];
        hr->passed = c->half_passed[h];
        hr->hidden_passed = c->hidden_passed[h];
        hr->hidden_total = c->hidden_total[h];
        for (int p = 0; p < TASK_PLANES && vis; p++)
            for (int i = 0; i < TASK_N; i++)
                hr->cells[p][i] = (struct cell_result){ vis->expected[p][i],
                                                        vis->got[p * TASK_N + i],
                                                        vis->passed[p][i] };
    }
    v->halves_run = TASK_NHALVES;
}

static void wrong_answer_message(struct verdict *v)
{
    char halves[64] = "";
    size_t n = 0;
    int failed = 0;
    for (int h = 0; h < v->halves_run; h++) {
        if (v->halves[h].passed)
            continue;
        n += (size_t)snprintf(halves + n, sizeof halves - n, "%s%d",
                              failed ? ", " : "", v->halves[h].half);
        failed++;
    }
    if (failed == v->halves_run)
        verdict_set_message(v, "Wrong for every half (%s).", halves);
    else
        verdict_set_message(v, "Wrong for half = %s; the other halves are right.", halves);
}

void outcome_set(struct verdict *v, const struct comparison *c, const int *loop_lines,
                 size_t nloops)
{
    if (c->overrun) {
        loop_verdict(v, c, loop_lines, nloops);
        return;
    }
    fill_halves(v, c);
    if (c->all_passed) {
        v->status = VERDICT_ACCEPTED;
        verdict_set_message(v, "Every cell is right for half = 1, 2 and 4, on the visible and "
                               "the hidden spectra.");
    } else {
        v->status = VERDICT_WRONG_ANSWER;
        wrong_answer_message(v);
    }
}
