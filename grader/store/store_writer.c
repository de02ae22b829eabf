/*
 * store_writer.c - the writer thread (store_writer.h).
 *
 * One queue of jobs (records and calls) in arrival order under one mutex.
 * The thread takes, under the lock, every record at the head of the queue
 * up to max_batch (a call ends a batch, so work stays in order), then
 * writes them without the lock: submitters never wait for the store.
 * Group commit comes by itself: while one commit syncs, the next records
 * queue up and share the next one.
 */
#include "store/store_writer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"

struct job {
    struct job *next;
    struct store_record *record;     /* a record, or NULL for a call */
    store_written_fn written;
    store_call_fn call;
    void *arg;
};

struct store_writer {
    struct store *store;
    unsigned capacity, max_batch;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct job *head, *tail;
    unsigned queued;
    bool stopping;
    struct store_writer_stats stats;   /* under lock */
};

const char *store_writer_submit_to_str(enum store_writer_submit s)
{
    switch (s) {
    case STORE_WRITER_QUEUED: return "queued";
    case STORE_WRITER_QUEUE_FULL: return "queue_full";
    case STORE_WRITER_STOPPING: return "stopping";
    case STORE_WRITER_NO_MEMORY: return "no_memory";
    }
    return "unknown";
}

void store_writer_options_init(struct store_writer_options *o)
{
    o->queue_capacity = DEFAULT_STORE_QUEUE;
    o->max_batch = DEFAULT_STORE_BATCH;
}

static void note(struct store_writer *w, enum store_status st, const char *message,
                 uint64_t committed, uint64_t failed, bool commit)
{
    pthread_mutex_lock(&w->lock);
    w->stats.committed += committed;
    w->stats.failed += failed;
    if (failed)
        w->stats.failed_by[st < STORE_NSTATUSES ? st : STORE_ERROR] += failed;
    if (commit)
        w->stats.commits++;
    w->stats.last = st;
    snprintf(w->stats.last_message, sizeof w->stats.last_message, "%s", message);
    w->stats.last_ms = store_now_ms();
    pthread_mutex_unlock(&w->lock);
}

static void tell(struct job *j, enum store_status st, const char *reason)
{
    if (j->written)
        j->written(j->record->id, st, reason, j->arg);
}

/* Whether the row the store holds under r's id is r itself (its source
 * and its verdict): a commit whose answer was lost went through. */
static bool stored_as_is(struct store *s, const struct store_record *r)
{
    struct store_record got = { 0 };
    struct store_error err;
    bool same = store_record_get(s, r->id, NULL, true, &got, &err) == STORE_OK &&
                !strcmp(got.sha256, r->sha256) && got.verdict_len == r->verdict_len &&
                (!r->verdict_len || !memcmp(got.verdict, r->verdict, r->verdict_len));
    store_record_clear(&got);
    return same;
}

/* Fails one record job with st and reason, counted as the writer's. */
static void fail_job(struct store_writer *w, struct job *j, enum store_status st,
                     const char *reason)
{
    note(w, st, reason, 0, 1, false);
    tell(j, st, reason);
}

/*
 * Writes n record jobs: in one commit, or one by one when that fails for
 * a row of them. True when the store could not be reached at all (then
 * every job is failed as unavailable, after one more try on a new
 * connection, and *why says why): the caller fails what waits behind
 * them too, rather than have each record wait out its own tries.
 */
static bool write_batch(struct store_writer *w, struct job **jobs, size_t n, char *why,
                        size_t whysz)
{
    const struct store_record *recs[1024] = { 0 };   /* max_batch's cap */
    struct store_error err;
    for (size_t i = 0; i < n; i++)
        recs[i] = jobs[i]->record;
    enum store_status st = store_records_insert(w->store, recs, n, &err);
    /* a connection lost at the commit leaves unknown whether the rows are
     * in: once more, on a new connection; rows already under their ids
     * that are these records were committed (the answer must say
     * recorded, and the class view must hear of it) */
    if (st == STORE_UNAVAILABLE)
        st = store_records_insert(w->store, recs, n, &err);
    if (st == STORE_OK) {
        note(w, STORE_OK, "", n, 0, true);
        for (size_t i = 0; i < n; i++)
            tell(jobs[i], STORE_OK, "");
        return false;
    }
    if (st == STORE_UNAVAILABLE) {
        for (size_t i = 0; i < n; i++)
            fail_job(w, jobs[i], st, err.message);
        snprintf(why, whysz, "%s", err.message);
        return true;
    }
    if (n == 1) {
        if (st == STORE_CONFLICT && stored_as_is(w->store, recs[0])) {
            note(w, STORE_OK, "", 1, 0, true);
            tell(jobs[0], STORE_OK, "");
        } else {
            fail_job(w, jobs[0], st, err.message);
        }
        return false;
    }
    /* One bad row (a duplicate id) must not sink the others; a store that
     * is full fails each of them alike. */
    for (size_t i = 0; i < n; i++)
        if (write_batch(w, &jobs[i], 1, why, whysz)) {
            for (size_t k = i + 1; k < n; k++)
                fail_job(w, jobs[k], STORE_UNAVAILABLE, why);
            return true;
        }
    return false;
}

/* The store was just found unreachable: every record waiting is failed
 * now, as unavailable (calls stay, in order). Records that come later try
 * the store again. */
static void fail_waiting(struct store_writer *w, const char *why)
{
    struct job *records = NULL, **last = &records;
    pthread_mutex_lock(&w->lock);
    struct job **at = &w->head;
    w->tail = NULL;
    while (*at) {
        struct job *j = *at;
        if (j->record) {
            *at = j->next;
            j->next = NULL;
            *last = j;
            last = &j->next;
            w->queued--;
        } else {
            w->tail = j;
            at = &j->next;
        }
    }
    w->stats.queued = w->queued;
    pthread_mutex_unlock(&w->lock);
    while (records) {
        struct job *j = records;
        records = j->next;
        fail_job(w, j, STORE_UNAVAILABLE, why);
        store_record_free(j->record);
        free(j);
    }
}

static void *writer_main(void *arg)
{
    struct store_writer *w = arg;
    struct job **batch = calloc(w->max_batch, sizeof *batch);
    for (;;) {
        pthread_mutex_lock(&w->lock);
        while (!w->head && !w->stopping)
            pthread_cond_wait(&w->wake, &w->lock);
        if (!w->head) {
            pthread_mutex_unlock(&w->lock);
            break;
        }
        size_t n = 0;
        struct job *call = NULL;
        if (!w->head->record || !batch) {
            call = w->head;
            w->head = call->next;
            n = 0;
        } else {
            while (w->head && w->head->record && n < w->max_batch) {
                batch[n++] = w->head;
                w->head = w->head->next;
            }
        }
        if (!w->head)
            w->tail = NULL;
        w->queued -= (unsigned)(n + (call != NULL));
        w->stats.queued = w->queued;
        pthread_mutex_unlock(&w->lock);

        char why[sizeof w->stats.last_message];
        bool unreachable = false;
        if (call) {
            if (call->record) {   /* no memory for a batch: one by one */
                unreachable = write_batch(w, &call, 1, why, sizeof why);
                store_record_free(call->record);
            } else {
                call->call(w->store, call->arg);
            }
            free(call);
        } else {
            unreachable = write_batch(w, batch, n, why, sizeof why);
            for (size_t i = 0; i < n; i++) {
                store_record_free(batch[i]->record);
                free(batch[i]);
            }
        }
        if (unreachable)
            fail_waiting(w, why);
    }
    free(batch);
    return NULL;
}

struct store_writer *store_writer_start(struct store *s, const struct store_writer_options *o)
{
    struct store_writer_options d;
    if (!o) {
        store_writer_options_init(&d);
        o = &d;
    }
    struct store_writer *w = calloc(1, sizeof *w);
    if (!w || !s) {
        free(w);
        store_close(s);
        return NULL;
    }
    w->store = s;
    w->capacity = o->queue_capacity ? o->queue_capacity : DEFAULT_STORE_QUEUE;
    w->max_batch = o->max_batch ? o->max_batch : DEFAULT_STORE_BATCH;
    if (w->max_batch > 1024)   /* the batch lives on the thread's stack */
        w->max_batch = 1024;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        store_close(s);
        free(w);
        return NULL;
    }
    return w;
}

static enum store_writer_submit enqueue(struct store_writer *w, struct job *j)
{
    pthread_mutex_lock(&w->lock);
    enum store_writer_submit r = STORE_WRITER_QUEUED;
    if (w->stopping)
        r = STORE_WRITER_STOPPING;
    else if (w->queued >= w->capacity)
        r = STORE_WRITER_QUEUE_FULL;
    if (r != STORE_WRITER_QUEUED) {
        w->stats.refused++;
        pthread_mutex_unlock(&w->lock);
        free(j);
        return r;
    }
    if (w->tail)
        w->tail->next = j;
    else
        w->head = j;
    w->tail = j;
    w->stats.queued = ++w->queued;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    return r;
}

enum store_writer_submit store_writer_submit(struct store_writer *w, struct store_record *r,
                                             store_written_fn fn, void *arg)
{
    struct job *j = calloc(1, sizeof *j);
    if (!j || !r) {
        free(j);
        return STORE_WRITER_NO_MEMORY;
    }
    j->record = r;
    j->written = fn;
    j->arg = arg;
    return enqueue(w, j);
}

enum store_writer_submit store_writer_call(struct store_writer *w, store_call_fn fn, void *arg)
{
    struct job *j = calloc(1, sizeof *j);
    if (!j || !fn) {
        free(j);
        return STORE_WRITER_NO_MEMORY;
    }
    j->call = fn;
    j->arg = arg;
    return enqueue(w, j);
}

void store_writer_stats(struct store_writer *w, struct store_writer_stats *out)
{
    pthread_mutex_lock(&w->lock);
    *out = w->stats;
    pthread_mutex_unlock(&w->lock);
}

void store_writer_stop(struct store_writer *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->stopping = true;
    pthread_cond_broadcast(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    store_close(w->store);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w);
}
