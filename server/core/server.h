/* server.h - the HTTP front end: configuration and lifetime. */
#ifndef BUTTERFLY_SERVER_H
#define BUTTERFLY_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/conn/client_addr.h"

/* Every default is in grader/common/defaults.h; --help prints them. */
struct server_config {
    const char *bind;              /* address to listen on */
    unsigned port;                 /* 0 picks a free one */
    unsigned workers;              /* grading worker processes */
    unsigned queue_length;         /* jobs waiting, all clients: a memory bound */
    unsigned per_client_queue;     /* jobs one client may have waiting */
    uint32_t max_wait_ms;          /* admit while the expected wait is below this */
    uint32_t deadline_ms;          /* per job */
    unsigned recycle_after;        /* jobs per worker before it is replaced; 0: never */
    const char *device;            /* Vulkan device selector; NULL: the best */
    const char *static_dir;        /* the page's files */
    const char *worker_path;       /* NULL: see pool_find_worker */
    bool fixed_seed;               /* grade every job with `seed` (tests only) */
    uint64_t seed;
    struct client_rules clients;   /* trusted proxies, their header, the IPv6 prefix */
    unsigned max_connections;
    unsigned per_ip_connections;   /* 0: no bound (behind a proxy) */
    unsigned connection_timeout_s; /* idle connections are closed */
    size_t connection_memory;      /* per connection, headers included */
    bool access_log;               /* one line per request on stderr */
    /* records (grader/store/): NULL or "none" keeps the stateless server */
    const char *database_url;      /* resolved by store_location_resolve */
    const char *public_url;        /* the address in links; NULL: http://BIND:PORT */
    unsigned retention_days;       /* 0: records are kept */
    unsigned store_max_mb;         /* past it only students' records go in; 0: no limit */
    unsigned guest_records, guest_mb;   /* kept per untrusted client in
                                           UNTRUSTED_BUDGET_WINDOW_S; 0: no bound */
    bool rotate_instructor_token;  /* a new instructor token at start (see main.c) */
    /* the live class view (server/class_*.c) */
    unsigned class_streams;        /* live event streams at once; 503 past it */
    unsigned heartbeat_s;          /* a comment on every stream this often */
    unsigned stuck_attempts, stuck_minutes, stuck_repeats;   /* who is stuck */
    /* LTI 1.3 (server/lti.h): NULL keeps LTI off */
    const char *lti_config;        /* --lti-config FILE */
    bool lti_score_last;           /* --lti-score-policy last (default: best) */
    int late_policy;               /* --late-policy: an enum lti_late_policy (default: none) */
    unsigned late_penalty_pct;     /* its P for penalty:P% */
    const char *exercises;         /* --exercises ID,ID (served.h); NULL: every one */
};

/* Fills *c with the defaults. */
void server_config_init(struct server_config *c);

struct server;

/*
 * Loads the static files, starts the worker pool, the connection watcher
 * and the HTTP daemon. Returns NULL with a reason in err on failure.
 */
struct server *server_start(const struct server_config *c, char *err, size_t errsz);

/* The port the server listens on (useful when the config said 0). */
unsigned server_port(const struct server *s);

/* The instructor's token when this start made one, else "": printed once
 * by main.c. */
const char *server_instructor_token(const struct server *s);

/* Whether the server keeps records. */
bool server_keeps_records(const struct server *s);

/* The store's URL for a log line (a password shown as ***); "" when none. */
const char *server_records_url(const struct server *s);

/*
 * Keeps base, the address the server announces at its start, in the
 * store (store_announced_url_set), so that butterfly-admin's links point
 * at this server. Called by main.c once, before any request can need it;
 * runs on the records writer's thread and waits for it. False when the
 * store refused it (err says why); true, doing nothing, without records.
 */
bool server_announce(struct server *s, const char *base, char *err, size_t errsz);

/*
 * Stops accepting connections, lets queued and running jobs finish for up
 * to drain_ms (their answers are sent), then stops everything and frees
 * the server. Accepts NULL.
 */
void server_stop(struct server *s, uint32_t drain_ms);

#endif
