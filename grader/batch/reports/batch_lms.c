/* batch_lms.c - Canvas's and Moodle's gradebooks. */
#include "batch/reports/batch_lms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/input/batch_input_db.h"
#include "batch/input/csv.h"
#include "gradebook/moodle.h"

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* How many roster rows' cells in column c name a student of the batch. */
static size_t count_matches(const struct batch_row *rows, size_t n,
                            const struct batch_roster *roster, enum batch_roster_column c)
{
    size_t count = 0;
    for (size_t i = 0; i < roster->n; i++) {
        const char *id = roster->v[i].cell[c];
        count += id[0] && batch_rows_find(rows, n, id) != NULL;
    }
    return count;
}

/* Appends id to the list of a message, while it has room. */
static void list_add(char *list, size_t size, const char *id)
{
    size_t len = strlen(list);
    if (len + strlen(id) + 8 >= size) {
        if (len + 5 < size && !strstr(list, ", ..."))
            strcat(list, ", ...");
        return;
    }
    if (len)
        strcat(list, ", ");
    strcat(list, id);
}

bool batch_lms_write_canvas(FILE *f, const struct batch_row *rows, size_t n,
                            const struct batch_roster *roster, const char *assignment,
                            struct batch_lms_result *res)
{
    static const enum batch_roster_column keys[] = {
        ROSTER_SIS_LOGIN, ROSTER_SIS_USER, ROSTER_ID,
    };
    memset(res, 0, sizeof *res);
    enum batch_roster_column key = ROSTER_COLUMNS;
    size_t best = 0;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        if (!roster->has[keys[k]])
            continue;
        size_t m = count_matches(rows, n, roster, keys[k]);
        if (key == ROSTER_COLUMNS || m > best) {
            key = keys[k];
            best = m;
        }
    }
    res->matched_on = batch_roster_column_to_str(key);

    /* the header and Canvas's own second row, as its export writes them */
    char points[16];
    snprintf(points, sizeof points, "%d", SCORE_MAX);
    const char *header[ROSTER_COLUMNS + 1], *possible[ROSTER_COLUMNS + 1] = { 0 };
    for (int c = 0; c < ROSTER_COLUMNS; c++)
        header[c] = batch_roster_column_to_str((enum batch_roster_column)c);
    header[ROSTER_COLUMNS] = assignment;
    possible[ROSTER_STUDENT] = "    Points Possible";
    possible[ROSTER_COLUMNS] = points;
    csv_write_row(f, header, ROSTER_COLUMNS + 1, 0);
    csv_write_row(f, possible, ROSTER_COLUMNS + 1, 0);

    /* names and sections are display text; the ids are Canvas's keys */
    const unsigned long display = 1ul << ROSTER_STUDENT | 1ul << ROSTER_SECTION;
    for (size_t i = 0; i < roster->n; i++) {
        const struct batch_roster_entry *e = &roster->v[i];
        const struct batch_row *row = key < ROSTER_COLUMNS && e->cell[key][0]
                                          ? batch_rows_find(rows, n, e->cell[key]) : NULL;
        char score[16] = "";
        if (row && row->grade) {
            snprintf(score, sizeof score, "%d", row->score);
            res->with_points++;
        }
        const char *cells[ROSTER_COLUMNS + 1];
        for (int c = 0; c < ROSTER_COLUMNS; c++)
            cells[c] = e->cell[c];
        cells[ROSTER_COLUMNS] = score;
        csv_write_row(f, cells, ROSTER_COLUMNS + 1, display);
        res->rows++;
    }

    /* the batch's students Canvas will not hear of */
    const char **ids = key < ROSTER_COLUMNS && roster->n
                           ? malloc(roster->n * sizeof *ids) : NULL;
    if (key < ROSTER_COLUMNS && roster->n && !ids)
        return false;
    for (size_t i = 0; i < roster->n && ids; i++)
        ids[i] = roster->v[i].cell[key];
    if (ids)
        qsort(ids, roster->n, sizeof *ids, compare_strings);
    for (size_t i = 0; i < n; i++) {
        const struct batch_row *row = &rows[i];
        if (!row->grade || !row->e->id_ok) {
            res->left_out++;
            continue;
        }
        if (i > 0 && !strcmp(rows[i - 1].e->id, row->e->id))
            continue;
        const char *id = row->e->id;
        if (!ids || !bsearch(&id, ids, roster->n, sizeof *ids, compare_strings)) {
            res->not_in_roster++;
            list_add(res->not_in_roster_list, sizeof res->not_in_roster_list, id);
        }
    }
    free(ids);
    return true;
}

void batch_lms_write_moodle(FILE *f, const struct batch_row *rows, size_t n,
                            struct batch_lms_result *res)
{
    memset(res, 0, sizeof *res);
    gradebook_moodle_header(f);
    for (size_t i = 0; i < n; i++) {
        const struct batch_row *row = &rows[i];
        const struct batch_stored *st = row->e->stored;
        const struct gradebook_entry e = {
            .id = row->e->id, .gradable = row->grade && row->e->id_ok, .score = row->score,
            .feedback = row->feedback, .unverified_name = st && st->unverified ? st->name : NULL,
        };
        if (gradebook_moodle_row(f, &e)) {
            res->rows++;
            res->with_points++;
        } else {
            res->left_out++;
        }
    }
}
