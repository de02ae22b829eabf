/* diagnose.c - a Wrong Answer's outputs in words: the member of the family
 * that explains them, or where they fail; and the worked cells. */
#include "engine/diagnosis/diagnose.h"

#include <stdlib.h>

#include "engine/diagnosis/decompile.h"
#include "engine/diagnosis/describe.h"
#include "engine/diagnosis/summary.h"
#include "engine/diagnosis/worked.h"

/* The worked cell and every visible cell, worked through. */
static void work_cells(struct verdict *v, const struct task *t, const struct gpu_run *runs,
                       size_t nruns, const float *out)
{
    struct worked_cell *one = malloc(sizeof *one);
    struct worked_cell *all = malloc(WORKED_CELLS * sizeof *all);
    if (one && worked_pick(t, runs, nruns, out, one)) {
        free(v->worked_cell);
        v->worked_cell = one;
        one = NULL;
    }
    if (all && worked_all(t, runs, nruns, out, all)) {
        free(v->worked_cells);
        v->worked_cells = all;
        all = NULL;
    }
    free(one);
    free(all);
}

void diagnose_verdict(struct verdict *v, const struct task *t,
                      const struct gpu_run *runs, size_t nruns, const float *out)
{
    struct failure_map m;
    if (!summary_map(t, runs, nruns, out, &m))
        return;
    work_cells(v, t, runs, nruns, out);
    struct search_result *res = malloc(sizeof *res);
    struct diagnosis *d = NULL;
    if (res && search_outputs(t, runs, nruns, out, res))
        d = describe_member(t, runs, nruns, out, res);
    free(res);
    /* no member with a formula: each value read back as one */
    struct cell_formula (*formulas)[TASK_PLANES][TASK_N] =
        d ? NULL : malloc(TASK_NHALVES * sizeof *formulas);
    if (formulas && decompile_outputs(t, runs, nruns, out, formulas))
        d = describe_formulas(t, runs, nruns, out, formulas);
    free(formulas);
    if (d) {
        diagnosis_free(v->diagnosis);
        v->diagnosis = d;
        free(v->summary);
        v->summary = NULL;
        return;
    }
    char *summary = summary_text(t, runs, nruns, out);
    if (summary) {
        diagnosis_free(v->diagnosis);
        v->diagnosis = NULL;
        free(v->summary);
        v->summary = summary;
    }
}
