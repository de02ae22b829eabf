/*
 * store_class.c - NOTIFY and LISTEN for the live class view
 * (store_class.h). The notice goes through the store's own query path,
 * so it is the same call on both backends; the listener is a libpq
 * connection of its own.
 */
#include "store/store_class.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"
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

enum store_status store_notify_record(struct store *s, const char *id, struct store_error *err)
{
    if (!s || !id || !id_shape(id))
        return store_fail(err, STORE_INVALID, "not a record id");
    if (s->kind != STORE_KIND_POSTGRES) {
        store_ok(err);
        return STORE_OK;
    }
    const struct store_value p[2] = { sv_text(STORE_CLASS_CHANNEL), sv_text(id) };
    enum store_status st = s->ops->connect(s, err);
    if (st != STORE_OK)
        return st;
    return s->ops->exec(s, "SELECT pg_notify(?1, ?2)", false, p, 2, NULL, NULL, NULL, err);
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
    PGresult *res = PQexec(l->conn, "LISTEN " STORE_CLASS_CHANNEL);
    bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
    PQclear(res);
    if (!ok)
        return listen_fail(l, "LISTEN", err);
    /* the socket is polled; reads must never wait */
    if (PQsetnonblocking(l->conn, 1) != 0)
        return listen_fail(l, "non-blocking", err);
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
