/*
 * store_class.c - LISTEN and the class's rows for the live class view
 * (store_class.h); the listener is a libpq connection of its own.
 */
#include "store/store_class.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"
#include "store/pg_wait.h"
#include "store/store_internal.h"

struct store_listener {
    char *url;
    PGconn *conn;
};

/* A record id: STORE_ID_SIZE - 1 lower-case hex digits. */
static bool id_shape(const char *id)
{
    size_t n = strlen(id);
    if (n != STORE_ID_SIZE - 1)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
            return false;
    return true;
}

/* The facts are columns (store_schema.c, version 3), written at insert:
 * one query for both backends, no verdict read. */
static const char rows_sql[] =
    "SELECT id, student, received_ms, graded_ms, status, points, max_points, "
    RECORD_SHOWN_COLUMNS " FROM records ORDER BY graded_ms, id";

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
    char id[STORE_ID_SIZE], student[STORE_MAX_TEXT + 1];
    const char *p;
    size_t len;
    if (n != 12 || !text_of(&c[0], &p, &len) || !p || len >= sizeof id)
        return true;   /* not a row of ours: skipped */
    memcpy(id, p, len);
    id[len] = '\0';
    struct store_class_row r = { .id = id, .received_ms = c[2].i, .graded_ms = c[3].i,
                                 .status = (int)c[4].i, .points = (int)c[5].i,
                                 .max_points = (int)c[6].i };
    if (!text_of(&c[1], &p, &len) || len > STORE_MAX_TEXT)
        return true;
    if (p) {
        memcpy(student, p, len);
        student[len] = '\0';
        r.student = student;
    }
    shown_text(&c[7], r.shown.key);
    shown_text(&c[8], r.shown.label);
    for (int k = 0; k < TASK_NHALVES; k++)
        r.shown.halves[k] = half_of(&c[9 + k]);
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

static enum store_status listen_fail(struct store_listener *l, const char *what,
                                     struct store_error *err)
{
    enum store_status st = store_fail(err, STORE_UNAVAILABLE, "PostgreSQL listener: %s: %s",
                                      what, l->conn ? PQerrorMessage(l->conn) : "no connection");
    if (l->conn)
        PQfinish(l->conn);
    l->conn = NULL;
    return st;
}

enum store_status store_listener_reconnect(struct store_listener *l, struct store_error *err)
{
    char timeout[16];
    snprintf(timeout, sizeof timeout, "%u", DEFAULT_STORE_CONNECT_S);
    if (l->conn)
        PQfinish(l->conn);
    const char *const keys[] = { "connect_timeout", "keepalives", "keepalives_idle",
                                 "keepalives_interval", "keepalives_count",
                                 "application_name", "dbname", NULL };
    const char *const vals[] = { timeout, "1", "10", "5", "3", "butterfly-grader-listen",
                                 l->url, NULL };
    l->conn = PQconnectdbParams(keys, vals, 1);
    if (!l->conn || PQstatus(l->conn) != CONNECTION_OK)
        return listen_fail(l, "connect", err);
    /* the socket is polled; reads must never wait, nor LISTEN's answer
     * longer than any of the store's (pg_wait.h) */
    if (PQsetnonblocking(l->conn, 1) != 0)
        return listen_fail(l, "non-blocking", err);
    bool late;
    PGresult *res = pg_wait_exec(l->conn, "LISTEN " STORE_CLASS_CHANNEL, STORE_PG_ANSWER_MS, &late);
    bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
    PQclear(res);
    if (!ok)
        return listen_fail(l, late ? "LISTEN (no answer)" : "LISTEN", err);
    store_ok(err);
    return STORE_OK;
}

enum store_status store_listener_open(const char *url, struct store_listener **out,
                                      struct store_error *err)
{
    *out = NULL;
    if (store_kind_of_url(url) != STORE_KIND_POSTGRES)
        return store_fail(err, STORE_UNSUPPORTED, "only PostgreSQL has listeners");
    struct store_listener *l = calloc(1, sizeof *l);
    if (!l || !(l->url = strdup(url))) {
        free(l);
        return store_fail(err, STORE_NO_MEMORY, "out of memory");
    }
    enum store_status st = store_listener_reconnect(l, err);
    if (st != STORE_OK) {
        store_listener_close(l);
        return st;
    }
    *out = l;
    return STORE_OK;
}

int store_listener_fd(const struct store_listener *l)
{
    return l && l->conn ? PQsocket(l->conn) : -1;
}

enum store_status store_listener_drain(struct store_listener *l,
                                       void (*fn)(const char *id, void *arg), void *arg,
                                       struct store_error *err)
{
    if (!l->conn)
        return store_fail(err, STORE_UNAVAILABLE, "PostgreSQL listener: no connection");
    if (!PQconsumeInput(l->conn) || PQstatus(l->conn) != CONNECTION_OK)
        return listen_fail(l, "read", err);
    PGnotify *n;
    while ((n = PQnotifies(l->conn))) {
        if (n->relname && !strcmp(n->relname, STORE_CLASS_CHANNEL) && n->extra &&
            id_shape(n->extra))
            fn(n->extra, arg);
        PQfreemem(n);
    }
    store_ok(err);
    return STORE_OK;
}

void store_listener_close(struct store_listener *l)
{
    if (!l)
        return;
    if (l->conn)
        PQfinish(l->conn);
    free(l->url);
    free(l);
}
