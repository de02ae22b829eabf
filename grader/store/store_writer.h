/*
 * store_writer.h - a thread that owns a store connection, so that the
 * server never calls the store on libmicrohttpd's threads.
 *
 * Records are queued (bounded: a full queue refuses at once, it never
 * waits) and written by the thread, several to one commit: it takes every
 * record waiting, up to max_batch, writes them in one transaction
 * (store_records_insert), then tells each one's callback. If a batch
 * fails, each of its records is tried alone, so one bad row sinks no
 * other. A failure is told, never retried later: the client has already
 * been answered `recorded: false`; the next batch tries the store again,
 * so recording resumes by itself when the cause is gone.
 *
 * Other work (the server's reads: a record by id, a student's page, a
 * token) is queued with store_writer_call and runs on the same thread, in
 * order. A server may start two writers on the same URL, one for the
 * records and one for reads, so that a read never waits behind a commit.
 *
 * Issue 21's hook: a record's callback runs after its commit, on the
 * writer's thread, which is where a live view is told about it.
 */
#ifndef BUTTERFLY_STORE_WRITER_H
#define BUTTERFLY_STORE_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

struct store_writer_options {
    unsigned queue_capacity;    /* jobs waiting, records and calls (default DEFAULT_STORE_QUEUE) */
    unsigned max_batch;         /* records in one commit (default DEFAULT_STORE_BATCH) */
};

/* Fills *o with the defaults of grader/common/defaults.h. */
void store_writer_options_init(struct store_writer_options *o);

/*
 * Told how a record ended, on the writer's thread, after its commit or
 * its failure: status STORE_OK (it is in the store, durably) or the
 * failure, with a sentence in reason (never NULL; "" when ok). The id is
 * the record's, valid during the call. Do little, do not block, and do
 * not call the writer from here except store_writer_submit (never stop).
 */
typedef void (*store_written_fn)(const char *id, enum store_status status, const char *reason,
                                 void *arg);

/* Work for the writer's thread: s is its connection, valid during the
 * call. Runs once, even when the writer is being stopped; the same rules
 * as store_written_fn. */
typedef void (*store_call_fn)(struct store *s, void *arg);

enum store_writer_submit {
    STORE_WRITER_QUEUED,        /* the callback will be called, exactly once */
    STORE_WRITER_QUEUE_FULL,    /* refused: queue_capacity jobs wait */
    STORE_WRITER_STOPPING,      /* refused: store_writer_stop has begun */
    STORE_WRITER_NO_MEMORY,
};

/* "queued", "queue_full", "stopping", "no_memory"; never NULL. */
const char *store_writer_submit_to_str(enum store_writer_submit s);

struct store_writer;

/*
 * Takes the open store s (ownership moves: the writer closes it) and
 * starts the thread. NULL (s closed) when the thread cannot start.
 */
struct store_writer *store_writer_start(struct store *s, const struct store_writer_options *o);

/*
 * Queues record r for writing. On STORE_WRITER_QUEUED the writer owns r
 * and will call fn(r->id, ...) once, r still whole during the call (it is
 * freed after fn returns); on any other answer r stays the caller's and
 * fn is not called. Never blocks on the store.
 */
enum store_writer_submit store_writer_submit(struct store_writer *w, struct store_record *r,
                                             store_written_fn fn, void *arg);

/* Queues fn(store, arg) on the writer's thread; the same answers. */
enum store_writer_submit store_writer_call(struct store_writer *w, store_call_fn fn, void *arg);

struct store_writer_stats {
    uint64_t queued;            /* jobs waiting now */
    uint64_t committed;         /* records written */
    uint64_t failed;            /* records told a failure */
    uint64_t commits;           /* transactions that wrote records */
    uint64_t refused;           /* submissions refused (queue full, stopping) */
    uint64_t failed_by[STORE_NSTATUSES];   /* failures by status */
    enum store_status last;     /* the last write's outcome (or probe's): for /healthz */
    char last_message[512];     /* its sentence; "" when ok */
    int64_t last_ms;            /* when; 0 before the first */
};

/* A snapshot of the counters (taken under the writer's lock; no store call). */
void store_writer_stats(struct store_writer *w, struct store_writer_stats *out);

/*
 * Stops taking jobs, writes and runs every job already queued, joins the
 * thread and closes the store; then frees w. Accepts NULL. Blocks for as
 * long as those jobs take (each bounded by the busy timeout).
 */
void store_writer_stop(struct store_writer *w);

#endif
