/*
 * conn_limit.h - connections bounded where they come from.
 *
 * libmicrohttpd's own bounds were not enough: its per-address limit
 * counts exact addresses (one IPv6 host holds a whole /64, a new address
 * for every connection), and once its connection limit is reached it
 * stops accepting, so 640 connections trickling a header line every 8 s
 * from ten addresses held every slot and a new client got nothing, not
 * even a 503. This bookkeeping takes both bounds over:
 *
 * - A client (client_addr.h: an IPv4 address, an IPv6 network of
 *   --ipv6-client-prefix bits, the same key as the fair queue's) holds at
 *   most per_client connections; past it a connection is refused at
 *   accept. A trusted proxy's connections are not counted by its own
 *   address; each of its requests counts, once its headers name the
 *   forwarded client, against that client, and past the bound is
 *   answered 429 (conn_limit_headers).
 * - A connection waiting for a request (just opened, or its last answer
 *   sent) must send the whole header within the header deadline, however
 *   it trickles it, or it is closed. A trusted proxy is exempt (it has a
 *   header timeout of its own).
 * - When max_connections are open, a new connection makes room by closing
 *   the one that has waited longest for a header, so a fresh client is
 *   answered. When none waits for a header (every slot is busy with a
 *   request), the newcomer is let in over the bound, up to
 *   CONNECTION_SPARE, and answered 503 (conn_limit_headers).
 *
 * Closing is a shutdown() of the socket; libmicrohttpd then reads its end
 * and frees the connection as any other. All the calls but the deadline
 * thread's come from libmicrohttpd's one polling thread; a lock keeps
 * the two apart. A socket is shut down only under the lock and only
 * while its connection is open here, and libmicrohttpd tells of the
 * close (conn_limit_closed) before it closes the socket, so a number
 * reused by another socket is never touched.
 */
#ifndef BUTTERFLY_CONN_LIMIT_H
#define BUTTERFLY_CONN_LIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "server/conn/client_addr.h"

struct conn_limit_options {
    unsigned max_connections;      /* open in all, before the spare */
    unsigned per_client;           /* per client; 0: no bound */
    unsigned header_deadline_ms;   /* 0: none */
    const struct client_rules *rules;   /* borrowed; outlives the bookkeeping */
    double (*now_ms)(void);        /* the clock; NULL: clock_now_ms (tests pass their own) */
};

/* What a request whose headers are in may do (conn_limit_headers). */
enum conn_verdict {
    CONN_OK,
    CONN_BUSY,           /* let in past max_connections: answer 503 and close */
    CONN_CLIENT_FULL,    /* a forwarded client holds per_client requests: answer 429 */
};

/* "ok", "busy", "client_full". */
const char *conn_limit_verdict_to_str(enum conn_verdict v);

/* What was done, for /metrics. */
struct conn_limit_stats {
    uint64_t open;                 /* connections open now */
    uint64_t waiting;              /* of them, waiting for a request header */
    uint64_t closed_deadline;      /* closed: no whole header within the deadline */
    uint64_t closed_for_room;      /* closed: the longest wait for a header, to make room */
    uint64_t refused_client;       /* refused at accept: the client holds per_client */
    uint64_t refused_full;         /* refused at accept: every slot and the spare taken */
    uint64_t answered_busy;        /* CONN_BUSY given */
    uint64_t answered_client_full; /* CONN_CLIENT_FULL given */
};

struct conn_limit;
struct conn_slot;

/*
 * The bookkeeping for max_connections + CONNECTION_SPARE connections, and
 * its thread, which closes those past the header deadline. NULL with a
 * reason in err on failure.
 */
struct conn_limit *conn_limit_new(const struct conn_limit_options *o, char *err, size_t errsz);

/* How many connections libmicrohttpd must be allowed (its
 * MHD_OPTION_CONNECTION_LIMIT): max_connections plus the spare, so that
 * it keeps accepting and the choice is ours. */
unsigned conn_limit_capacity(const struct conn_limit *l);

/*
 * The accept policy: whether a connection from sa may be taken. False
 * when its client holds per_client connections, or when every slot and
 * the spare are taken. When max_connections are open, closes the
 * connection that has waited longest for a header first.
 */
bool conn_limit_admit(struct conn_limit *l, const struct sockaddr *sa);

/*
 * A connection was opened on socket fd from sa (NULL: unknown, then it is
 * counted for nobody): it waits for its first header from now. Returns its
 * slot, owned here until conn_limit_closed; NULL when none is free (then
 * it is not bounded here, and every other call accepts the NULL).
 */
struct conn_slot *conn_limit_opened(struct conn_limit *l, int fd, const struct sockaddr *sa);

/* The connection is closed (before its socket is): its slot is free. */
void conn_limit_closed(struct conn_limit *l, struct conn_slot *c);

/*
 * A request's headers are in, from client (client_addr_resolve's answer):
 * its connection stops waiting for a header. A request through a trusted
 * proxy counts against client until conn_limit_request_done, unless the
 * answer is CONN_CLIENT_FULL.
 */
enum conn_verdict conn_limit_headers(struct conn_limit *l, struct conn_slot *c,
                                     const struct client_id *client);

/* The request is over (answered, or ended): its forwarded client's count
 * is released and the connection waits for its next header from now. */
void conn_limit_request_done(struct conn_limit *l, struct conn_slot *c);

/* Closes every connection (but a trusted proxy's) that has waited for a
 * header since before now_ms minus the deadline. The thread calls it a
 * few times a second; tests call it with their own clock. */
void conn_limit_expire(struct conn_limit *l, double now_ms);

/* The counters, consistent with each other. */
void conn_limit_get_stats(struct conn_limit *l, struct conn_limit_stats *st);

/* Writes the counters in Prometheus' text format to f:
 * butterfly_connections_open, butterfly_connections_waiting_header,
 * butterfly_connections_closed_total{reason="header_deadline|room"},
 * butterfly_connections_refused_total{reason="per_client|full|busy|forwarded_client"}. */
void conn_limit_render_metrics(struct conn_limit *l, FILE *f);

/* Stops the thread and frees the bookkeeping; libmicrohttpd must be
 * stopped first (its connections are told closed). Accepts NULL. */
void conn_limit_free(struct conn_limit *l);

#endif
