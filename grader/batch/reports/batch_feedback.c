/* batch_feedback.c - the feedback a student may read before publication. */
#include "batch/reports/batch_feedback.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/report.h"

bool batch_feedback_ran(const struct verdict *v)
{
    return v->status == VERDICT_ACCEPTED || v->status == VERDICT_WRONG_ANSWER;
}

/* The visible input's cells of one half (verdict v's grid): a grid, then
 * each wrong cell with the value expected and the value got. */
static void print_visible_half(FILE *out, const struct verdict *v, const struct half_result *h)
{
    int wrong = report_wrong_cells(v, h), cells = v->grid_n * v->grid_planes;
    if (wrong)
        fprintf(out, "\nhalf = %d: %d of %d cells are wrong\n", h->half, wrong, cells);
    else
        fprintf(out, "\nhalf = %d: all %d cells are right\n", h->half, cells);
    report_cells(out, v, h);
}

/* Compile errors, a refusal, a time limit: the verdict and its words. */
static void print_stopped(FILE *out, const struct verdict *v, bool refused)
{
    fprintf(out, "Verdict: %s\n", verdict_status_to_str(v->status));
    if (refused) {
        fprintf(out, "This submission was not graded: %s.\n", v->message ? v->message : "");
        return;
    }
    if (v->message)
        fprintf(out, "%s\n", v->message);
    if (v->ndiags > 0)
        fprintf(out, "\nDiagnostics (line numbers are those of your body):\n");
    for (size_t i = 0; i < v->ndiags; i++) {
        const struct diagnostic *d = &v->diags[i];
        fprintf(out, "  line %d: %s: %s\n", d->line,
                diag_severity_to_str(d->severity), d->message);
    }
    if (v->log_truncated)
        fprintf(out, "  (compiler log truncated)\n");
    fprintf(out, "\nNo test could run, so no points can be given.\n");
}

char *batch_feedback_visible(const struct batch_input *e, const struct verdict *v,
                             const struct score *sc, bool refused)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);
    if (!out)
        return NULL;
    fprintf(out, "Student: %s\n\n", e->id);
    if (refused || !batch_feedback_ran(v)) {
        print_stopped(out, v, refused);
    } else {
        int visible = 0, visible_max = 0, hidden_max = 0;
        for (int i = 0; i < sc->ntests; i++) {
            const struct score_test *t = &sc->tests[i];
            if (t->hidden) {
                hidden_max += t->max_score;
            } else {
                visible += t->score;
                visible_max += t->max_score;
            }
        }
        fprintf(out, "Your kernel on the visible spectrum (the one the exercise page shows):\n");
        for (int h = 0; h < v->halves_run && h < EX_MAX_SWEEP; h++)
            print_visible_half(out, v, &v->halves[h]);
        fprintf(out, "\nPoints from the visible spectrum: %d of %d.\n", visible, visible_max);
        fprintf(out, "Each half is also graded on %d hidden random spectra (%d points in all); "
                "those results and the total are shown when the grades are published.\n",
                score_exercise_of(v)->hidden, hidden_max);
    }
    if (fclose(out) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
