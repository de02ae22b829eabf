/*
 * records.h - the server's side of the store: two store writers (one
 * records, one serves reads on a connection of its own, on both
 * backends, so that a read never waits behind a commit nor a commit
 * behind a long read, see records.c), the
 * store's health as the server last saw it, the retention sweep, and the
 * detached (?wait=false) submissions not yet in the store.
 *
 * Threads: every store call runs on a writer's thread (store_writer.h);
 * what the HTTP thread calls here only queues work or reads memory.
 */
#ifndef BUTTERFLY_RECORDS_H
#define BUTTERFLY_RECORDS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/client_id.h"
#include "common/verdict_facts.h"
#include "server/identity/session.h"
#include "store/store.h"
#include "store/store_writer.h"

struct records;

/* The wall clock in milliseconds since the epoch, as records keep time. */
int64_t records_now_ms(void);

/*
 * Opens the store at url twice (the records writer and the reader), after
 * making the instructor's token when the store has none: *instructor_token
 * gets it ("" when one exists already and is kept, see main.c). Starts the
 * retention sweep when retention_days > 0. max_mb: the store's size limit
 * in MiB (0: none), past which only trusted records are written
 * (records_write); guest_records and guest_mb: the budget of each
 * untrusted client (server/record_budget.h; 0: no bound). NULL with a
 * reason in err.
 */
struct records *records_start(const char *url, unsigned retention_days, unsigned max_mb,
                              unsigned guest_records, unsigned guest_mb,
                              char instructor_token[STORE_TOKEN_SIZE], bool rotate_token,
                              char *err, size_t errsz);

/* Writes what is queued, runs the reads queued, stops the threads and
 * closes the store; later writes and reads are refused. Accepts NULL. */
void records_stop(struct records *rs);

/* records_stop, then frees rs. Accepts NULL. */
void records_free(struct records *rs);

/* The Idempotency-Keys being graded on this instance (idempotency.h). */
struct idempotency *records_keys(struct records *rs);

/* The key that signs session cookies. */
const uint8_t *records_session_key(const struct records *rs);

/* Whether who's session (from its cookie) is still current: its token not
 * renewed, its student not forgotten (server/credentials.h). Reads memory. */
bool records_session_current(struct records *rs, const struct principal *who);

/* The backend ("sqlite", "postgresql") and its URL for a log line. */
const char *records_kind(const struct records *rs);
const char *records_display_url(const struct records *rs);

/*
 * Queues r (ownership moves to the writer whatever the answer) for the
 * records writer; fn is called once, from the writer's thread, after the
 * commit or the failure, or from here at once when the queue refuses
 * (status STORE_UNAVAILABLE, reason "the store's queue is full"). facts:
 * what the class view shows of r's verdict (as the worker sent it:
 * common/verdict_facts.h), copied; NULL when not known, and the view then
 * reads the record back.
 *
 * untrusted: the client (the fair share's key) of a record made by no
 * signed-in student or instructor (signed out, or an open lab's guest);
 * NULL for a trusted one. An untrusted record is not written, and fn is
 * called from here at once with STORE_OVER_LIMIT when the store is past
 * its size limit, or STORE_OVER_BUDGET when the client's budget
 * (server/record_budget.h) is spent, with a sentence for the answer.
 * A trusted record is written whatever the size.
 */
void records_write(struct records *rs, struct store_record *r, const struct verdict_shown *facts,
                   const struct client_id *untrusted, store_written_fn fn, void *arg);

/* Called on the writer's thread after every record's commit, with the
 * record as written (whole during the call) and its facts (NULL when the
 * writer was given none). */
typedef void (*records_committed_fn)(const struct store_record *r,
                                     const struct verdict_shown *facts, void *arg);

/* Has fn called after every record's commit (the live class view's
 * feed); set before the first write. */
void records_on_commit(struct records *rs, records_committed_fn fn, void *arg);

/* Called on the reader's thread for each student the store says was
 * forgotten (butterfly-admin forget, on any instance), within
 * IDENTITY_POLL_MS and a read of the change: student valid during the
 * call. It must not call the store (it runs on the reader's thread). */
typedef void (*records_forgotten_fn)(const char *student, void *arg);

/* Has fn called for every student forgotten from now on (the live class
 * view's feed); NULL stops it. */
void records_on_forgotten(struct records *rs, records_forgotten_fn fn, void *arg);

/* Queues fn on the reader's thread; false (fn not called) when refused. */
bool records_read(struct records *rs, store_call_fn fn, void *arg);

/*
 * Runs fn on the writer's thread (write) or the reader's, with its
 * connection, and returns once it has run: how another part of the
 * server (LTI's threads) uses the store without a connection of its own.
 * False, fn not called, when refused (the queue full, stopping). Never
 * from a writer's own thread, nor from libmicrohttpd's.
 */
bool records_call_wait(struct records *rs, bool write, store_call_fn fn, void *arg);

/* The store's size (as last read, and what was written since) and its
 * limit (0: none), in bytes, for /healthz. Reads memory. */
void records_size(struct records *rs, uint64_t *bytes, uint64_t *max_bytes);

/* The store's state for /healthz: "ok" or a status name, its sentence
 * ("" when ok) into msg. */
const char *records_health(struct records *rs, char *msg, size_t msgsz);

/* Writes the records' counters in Prometheus' text format. */
void records_render_metrics(struct records *rs, FILE *f);

/* --- detached submissions (?wait=false) ------------------------------------ */

/* Adds id, owned by who, as pending. False when MAX_DETACHED are held. */
bool records_detach(struct records *rs, const char *id, const struct principal *who);

/* What the table knows of a detached job. */
enum detached_state {
    DETACHED_UNKNOWN,      /* not in the table: ask the store */
    DETACHED_PENDING,      /* graded or recorded, not yet done */
    DETACHED_UNRECORDED,   /* done, not in the store: its answer is kept */
    DETACHED_LOST,         /* done, but its answer could not be made (out of memory) */
};

/* The detached job's verdict came and the store answered: recorded ones
 * leave the table; an unrecorded one keeps its answer (text, taken) for
 * DETACHED_KEEP_S, since the store cannot give it back; answer NULL (out
 * of memory) marks it lost for as long. Either way it is pending no more. */
void records_detached_done(struct records *rs, const char *id, bool recorded, char *answer);

/*
 * What the table knows of id for who: pending, unrecorded (with a copy of
 * the answer in *answer, the caller frees; NULL on OOM), lost, or unknown
 * (then ask the store). Another principal's id is unknown.
 */
enum detached_state records_detached_get(struct records *rs, const char *id,
                                         const struct principal *who, char **answer);

/* A read that found the connection lost (PostgreSQL restarted) is made
 * once more: the store connects again on the next call. */
#define READ_TWICE(st, call)                                                  \
    do {                                                                      \
        (st) = (call);                                                        \
        if ((st) == STORE_UNAVAILABLE)                                        \
            (st) = (call);                                                    \
    } while (0)

#endif
