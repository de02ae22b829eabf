/* moodle.c - Moodle's grade import file (moodle.h). */
#include "gradebook/moodle.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gradebook/csv_write.h"
#include "gradebook/layout.h"

/* Writes e's row when it is gradable; returns whether it did. */
static bool moodle_row(FILE *f, const struct gradebook_entry *e, struct gradebook_result *res)
{
    if (!e->gradable)
        return false;
    /* bare, a spreadsheet runs it; guarded, Moodle matches it to nobody
     * (its import compares the Identifier exactly with the user field) */
    if (csv_is_formula(e->id)) {
        res->formula_ids++;
        gradebook_list_add(res->formula_list, sizeof res->formula_list, e->id);
        return false;
    }
    char score[32];
    snprintf(score, sizeof score, "%.10g", e->score);
    /* an open lab's name says who it may be: marked as unchecked */
    char *marked = NULL;
    if (e->unverified_name
        && asprintf(&marked, "%s " GRADEBOOK_UNVERIFIED_MARK ". %s", e->unverified_name,
                    e->feedback) < 0)
        marked = NULL;
    const char *cells[3] = { e->id, score, marked ? marked : e->feedback };
    /* every cell guarded, the id too (none of the ids left needs it) */
    csv_write_row(f, cells, 3, CSV_GUARD_ALL);
    free(marked);
    return true;
}

void gradebook_moodle_write(FILE *f, const struct gradebook_entry *e, size_t n,
                            struct gradebook_result *res)
{
    static const char *const header[] = { "Identifier", "Grade", "Feedback" };
    memset(res, 0, sizeof *res);
    csv_write_row(f, header, 3, CSV_GUARD_ALL);
    for (size_t i = 0; i < n; i++) {
        if (moodle_row(f, &e[i], res)) {
            res->rows++;
            res->with_points++;
        } else {
            res->left_out++;
        }
    }
}
