/* canvas.c - Canvas's gradebook import file (canvas.h). */
#include "gradebook/canvas.h"

#include <stdlib.h>
#include <string.h>

#include "gradebook/csv_write.h"

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The entry whose usable id is `id`, among n sorted by id; the first of
 * a duplicated id. NULL when there is none. */
static const struct gradebook_entry *find(const struct gradebook_entry *e, size_t n,
                                          const char *id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(e[mid].id, id) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n && !strcmp(e[lo].id, id); lo++)
        if (e[lo].usable)
            return &e[lo];
    return NULL;
}

/* How many roster rows' cells in column c name a student of the entries. */
static size_t count_matches(const struct gradebook_entry *e, size_t n,
                            const struct gradebook_roster *roster,
                            enum gradebook_roster_column c)
{
    size_t count = 0;
    for (size_t i = 0; i < roster->n; i++) {
        const char *id = roster->v[i].cell[c];
        count += id[0] && find(e, n, id) != NULL;
    }
    return count;
}

bool gradebook_canvas_write(FILE *f, const struct gradebook_entry *e, size_t n,
                            const struct gradebook_roster *roster, const char *assignment,
                            int points_possible, struct gradebook_result *res)
{
    static const enum gradebook_roster_column keys[] = {
        ROSTER_SIS_LOGIN, ROSTER_SIS_USER, ROSTER_ID,
    };
    memset(res, 0, sizeof *res);
    enum gradebook_roster_column key = ROSTER_COLUMNS;
    size_t best = 0;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        if (!roster->has[keys[k]])
            continue;
        size_t m = count_matches(e, n, roster, keys[k]);
        if (key == ROSTER_COLUMNS || m > best) {
            key = keys[k];
            best = m;
        }
    }
    res->matched_on = gradebook_roster_column_to_str(key);

    /* the header and Canvas's own second row, as its export writes them */
    char points[16];
    snprintf(points, sizeof points, "%d", points_possible);
    const char *header[ROSTER_COLUMNS + 1], *possible[ROSTER_COLUMNS + 1] = { 0 };
    for (int c = 0; c < ROSTER_COLUMNS; c++)
        header[c] = gradebook_roster_column_to_str((enum gradebook_roster_column)c);
    header[ROSTER_COLUMNS] = assignment;
    possible[ROSTER_STUDENT] = "    Points Possible";
    possible[ROSTER_COLUMNS] = points;
    csv_write_row(f, header, ROSTER_COLUMNS + 1, CSV_GUARD_ALL);
    csv_write_row(f, possible, ROSTER_COLUMNS + 1, CSV_GUARD_ALL);

    /* every cell guarded, the ids too: a roster read from a file has no id
     * that needs it (refused when read: Canvas matches ids exactly), and
     * the class view's comes from the store, checked on import; one from a
     * store older than the checks is written harmless */
    for (size_t i = 0; i < roster->n; i++) {
        const struct gradebook_roster_entry *r = &roster->v[i];
        const struct gradebook_entry *x = key < ROSTER_COLUMNS && r->cell[key][0]
                                              ? find(e, n, r->cell[key]) : NULL;
        char score[32] = "";
        if (x && x->gradable) {
            snprintf(score, sizeof score, "%.10g", x->score);
            res->with_points++;
        }
        const char *cells[ROSTER_COLUMNS + 1];
        for (int c = 0; c < ROSTER_COLUMNS; c++)
            cells[c] = r->cell[c];
        cells[ROSTER_COLUMNS] = score;
        csv_write_row(f, cells, ROSTER_COLUMNS + 1, CSV_GUARD_ALL);
        res->rows++;
    }

    /* the students Canvas will not hear of */
    const char **ids = key < ROSTER_COLUMNS && roster->n
                           ? malloc(roster->n * sizeof *ids) : NULL;
    if (key < ROSTER_COLUMNS && roster->n && !ids)
        return false;
    for (size_t i = 0; i < roster->n && ids; i++)
        ids[i] = roster->v[i].cell[key];
    if (ids)
        qsort(ids, roster->n, sizeof *ids, compare_strings);
    for (size_t i = 0; i < n; i++) {
        if (!e[i].gradable) {
            res->left_out++;
            continue;
        }
        if (i > 0 && !strcmp(e[i - 1].id, e[i].id))
            continue;
        const char *id = e[i].id;
        if (!ids || !bsearch(&id, ids, roster->n, sizeof *ids, compare_strings)) {
            res->not_in_roster++;
            gradebook_list_add(res->not_in_roster_list, sizeof res->not_in_roster_list, id);
        }
    }
    free(ids);
    return true;
}
