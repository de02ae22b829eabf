/*
 * store_class.c - the class's rows for the live class view
 * (store_class.h), one query for both backends; the listener, a libpq
 * connection of its own, is PostgreSQL's (store_pg_listen.c).
 */
#include "store/store_class.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"

/* The facts are columns (store_schema.c, version 3), written at insert:
 * one query for both backends, no verdict read. */
static const char rows_sql[] =
    "SELECT id, student, received_ms, graded_ms, status, points, max_points, "
    RECORD_SHOWN_COLUMNS ", late, task FROM records ORDER BY graded_ms, id";

/* rows_sql's columns after the halves (COL_HALF ..): late, then task */
enum { COL_HALF = 9, COL_LATE = COL_HALF + STORE_HALF_COLUMNS, COL_TASK, COLS };

struct rows {
    bool (*fn)(const struct store_class_row *r, void *arg);
    void *arg;
};

static bool text_of(const struct store_value *v, const char **out, size_t *len)
{
    if (v->type == SV_NULL) {
        *out = NULL;
        *len = 0;
        return true;
    }
    if (v->type != SV_TEXT && v->type != SV_BLOB)
        return false;
    *out = v->p;
    *len = v->len;
    return true;
}

/* Copies a column's text into out (VERDICT_FACTS_TEXT), cut at a
 * character's start when too long (a row migrated from an older store
 * may hold a longer one). */
static void shown_text(const struct store_value *v, char out[VERDICT_FACTS_TEXT])
{
    const char *p;
    size_t len;
    out[0] = '\0';
    if (!text_of(v, &p, &len) || !p)
        return;
    if (len >= VERDICT_FACTS_TEXT) {
        len = VERDICT_FACTS_TEXT - 1;
        while (len > 0 && ((unsigned char)p[len] & 0xc0) == 0x80)
            len--;
    }
    memcpy(out, p, len);
    out[len] = '\0';
}

static int8_t half_of(const struct store_value *v)
{
    return v->type == SV_INT && (v->i == 0 || v->i == 1) ? (int8_t)v->i : -1;
}

static bool class_row(const struct store_value *c, size_t n, void *arg)
{
    struct rows *w = arg;
    char id[STORE_ID_SIZE], student[STORE_MAX_TEXT + 1], task[STORE_MAX_TEXT + 1];
    const char *p;
    size_t len;
    if (n != COLS || !text_of(&c[0], &p, &len) || !p || len >= sizeof id)
        return true;   /* not a row of ours: skipped */
    memcpy(id, p, len);
    id[len] = '\0';
    struct store_class_row r = { .id = id, .received_ms = c[2].i, .graded_ms = c[3].i,
                                 .status = (int)c[4].i, .points = (int)c[5].i,
                                 .max_points = (int)c[6].i,
                                 .late = c[COL_LATE].type == SV_INT && c[COL_LATE].i != 0 };
    if (!text_of(&c[1], &p, &len) || len > STORE_MAX_TEXT)
        return true;
    if (p) {
        memcpy(student, p, len);
        student[len] = '\0';
        r.student = student;
    }
    if (!text_of(&c[COL_TASK], &p, &len) || len > STORE_MAX_TEXT)
        return true;
    if (p) {
        memcpy(task, p, len);
        task[len] = '\0';
        r.task = task;
    }
    shown_text(&c[7], r.shown.key);
    shown_text(&c[8], r.shown.label);
    /* a mark per sweep value (STORE_HALF_COLUMNS == EX_MAX_SWEEP) */
    for (int k = 0; k < STORE_HALF_COLUMNS; k++)
        r.shown.halves[k] = half_of(&c[COL_HALF + k]);
    return w->fn(&r, w->arg);
}

static enum store_status read_rows(struct store *s, void *arg, struct store_error *err)
{
    return s->ops->exec(s, rows_sql, false, NULL, 0, class_row, arg, NULL, err);
}

enum store_status store_class_rows(struct store *s,
                                   bool (*fn)(const struct store_class_row *r, void *arg),
                                   void *arg, struct store_error *err)
{
    if (!s)
        return store_fail(err, STORE_INVALID, "no store");
    struct rows w = { fn, arg };
    return store_in_read(s, read_rows, &w, err);
}
