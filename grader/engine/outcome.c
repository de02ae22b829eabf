/* outcome.c - the verdict a grading's judged outputs earn, in words. */
#include "engine/outcome.h"

#include <stdio.h>
#include <stdlib.h>

#include "engine/diagnosis/diagnose.h"

/*
 * The butterfly's verdicts keep the words they have always had (its
 * golden verdicts); another exercise's say the same with its own names
 * for the parameter and the input.
 */
static bool is_butterfly(const struct exercise *e)
{
    return bf_shape_fits(e, NULL, 0);
}

/* Where the loop budget ran out, and the Time Limit Exceeded that says so:
 * the same on every device. */
static void loop_verdict(struct verdict *v, const struct comparison *c, const int *loop_lines,
                         size_t nloops)
{
    const struct exercise *e = c->ex;
    const struct compared_run *cr = c->overrun;
    int cell = c->overrun_cell;
    uint32_t loop = cr->loop[cell / e->out_n][cell % e->out_n];
    unsigned limit = e->loop_budget;
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
        .i = cell % e->out_n,
        .plane = cell / e->out_n,
    };
    const struct verdict_loop *l = v->loop;
    char where[32] = "";
    if (l->line > 0)
        snprintf(where, sizeof where, " on line %d", l->line);
    verdict_set_message(v, "The loop%s ran more than %u times for output cell i = %d, plane %d "
                        "(%s = %d, %s %s): every thread may take at most %u loop "
                        "iterations in all%s.",
                        where, l->limit, l->i, l->plane, e->param, l->half,
                        l->hidden ? "a hidden" : "the visible", e->input, l->limit,
                        is_butterfly(e) ? ", and the butterfly needs no loop at all" : "");
    if (l->line > 0) {
        char msg[96];
        snprintf(msg, sizeof msg, "this loop ran more than %u times", l->limit);
        verdict_add_diagnostic(v, l->line, DIAG_ERROR, msg);
    }
}

/* Every half's visible cells and hidden tally, for the grid. */
static void fill_halves(struct verdict *v, const struct comparison *c)
{
    const struct exercise *e = c->ex;
    for (size_t h = 0; h < e->nsweep; h++) {
        struct half_result *hr = &v->halves[h];
        const struct compared_run *vis = c->visible[h];
        hr->half = e->sweep[h];
        hr->passed = c->half_passed[h];
        hr->hidden_passed = c->hidden_passed[h];
        hr->hidden_total = c->hidden_total[h];
        for (int p = 0; p < e->out_planes && vis; p++)
            for (int i = 0; i < e->out_n; i++)
                hr->cells[p][i] = (struct cell_result){ vis->expected[p][i],
                                                        vis->got[p * e->out_n + i],
                                                        vis->passed[p][i] };
    }
    v->halves_run = (int)e->nsweep;
}

/* "1, 2 and 4": the values of the sweep, as a sentence lists them. */
static void sweep_list(const struct exercise *e, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t h = 0; h < e->nsweep && n < size; h++)
        n += (size_t)snprintf(out + n, size - n, "%s%d",
                              h == 0 ? "" : h + 1 == e->nsweep ? " and " : ", ", e->sweep[h]);
}

static void wrong_answer_message(struct verdict *v, const struct exercise *e)
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
    if (is_butterfly(e) && failed == v->halves_run)
        verdict_set_message(v, "Wrong for every half (%s).", halves);
    else if (is_butterfly(e))
        verdict_set_message(v, "Wrong for half = %s; the other halves are right.", halves);
    else if (failed == v->halves_run)
        verdict_set_message(v, "Wrong for every value of %s (%s).", e->param, halves);
    else
        verdict_set_message(v, "Wrong for %s = %s; the other values are right.", e->param,
                            halves);
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
        char values[64];
        sweep_list(c->ex, values, sizeof values);
        v->status = VERDICT_ACCEPTED;
        verdict_set_message(v, "Every cell is right for %s = %s, on the visible and the hidden "
                               "%s.", c->ex->param, values,
                            exercise_hidden_word(c->ex));
    } else {
        v->status = VERDICT_WRONG_ANSWER;
        wrong_answer_message(v, c->ex);
    }
}
