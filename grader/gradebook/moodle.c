/* moodle.c - Moodle's grade import file (moodle.h). */
#include "gradebook/moodle.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gradebook/csv_write.h"
#include "gradebook/layout.h"

/* Writes e's row when it is gradable; returns whether it did. */
static bool moodle_row(FILE *f, const struct gradebook_entry *e)
{
    if (!e->gradable)
        return false;
    char score[16];
    snprintf(score, sizeof score, "%d", e->score);
    /* an open lab's name says who it may be: marked as unchecked */
    char *marked = NULL;
    if (e->unverified_name
        && asprintf(&marked, "%s " GRADEBOOK_UNVERIFIED_MARK ". %s", e->unverified_name,
                    e->feedback) < 0)
        marked = NULL;
    const char *cells[3] = { e->id, score, marked ? marked : e->feedback };
    csv_write_row(f, cells, 3, 1ul << 2);   /* the feedback is display text */
    free(marked);
    return true;
}

void gradebook_moodle_write(FILE *f, const struct gradebook_entry *e, size_t n,
                            struct gradebook_result *res)
{
    static const char *const header[] = { "Identifier", "Grade", "Feedback" };
    memset(res, 0, sizeof *res);
    csv_write_row(f, header, 3, 0);
    for (size_t i = 0; i < n; i++) {
        if (moodle_row(f, &e[i])) {
            res->rows++;
            res->with_points++;
        } else {
            res->left_out++;
        }
    }
}
