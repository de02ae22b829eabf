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

#include <stdatomic.h>
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

/* Stops watching job id's socket; nothing happens when it is not watched
 * (any more). Thread-safe, never blocks for long, and still allowed after
 * conn_watch_stop. */
void conn_watch_remove(struct conn_watch *w, uint64_t id);

/*
 * Ends the watch of a suspended submission between the two threads that
 * share it. Each calls this once, after its own part: the HTTP thread
 * after it watched the socket (or chose not to), the pool's thread after
 * it published the result. The second to arrive stops watching job id, so
 * the stop always comes after the watch began, whatever the interleaving:
 * a socket left watched would make the next submission on the same
 * keep-alive connection unwatchable (EEXIST), and its hang-up unseen.
 * *arrived starts at 0, one per submission.
 */
void conn_watch_handoff(struct conn_watch *w, atomic_uint *arrived, uint64_t id);

/*
 * Stops and joins the thread: no callback runs after it returns, so the
 * owner may then free what the callback uses (the pool). Adding and
 * removing still work. Accepts NULL; a second call does nothing.
 */
void conn_watch_stop(struct conn_watch *w);

/* Stops the thread if still running and frees the watcher. Accepts NULL. */
void conn_watch_free(struct conn_watch *w);

#endif
