/* batch_row.c - gradebook rows for the outputs written after grading. */
#include "batch/reports/batch_row.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gradebook/feedback.h"

bool batch_row_fill(struct batch_row *row, const struct batch_input *e, const struct verdict *v,
                    const struct score *sc, bool last, const struct late_policy *lp)
{
    char line[GRADEBOOK_FEEDBACK_MAX];
    gradebook_feedback(v, sc, line);
    *row = (struct batch_row){
        .e = e, .status = v->status, .score = sc->score, .max_score = sc->max_score,
        .halves_passed = sc->halves_passed, .hidden_passed = sc->hidden_passed,
        .grade = v->status != VERDICT_INTERNAL_ERROR && !e->duplicate,
        .lms_score = gradebook_late_score(sc->score, last, e->stored ? &e->stored->late : NULL,
                                          lp),
    };
    row->feedback = strdup(line);
    if (v->diagnosis && v->diagnosis->title)
        row->mistake = strdup(v->diagnosis->title);
    if (!row->feedback || (v->diagnosis && v->diagnosis->title && !row->mistake)) {
        batch_row_clear(row);
        return false;
    }
    return true;
}

void batch_row_clear(struct batch_row *row)
{
    free(row->mistake);
    free(row->feedback);
    row->mistake = row->feedback = NULL;
}

void batch_rows_free(struct batch_row *rows, size_t n)
{
    if (!rows)
        return;
    for (size_t i = 0; i < n; i++)
        batch_row_clear(&rows[i]);
    free(rows);
}
