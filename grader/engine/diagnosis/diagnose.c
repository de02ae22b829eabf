/* diagnose.c - a Wrong Answer's outputs in words: the member of the family
 * that explains them, or where they fail; and the worked cells. */
#include "engine/diagnosis/diagnose.h"

#include <stdlib.h>

#include "engine/diagnosis/cues.h"
#include "engine/diagnosis/decompile.h"
#include "engine/diagnosis/describe.h"
#include "engine/diagnosis/literal.h"
#include "engine/diagnosis/solved.h"
#include "engine/diagnosis/summary.h"
#include "engine/diagnosis/worked.h"

/* The worked cell and every visible cell, worked through, each with its
 * sentence told in the diagnosis's step (d may be NULL). */
static void work_cells(struct verdict *v, const struct comparison *c, const struct diagnosis *d)
{
    struct worked_cell *one = malloc(sizeof *one);
    struct worked_cell *all = malloc(WORKED_CELLS * sizeof *all);
    const char *step = d ? d->step : NULL;
    if (one && worked_pick(c, step, one)) {
        free(v->worked_cell);
        v->worked_cell = one;
        one = NULL;
    }
    if (all && worked_all(c, step, all)) {
        free(v->worked_cells);
        v->worked_cells = all;
        all = NULL;
    }
    free(one);
    free(all);
}

void diagnose_verdict(struct verdict *v, const struct comparison *c, const char *body,
                      size_t len)
{
    const struct task *t = c->task;
    const struct gpu_run *runs = c->runs;
    size_t nruns = c->nruns;
    const float *out = c->out;
    struct failure_map m;
    if (!summary_map(c, &m))
        return;
    struct search_result *res = malloc(sizeof *res);
    struct diagnosis *d = NULL;
    char *compact = cues_compact(body, len);
    unsigned literal = literal_steps(compact);
    bool weak = true;   /* no formula of the family, or one on a line written right */
    if (res && search_outputs(t, runs, nruns, out, res)) {
        d = describe_member(c, res, compact);
        weak = !d || res->found[0].tables || literal_contradicts(literal, d->step);
    }
    free(compact);
    free(res);
    /* mistakes with no row in the family, proven on every cell */
    struct diagnosis *s = weak ? solved_structure(c) : NULL;
    if (s) {
        diagnosis_free(d);
        d = s;
    }
    /* no member with a formula: each value read back as one */
    struct cell_formula (*formulas)[TASK_PLANES][TASK_N] =
        d ? NULL : malloc(TASK_NHALVES * sizeof *formulas);
    if (formulas && decompile_outputs(t, runs, nruns, out, formulas))
        d = describe_formulas(c, formulas, literal);
    free(formulas);
    /* nothing named, or named on a line the student wrote as the recipe
     * does: the kernel's own twiddle, solved from the two planes */
    if ((!d || literal_contradicts(literal, d->step)) && !(literal & LITERAL_W)) {
        struct diagnosis *w = solved_twiddle(c, literal);
        if (w) {
            diagnosis_free(d);
            d = w;
        }
    }
    /* never a diagnosis that contradicts a line: the summary says where */
    if (d && literal_contradicts(literal, d->step)) {
        diagnosis_free(d);
        d = NULL;
    }
    work_cells(v, c, d);
    if (d) {
        diagnosis_free(v->diagnosis);
        v->diagnosis = d;
        free(v->summary);
        v->summary = NULL;
        return;
    }
    char *summary = summary_text(c);
    if (summary) {
        diagnosis_free(v->diagnosis);
        v->diagnosis = NULL;
        free(v->summary);
        v->summary = summary;
    }
}
