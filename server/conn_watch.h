/*
 * conn_watch.h - notices clients that hang up while their job waits.
 *
 * libmicrohttpd does not look at a suspended connection, so it cannot see
 * its client go. This watcher holds the sockets of suspended submissions
 * in an epoll set of its own and, when a peer closes or resets one, calls
 * back with the job's id, so the pool can drop the job or stop its worker.
 * Jobs are named by id, never by pointer: a late or repeated notice for a
 * job that has ended is harmless (pool_cancel ignores it).
 */
#ifndef BUTTERFLY_CONN_WATCH_H
#define BUTTERFLY_CONN_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Called on the watcher's thread when the client of job `id` is gone. */
typedef void (*conn_gone_fn)(uint64_t id, void *arg);

struct conn_watch;

/* Starts the watcher thread. NULL with a reason in err on failure. */
struct conn_watch *conn_watch_new(conn_gone_fn gone, void *arg, char *err, size_t errsz);

/*
 * Watches socket fd for the end of job id's client. The caller removes it
 * (conn_watch_remove) before the socket can be closed: before resuming the
 * connection. False when it cannot be watched (the job then simply runs).
 */
bool conn_watch_add(struct conn_watch *w, int fd, uint64_t id);

/* Stops watching fd for job id; nothing happens when that pair is not
 * watched (any more). Thread-safe, never blocks for long. */
void conn_watch_remove(struct conn_watch *w, int fd, uint64_t id);

/* Stops the thread and frees the watcher. Accepts NULL. */
void conn_watch_free(struct conn_watch *w);

#endif
