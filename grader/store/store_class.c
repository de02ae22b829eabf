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

/* The facts as one JSON array per row: one parse of the verdict. */
static const char rows_sqlite[] =
    "SELECT id, student, received_ms, graded_ms, status, points, max_points, "
    "json_array(json_extract(v, '$.diagnosis.id'), json_extract(v, '$.diagnosis.title'), "
    "json_extract(v, '$.diagnostics[0].message'), json_extract(v, '$.halves[0].passed'), "
    "json_extract(v, '$.halves[1].passed'), json_extract(v, '$.halves[2].passed')) "
    "FROM (SELECT *, CAST(verdict AS TEXT) AS v FROM records) ORDER BY graded_ms, id";
static const char rows_pg[] =
    "SELECT id, student, received_ms, graded_ms, status, points, max_points, "
    "json_build_array(j #> '{diagnosis,id}', j #> '{diagnosis,title}', "
    "j #> '{diagnostics,0,message}', j #> '{halves,0,passed}', j #> '{halves,1,passed}', "
    "j #> '{halves,2,passed}')::text "
    "FROM records, LATERAL (SELECT convert_from(verdict, 'UTF8')::jsonb AS j) q "
    "ORDER BY graded_ms, id";

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

static bool class_row(const struct store_value *c, size_t n, void *arg)
{
    struct rows *w = arg;
    char id[STORE_ID_SIZE], student[STORE_MAX_TEXT + 1];
    const char *p;
    size_t len;
    if (n != 8 || !text_of(&c[0], &p, &len) || !p || len >= sizeof id)
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
    if (!text_of(&c[7], &r.facts, &r.facts_len))
        return true;
    return w->fn(&r, w->arg);
}

enum store_status store_class_rows(struct store *s,
                                   bool (*fn)(const struct store_class_row *r, void *arg),
                                   void *arg, struct store_error *err)
{
    if (!s)
        return store_fail(err, STORE_INVALID, "no store");
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct rows w = { fn, arg };
    st = s->ops->begin(s, false, err);
    if (st != STORE_OK)
        return st;
    st = s->ops->exec(s, s->kind == STORE_KIND_POSTGRES ? rows_pg : rows_sqlite, false, NULL, 0,
                      class_row, &w, NULL, err);
    if (st == STORE_OK)
        st = s->ops->commit(s, err);
    if (st != STORE_OK)
        s->ops->rollback(s);
    else
        store_ok(err);
    return st;
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
    if (!url || (strncmp(url, "postgresql://", 13) && strncmp(url, "postgres://", 11)))
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
