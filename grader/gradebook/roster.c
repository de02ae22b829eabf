/* roster.c - a class roster for Canvas's gradebook (roster.h). */
#include "gradebook/roster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gradebook/layout.h"

static const char *const headers[ROSTER_COLUMNS] = {
    "Student", "ID", "SIS User ID", "SIS Login ID", "Section",
};

const char *gradebook_roster_column_to_str(enum gradebook_roster_column c)
{
    return c < ROSTER_COLUMNS ? headers[c] : "unknown";
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
