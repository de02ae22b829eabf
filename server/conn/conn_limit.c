/* conn_limit.c - the slots of the open connections, and the header deadline's thread. */
#include "server/conn/conn_limit.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/clock.h"
#include "common/defaults.h"

struct conn_slot {
    bool used;
    int fd;
    struct client_id peer;         /* the client the connection counts for */
    bool proxy;                    /* from a trusted proxy: counted per request instead */
    bool counted;                  /* peer counts against per_client */
    bool forwarded;                /* a request through the proxy counts against fwd */
    struct client_id fwd;
    bool over;                     /* let in past max_connections: answered 503 */
    bool closing;                  /* shut down here, libmicrohttpd not done yet */
    bool waiting;                  /* in the list of those waiting for a header */
    double since_ms;               /* waiting since */
    struct conn_slot *prev, *next; /* the waiting list, oldest first; next: the free list */
};

struct conn_limit {
    struct conn_limit_options o;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    bool stop;
    struct conn_slot *slots;
    size_t cap;
    struct conn_slot *free;        /* unused slots, through next */
    struct conn_slot *head, *tail; /* waiting for a header, oldest first */
    size_t open, closing;          /* by the lock */
    struct conn_limit_stats st;    /* the counters; open and waiting kept as they change */
};

const char *conn_limit_verdict_to_str(enum conn_verdict v)
{
    switch (v) {
    case CONN_OK: return "ok";
    case CONN_BUSY: return "busy";
    case CONN_CLIENT_FULL: return "client_full";
    }
    return "unknown";
}

/* Takes c out of the list of those waiting for a header. Lock held. */
static void unlink_waiting(struct conn_limit *l, struct conn_slot *c)
{
    if (!c->waiting)
        return;
    if (c->prev)
        c->prev->next = c->next;
    else
        l->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    else
        l->tail = c->prev;
    c->prev = c->next = NULL;
    c->waiting = false;
    l->st.waiting--;
}

/* Appends c: it waits from now, the latest of all, so the list stays in
 * the order of the wait's start. Lock held. */
static void start_waiting(struct conn_limit *l, struct conn_slot *c, double now)
{
    c->since_ms = now;
    c->waiting = true;
    c->next = NULL;
    c->prev = l->tail;
    if (l->tail)
        l->tail->next = c;
    else
        l->head = c;
    l->tail = c;
    l->st.waiting++;
}

/* Shuts c's socket down (libmicrohttpd reads its end next and closes
 * it); c stays open here until conn_limit_closed. Lock held. */
static void close_slot(struct conn_limit *l, struct conn_slot *c, uint64_t *counter)
{
    unlink_waiting(l, c);
    if (c->closing)
        return;
    if (c->fd >= 0)
        shutdown(c->fd, SHUT_RDWR);
    c->closing = true;
    l->closing++;
    (*counter)++;
}

/* Connections and requests that count against client. Lock held. A
 * scan: the slots are a few hundred, and it runs once per connection or
 * proxied request. */
static unsigned count_for(const struct conn_limit *l, const struct client_id *client)
{
    unsigned n = 0;
    for (size_t i = 0; i < l->cap; i++) {
        const struct conn_slot *c = &l->slots[i];
        if (!c->used)
            continue;
        if (c->counted && client_id_equal(&c->peer, client))
            n++;
        if (c->forwarded && client_id_equal(&c->fwd, client))
            n++;
    }
    return n;
}

/* The client of a peer at sa (as the fair queue keys it), and whether the
 * peer is a trusted proxy. False when sa is no IP address. */
static bool peer_of(const struct conn_limit *l, const struct sockaddr *sa, struct client_id *key,
                    bool *proxy)
{
    struct client_id whole;
    if (!client_addr_from_sockaddr(sa, &whole)) {
        client_id_local(key);
        *proxy = false;
        return false;
    }
    *proxy = client_addr_proxies_contain(&l->o.rules->proxies, &whole);
    client_addr_resolve(&whole, NULL, l->o.rules, key);
    return true;
}

static void *run(void *arg)
{
    struct conn_limit *l = arg;
    pthread_mutex_lock(&l->lock);
    while (!l->stop) {
        struct timespec at = clock_after_ms(HEADER_DEADLINE_CHECK_MS);
        pthread_cond_timedwait(&l->wake, &l->lock, &at);
        pthread_mutex_unlock(&l->lock);
        conn_limit_expire(l, l->o.now_ms());
        pthread_mutex_lock(&l->lock);
    }
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

struct conn_limit *conn_limit_new(const struct conn_limit_options *o, char *err, size_t errsz)
{
    struct conn_limit *l = calloc(1, sizeof *l);
    if (!l)
        goto oom;
    l->o = *o;
    if (!l->o.now_ms)
        l->o.now_ms = clock_now_ms;
    l->cap = (size_t)o->max_connections + CONNECTION_SPARE;
    l->slots = calloc(l->cap, sizeof *l->slots);
    if (!l->slots)
        goto oom;
    for (size_t i = l->cap; i-- > 0;) {
        l->slots[i].next = l->free;
        l->free = &l->slots[i];
    }
    pthread_mutex_init(&l->lock, NULL);
    if (clock_cond_init(&l->wake) != 0) {
        snprintf(err, errsz, "cannot start the connection bookkeeping");
        pthread_mutex_destroy(&l->lock);
        goto fail;
    }
    if (pthread_create(&l->thread, NULL, run, l) != 0) {
        snprintf(err, errsz, "cannot start the header deadline's thread");
        pthread_cond_destroy(&l->wake);
        pthread_mutex_destroy(&l->lock);
        goto fail;
    }
    return l;
oom:
    snprintf(err, errsz, "out of memory");
fail:
    if (l)
        free(l->slots);
    free(l);
    return NULL;
}

unsigned conn_limit_capacity(const struct conn_limit *l)
{
    return (unsigned)l->cap;
}

bool conn_limit_admit(struct conn_limit *l, const struct sockaddr *sa)
{
    struct client_id key;
    bool proxy, ok = true;
    bool known = peer_of(l, sa, &key, &proxy);
    pthread_mutex_lock(&l->lock);
    if (known && !proxy && l->o.per_client && count_for(l, &key) >= l->o.per_client) {
        l->st.refused_client++;
        ok = false;
        goto out;
    }
    if (l->open >= l->cap) {
        /* the spare too: those closed already are still open in
         * libmicrohttpd for a moment */
        l->st.refused_full++;
        ok = false;
        goto out;
    }
    if (l->open - l->closing >= l->o.max_connections && l->head)
        close_slot(l, l->head, &l->st.closed_for_room);
out:
    pthread_mutex_unlock(&l->lock);
    return ok;
}

struct conn_slot *conn_limit_opened(struct conn_limit *l, int fd, const struct sockaddr *sa)
{
    struct client_id key;
    bool proxy;
    bool known = peer_of(l, sa, &key, &proxy);
    double now = l->o.now_ms();
    pthread_mutex_lock(&l->lock);
    struct conn_slot *c = l->free;
    if (c) {
        l->free = c->next;
        *c = (struct conn_slot){ .used = true, .fd = fd, .peer = key, .proxy = proxy,
                                 .counted = known && !proxy };
        l->open++;
        l->st.open = l->open;
        c->over = l->open - l->closing > l->o.max_connections;
        start_waiting(l, c, now);
    }
    pthread_mutex_unlock(&l->lock);
    return c;
}

void conn_limit_closed(struct conn_limit *l, struct conn_slot *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&l->lock);
    unlink_waiting(l, c);
    if (c->closing)
        l->closing--;
    l->open--;
    l->st.open = l->open;
    *c = (struct conn_slot){ .fd = -1, .next = l->free };
    l->free = c;
    pthread_mutex_unlock(&l->lock);
}

enum conn_verdict conn_limit_headers(struct conn_limit *l, struct conn_slot *c,
                                     const struct client_id *client)
{
    enum conn_verdict v = CONN_OK;
    if (!c)
        return CONN_OK;
    pthread_mutex_lock(&l->lock);
    unlink_waiting(l, c);
    if (c->over) {
        l->st.answered_busy++;
        v = CONN_BUSY;
    } else if (c->proxy && l->o.per_client && !c->forwarded) {
        if (count_for(l, client) >= l->o.per_client) {
            l->st.answered_client_full++;
            v = CONN_CLIENT_FULL;
        } else {
            c->fwd = *client;
            c->forwarded = true;
        }
    }
    pthread_mutex_unlock(&l->lock);
    return v;
}

void conn_limit_request_done(struct conn_limit *l, struct conn_slot *c)
{
    if (!c)
        return;
    double now = l->o.now_ms();
    pthread_mutex_lock(&l->lock);
    c->forwarded = false;
    if (!c->closing && !c->waiting)
        start_waiting(l, c, now);
    pthread_mutex_unlock(&l->lock);
}

void conn_limit_expire(struct conn_limit *l, double now_ms)
{
    if (!l->o.header_deadline_ms)
        return;
    double before = now_ms - l->o.header_deadline_ms;
    pthread_mutex_lock(&l->lock);
    /* oldest first: the walk ends at the first that is in time; a proxy's
     * are passed over (libmicrohttpd's idle timeout still closes them) */
    struct conn_slot *c = l->head;
    while (c && c->since_ms <= before) {
        struct conn_slot *next = c->next;
        if (!c->proxy)
            close_slot(l, c, &l->st.closed_deadline);
        c = next;
    }
    pthread_mutex_unlock(&l->lock);
}

void conn_limit_get_stats(struct conn_limit *l, struct conn_limit_stats *st)
{
    pthread_mutex_lock(&l->lock);
    *st = l->st;
    pthread_mutex_unlock(&l->lock);
}

void conn_limit_render_metrics(struct conn_limit *l, FILE *f)
{
    struct conn_limit_stats st;
    conn_limit_get_stats(l, &st);
    fprintf(f, "# HELP butterfly_connections_open HTTP connections open.\n"
               "# TYPE butterfly_connections_open gauge\n"
               "butterfly_connections_open %llu\n"
               "# HELP butterfly_connections_waiting_header Of them, waiting for a request's "
               "header.\n# TYPE butterfly_connections_waiting_header gauge\n"
               "butterfly_connections_waiting_header %llu\n",
            (unsigned long long)st.open, (unsigned long long)st.waiting);
    fprintf(f, "# HELP butterfly_connections_closed_total Connections closed by the server: "
               "no whole header within the deadline, or the longest wait for one when every "
               "slot was taken.\n# TYPE butterfly_connections_closed_total counter\n"
               "butterfly_connections_closed_total{reason=\"header_deadline\"} %llu\n"
               "butterfly_connections_closed_total{reason=\"room\"} %llu\n",
            (unsigned long long)st.closed_deadline, (unsigned long long)st.closed_for_room);
    fprintf(f, "# HELP butterfly_connections_refused_total Connections refused at accept "
               "(per_client, full) or answered 503 (busy) or 429 (forwarded_client).\n"
               "# TYPE butterfly_connections_refused_total counter\n"
               "butterfly_connections_refused_total{reason=\"per_client\"} %llu\n"
               "butterfly_connections_refused_total{reason=\"full\"} %llu\n"
               "butterfly_connections_refused_total{reason=\"busy\"} %llu\n"
               "butterfly_connections_refused_total{reason=\"forwarded_client\"} %llu\n",
            (unsigned long long)st.refused_client, (unsigned long long)st.refused_full,
            (unsigned long long)st.answered_busy, (unsigned long long)st.answered_client_full);
}

void conn_limit_free(struct conn_limit *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->lock);
    l->stop = true;
    pthread_cond_signal(&l->wake);
    pthread_mutex_unlock(&l->lock);
    pthread_join(l->thread, NULL);
    pthread_cond_destroy(&l->wake);
    pthread_mutex_destroy(&l->lock);
    free(l->slots);
    free(l);
}
