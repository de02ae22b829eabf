/* roster.c - a class roster for Canvas's gradebook (roster.h). */
#include "gradebook/roster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"
#include "gradebook/csv_write.h"
#include "gradebook/layout.h"
#include "gradebook/student_id.h"

static const char *const headers[ROSTER_COLUMNS] = {
    "Student", "ID", "SIS User ID", "SIS Login ID", "Section",
};

const char *gradebook_roster_column_to_str(enum gradebook_roster_column c)
{
    return c < ROSTER_COLUMNS ? headers[c] : "unknown";
}

const char *gradebook_roster_cell_problem(enum gradebook_roster_column c, const char *s,
                                          size_t len)
{
    const char *why = gradebook_text_problem(s, len);
    if (why)
        return why;
    switch (c) {
    case ROSTER_ID: case ROSTER_SIS_USER: case ROSTER_SIS_LOGIN:
        if (len > ROSTER_ID_MAX)
            return "is over " DEFAULTS_XSTR_(ROSTER_ID_MAX) " bytes (an id is at most "
                   DEFAULTS_XSTR_(ROSTER_ID_MAX) " bytes)";
        /* Canvas and Moodle match an id as it is: one guarded with an
         * apostrophe would match nobody, one left bare a spreadsheet runs */
        if (len && csv_is_formula(s))
            return "starts with = + - or @ and is not a number: a spreadsheet would run it "
                   "as a formula";
        return NULL;
    case ROSTER_STUDENT:
        if (len > ROSTER_NAME_MAX)
            return "is over " DEFAULTS_XSTR_(ROSTER_NAME_MAX) " bytes (a name is at most "
                   DEFAULTS_XSTR_(ROSTER_NAME_MAX) " bytes)";
        return NULL;
    default:
        return NULL;
    }
}

/* One entry's cell and its position, sorted by the cell, then the position. */
struct cell_at {
    const char *cell;
    size_t i;
};

static int compare_cell_at(const void *a, const void *b)
{
    const struct cell_at *x = a, *y = b;
    int d = strcmp(x->cell, y->cell);
    return d ? d : (x->i > y->i) - (x->i < y->i);
}

bool gradebook_roster_duplicate(const struct gradebook_roster *r, enum gradebook_roster_column c,
                                size_t *first, size_t *second, bool *oom)
{
    *oom = false;
    if (r->n < 2 || c >= ROSTER_COLUMNS)
        return false;
    struct cell_at *v = malloc(r->n * sizeof *v);
    if (!v) {
        *oom = true;
        return false;
    }
    for (size_t i = 0; i < r->n; i++)
        v[i] = (struct cell_at){ r->v[i].cell[c], i };
    qsort(v, r->n, sizeof *v, compare_cell_at);
    /* the first two of every run of equal cells; the pair reported is the
     * one whose second comes first in the file */
    bool found = false;
    for (size_t k = 1; k < r->n; k++) {
        if (!*v[k].cell || strcmp(v[k - 1].cell, v[k].cell)
            || (k > 1 && !strcmp(v[k - 2].cell, v[k].cell)))
            continue;
        if (!found || v[k].i < *second) {
            *first = v[k - 1].i;
            *second = v[k].i;
            found = true;
        }
    }
    free(v);
    return found;
}

bool gradebook_roster_add_student(struct gradebook_roster *r, const char *id, const char *name,
                                  bool verified, const char *section, const char *email)
{
    if (r->n == GRADEBOOK_ROSTER_MAX_ROWS)
        return false;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        struct gradebook_roster_entry *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return false;
        r->v = v;
        r->cap = cap;
    }
    struct gradebook_roster_entry e = { 0 };
    /* an open lab's name says who it may be: marked as unchecked */
    if (asprintf(&e.cell[ROSTER_STUDENT], "%s%s%s", name, verified ? "" : " ",
                 verified ? "" : GRADEBOOK_UNVERIFIED_MARK) < 0)
        e.cell[ROSTER_STUDENT] = NULL;
    e.cell[ROSTER_ID] = strdup(id);
    e.cell[ROSTER_SIS_USER] = strdup("");
    e.cell[ROSTER_SIS_LOGIN] = strdup("");
    e.cell[ROSTER_SECTION] = strdup(section);
    e.email = strdup(email);
    bool ok = e.email != NULL;
    for (int c = 0; c < ROSTER_COLUMNS; c++)
        ok &= e.cell[c] != NULL;
    if (!ok) {
        for (int c = 0; c < ROSTER_COLUMNS; c++)
            free(e.cell[c]);
        free(e.email);
        return false;
    }
    r->v[r->n++] = e;
    r->has[ROSTER_STUDENT] = r->has[ROSTER_ID] = r->has[ROSTER_SECTION] = true;
    r->has_email = true;
    return true;
}

void gradebook_roster_free(struct gradebook_roster *r)
{
    for (size_t i = 0; i < r->n; i++) {
        for (int c = 0; c < ROSTER_COLUMNS; c++)
            free(r->v[i].cell[c]);
        free(r->v[i].email);
    }
    free(r->v);
    memset(r, 0, sizeof *r);
}
