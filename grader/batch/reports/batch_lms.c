/* batch_lms.c - the learning systems' gradebooks of the batch's rows (batch_lms.h). */
#include "batch/reports/batch_lms.h"

#include <stdlib.h>
#include <string.h>

#include "gradebook/canvas.h"
#include "gradebook/moodle.h"

struct gradebook_entry *batch_lms_entries(const struct batch_row *rows, size_t n)
{
    struct gradebook_entry *e = calloc(n ? n : 1, sizeof *e);
    for (size_t i = 0; e && i < n; i++) {
        const struct batch_row *row = &rows[i];
        const struct batch_stored *st = row->e->stored;
        e[i] = (struct gradebook_entry){
            .id = row->e->id, .usable = row->e->id_ok, .gradable = row->grade && row->e->id_ok,
            .score = row->lms_score, .feedback = row->feedback,
            .unverified_name = st && st->unverified ? st->name : NULL,
        };
    }
    return e;
}

bool batch_lms_write(FILE *f, enum gradebook_layout l, const struct batch_row *rows, size_t n,
                     const struct gradebook_roster *roster, const char *assignment,
                     int points, struct gradebook_result *res)
{
    memset(res, 0, sizeof *res);
    struct gradebook_entry *e = batch_lms_entries(rows, n);
    if (!e)
        return false;
    bool ok = true;
    if (l == GRADEBOOK_LAYOUT_CANVAS)
        ok = gradebook_canvas_write(f, e, n, roster, assignment, points, res);
    else if (l == GRADEBOOK_LAYOUT_MOODLE)
        gradebook_moodle_write(f, e, n, res);
    free(e);
    return ok;
}

void batch_lms_warn(const struct gradebook_result *res)
{
    if (res->not_in_roster)
        fprintf(stderr, "butterfly-batch: %zu graded ids are not in the roster, so Canvas gets "
                "no points for them: %s\n", res->not_in_roster, res->not_in_roster_list);
    if (res->formula_ids)
        fprintf(stderr, "butterfly-batch: %zu graded ids are left out of Moodle's file: a "
                "spreadsheet would run them as formulas, and Moodle matches an id exactly, so a "
                "guarded one would match nobody: %s\n", res->formula_ids, res->formula_list);
}
