/* diagnose.c - a Wrong Answer's outputs in words: the member of the family
 * that explains them, or where they fail; and the worked cells. */
#include "engine/diagnosis/diagnose.h"

#include <stdlib.h>

#include "engine/diagnosis/decompile.h"
#include "engine/diagnosis/describe.h"
#include "engine/diagnosis/summary.h"
#include "engine/diagnosis/worked.h"

/* The worked cell and every visible cell, worked through. */
static void work_cells(struct verdict *v, const struct comparison *c)
{
    struct worked_cell *one = malloc(sizeof *one);
    struct worked_cell *all = malloc(WORKED_CELLS * sizeof *all);
    if (one && worked_pick(c, one)) {
        free(v->worked_cell);
        v->worked_cell = one;
        one = NULL;
    }
    if (all && worked_all(c, all)) {
        free(v->worked_cells);
        v->worked_cells = all;
        all = NULL;
    }
    free(one);
    free(all);
}

void diagnose_verdict(struct verdict *v, const struct comparison *c)
{
    const struct task *t = c->task;
    const struct gpu_run *runs = c->runs;
    size_t nruns = c->nruns;
    const float *out = c->out;
    struct failure_map m;
    if (!summary_map(c, &m))
        return;
    work_cells(v, c);
    struct search_result *res = malloc(sizeof *res);
    struct diagnosis *d = NULL;
    if (res && search_outputs(t, runs, nruns, out, res))
        d = describe_member(c, res);
    free(res);
    /* no member with a formula: each value read back as one */
    struct cell_formula (*formulas)[TASK_PLANES][TASK_N] =
        d ? NULL : malloc(TASK_NHALVES * sizeof *formulas);
    if (formulas && decompile_outputs(t, runs, nruns, out, formulas))
        d = describe_formulas(c, formulas);
    free(formulas);
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
