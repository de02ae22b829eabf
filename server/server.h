/* server.h - the HTTP front end: configuration and lifetime. */
#ifndef BUTTERFLY_SERVER_H
#define BUTTERFLY_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct server_config {
    const char *bind;              /* address to listen on; default 127.0.0.1 */
    unsigned port;                 /* default 8080; 0 picks a free one */
    unsigned workers;              /* default: the number of cores */
    unsigned queue_length;         /* default 32 */
    uint32_t deadline_ms;          /* per job; default 5000 */
    unsigned recycle_after;        /* jobs per worker before it is replaced; 0: never */
    const char *device;            /* Vulkan device selector; NULL: the best */
    const char *static_dir;        /* the page's files */
    uint64_t seed;
    unsigned max_connections;      /* default 256 */
    unsigned per_ip_connections;   /* default 32 */
    unsigned connection_timeout_s; /* idle connections are closed; default 15 */
    size_t connection_memory;      /* per connection, headers included; default 64 KiB */
    bool access_log;               /* one line per request on stderr */
};

/* Fills *c with the defaults. */
void server_config_init(struct server_config *c);

struct server;

/*
 * Loads the static files, starts the worker pool and the HTTP daemon.
 * Returns NULL with a reason in err on failure.
 */
struct server *server_start(const struct server_config *c, char *err, size_t errsz);

/* The port the server listens on (useful when the config said 0). */
unsigned server_port(const struct server *s);

/*
 * Stops accepting connections, lets queued and running jobs finish for up
 * to drain_ms (their answers are sent), then stops everything and frees
 * the server. Accepts NULL.
 */
void server_stop(struct server *s, uint32_t drain_ms);

#endif
