/*
 * store_pg_listen.c - PostgreSQL's LISTEN for the live class view
 * (store_class.h): a libpq connection of its own, apart from any struct
 * store, whose socket a thread polls; SQLite has none (one instance).
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"
#include "store/pg_wait.h"
#include "store/store_class.h"
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
