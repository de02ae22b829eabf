/* records.c - the store's two writers, its health, retention, detached jobs. */
#include "server/identity/records.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "common/clock.h"
#include "common/defaults.h"
#include "server/identity/credentials.h"
#include "server/identity/idempotency.h"
#include "server/identity/record_budget.h"

/* How often the health is probed while the store is unreachable, so that
 * /healthz shows it back before the next submission does. */
#define PROBE_INTERVAL_S 2

struct detached {
    char id[STORE_ID_SIZE];
    struct principal owner;
    enum detached_state state; /* PENDING until its verdict came, then UNRECORDED or LOST */
    char *answer;              /* owned; set when UNRECORDED */
    time_t done_at;            /* when it stopped being pending */
};

struct records {
    struct store_writer *writer, *reader;
    enum store_kind kind;
    char display_url[512];
    uint8_t key[SESSION_KEY_BYTES];
    unsigned retention_days;

    pthread_mutex_t lock;      /* health, counters, detached */
    pthread_cond_t wake;
    bool stopping;
    pthread_t sweeper;
    bool sweeper_started;
    enum store_status health;
    char health_msg[512];
    uint64_t recorded, failed_by[STORE_NSTATUSES], refused, purged;
    struct detached *detached;
    size_t ndetached;
    /* issue 21's hook: told of every committed record (records_on_commit) */
    records_committed_fn committed;
    void *committed_arg;
    struct credentials *credentials;
    bool refreshing;           /* a read of the credentials is queued */
    /* the store's changes of who may sign in (butterfly-admin's forget
     * and renewals), read every IDENTITY_POLL_MS on the reader's thread */
    int64_t identity_seq;      /* the last change read */
    bool identity_known;       /* identity_seq was read from the store */
    bool identity_reading;     /* a read of the changes is queued */
    pthread_mutex_t forgotten_mu;   /* held while the hook is set or called */
    records_forgotten_fn forgotten;
    void *forgotten_arg;
    /* bounded storage (issue 29): what clients not signed in as students
     * may have kept, and the store's size against its limit */
    struct record_budget *budget;
    uint64_t max_bytes;        /* 0: no limit */
    uint64_t size_bytes;       /* as last read (store_size) */
    uint64_t written_since;    /* bytes committed since that read, estimated */
    bool sizing;               /* a read of the size is queued */
    uint64_t refused_limit, refused_budget;
    struct idempotency *keys;  /* Idempotency-Keys being graded here */
    uint64_t replayed;         /* records not written: their key was a record's already */
};

/* What a record adds to the store, as the budget and the size between two
 * reads of it count it. */
static uint64_t record_bytes(const struct store_record *r)
{
    return (uint64_t)r->source_len + r->verdict_len + RECORD_OVERHEAD_BYTES;
}

int64_t records_now_ms(void)
{
    return clock_wall_ms();
}

/* A probe is a read: it can tell that a lost store (PostgreSQL down) is
 * back, but not that a full, read-only or locked one is, where reads go
 * on while writes fail; those are cleared by the next write alone. */
static void probe_call(struct store *s, void *arg)
{
    struct records *rs = arg;
    struct store_error e = { 0 };
    enum store_status st = store_probe(s, &e);
    pthread_mutex_lock(&rs->lock);
    if (rs->health == STORE_UNAVAILABLE && st == STORE_OK) {
        rs->health = STORE_OK;
        rs->health_msg[0] = '\0';
    }
    pthread_mutex_unlock(&rs->lock);
}

static void purge_call(struct store *s, void *arg)
{
    struct records *rs = arg;
    struct store_error e = { 0 };
    uint64_t n = 0;
    int64_t cutoff = store_retention_cutoff(records_now_ms(), rs->retention_days);
    if (store_records_delete_before(s, cutoff, &n, &e) == STORE_OK) {
        pthread_mutex_lock(&rs->lock);
        rs->purged += n;
        pthread_mutex_unlock(&rs->lock);
    } else {
        fprintf(stderr, "butterfly-server: retention: %s\n", e.message);
    }
}

/* Reads the store's size; a failure keeps the last one and its estimate.
 * (On PostgreSQL a commit between the read and this reset is missed until
 * the next read, STORE_SIZE_POLL_S on: a few records past the limit.) */
static void size_call(struct store *s, void *arg)
{
    struct records *rs = arg;
    uint64_t bytes = 0;
    struct store_error e = { 0 };
    enum store_status st = store_size(s, &bytes, &e);
    pthread_mutex_lock(&rs->lock);
    if (st == STORE_OK) {
        rs->size_bytes = bytes;
        rs->written_since = 0;
    }
    rs->sizing = false;
    pthread_mutex_unlock(&rs->lock);
}

/* Reads the current tokens into the table; a failure keeps the last one. */
static void refresh_call(struct store *s, void *arg)
{
    struct records *rs = arg;
    struct store_error e = { 0 };
    enum store_status st = credentials_load(rs->credentials, s, time(NULL), &e);
    if (st == STORE_UNAVAILABLE)   /* a lost connection is made again once */
        st = credentials_load(rs->credentials, s, time(NULL), &e);
    pthread_mutex_lock(&rs->lock);
    rs->refreshing = false;
    pthread_mutex_unlock(&rs->lock);
}

/* What one read of the changes found. */
struct identity_read {
    char **ids;                /* the students named (owned) */
    bool *forgotten;           /* ids[i] was forgotten (else renewed) */
    size_t n, cap;
    bool instructor, oom;
    int64_t last;
    size_t rows;               /* changes read, the instructor's too */
};

static bool identity_row(const struct store_identity_change *c, void *arg)
{
    struct identity_read *r = arg;
    r->last = c->seq;
    r->rows++;
    if (!c->student) {
        r->instructor = true;
        return true;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        char **ids = realloc(r->ids, cap * sizeof *ids);
        if (ids)
            r->ids = ids;
        bool *f = ids ? realloc(r->forgotten, cap * sizeof *f) : NULL;
        if (f)
            r->forgotten = f;
        if (!ids || !f) {
            r->oom = true;
            return false;
        }
        r->cap = cap;
    }
    if (!(r->ids[r->n] = strdup(c->student))) {
        r->oom = true;
        return false;
    }
    r->forgotten[r->n++] = c->forgotten;
    return true;
}

/* On the reader's thread: the changes since the last one read. When
 * there are some, the table of tokens is read again at once and the
 * changed students' sessions are judged by it (credentials_changed); the
 * forgotten are told to the class view (records_on_forgotten). A failure
 * reads the same changes again at the next poll. */
static void identity_call(struct store *s, void *arg)
{
    struct records *rs = arg;
    struct store_error e = { 0 };
    pthread_mutex_lock(&rs->lock);
    int64_t after = rs->identity_seq;
    bool known = rs->identity_known;
    pthread_mutex_unlock(&rs->lock);
    struct identity_read r = { .last = after };
    enum store_status st = STORE_OK;
    if (!known) {
        READ_TWICE(st, store_identity_last(s, &r.last, &e));
    } else {
        /* all of them: each read is bounded, and the table holds a day's */
        for (;;) {
            size_t had = r.rows;
            READ_TWICE(st, store_identity_changes(s, r.last, IDENTITY_CHANGES_PER_READ,
                                                  identity_row, &r, &e));
            if (st != STORE_OK || r.oom || r.rows - had < IDENTITY_CHANGES_PER_READ)
                break;
        }
        if (st == STORE_OK && r.oom)
            st = STORE_NO_MEMORY;
        if (st == STORE_OK && r.last != after) {
            time_t now = time(NULL);
            st = credentials_load(rs->credentials, s, now, &e);
            if (st == STORE_UNAVAILABLE)
                st = credentials_load(rs->credentials, s, now, &e);
            if (st == STORE_OK)
                credentials_changed(rs->credentials, (const char *const *)r.ids, r.n,
                                    r.instructor);
        }
    }
    /* under the hook's own lock: once records_on_forgotten(NULL) is
     * back, no call is under way (the feed is freed after it) */
    pthread_mutex_lock(&rs->forgotten_mu);
    if (st == STORE_OK && known && rs->forgotten)
        for (size_t i = 0; i < r.n; i++)
            if (r.forgotten[i])
                rs->forgotten(r.ids[i], rs->forgotten_arg);
    pthread_mutex_unlock(&rs->forgotten_mu);
    pthread_mutex_lock(&rs->lock);
    if (st == STORE_OK) {
        rs->identity_seq = r.last;
        rs->identity_known = true;
    }
    rs->identity_reading = false;
    pthread_mutex_unlock(&rs->lock);
    for (size_t i = 0; i < r.n; i++)
        free(r.ids[i]);
    free(r.ids);
    free(r.forgotten);
}

void records_on_forgotten(struct records *rs, records_forgotten_fn fn, void *arg)
{
    pthread_mutex_lock(&rs->forgotten_mu);
    rs->forgotten = fn;
    rs->forgotten_arg = arg;
    pthread_mutex_unlock(&rs->forgotten_mu);
}

/* The sweeper: reads the current tokens every CREDENTIALS_REFRESH_S (one
 * read at a time, so a slow store is not asked again and again), removes
 * records past retention every RETENTION_SWEEP_S,
 * probes an unreachable store every PROBE_INTERVAL_S, drops unrecorded
 * detached answers past DETACHED_KEEP_S. It only queues store work. */
static void *sweeper_main(void *arg)
{
    struct records *rs = arg;
    time_t next_purge = 0, next_probe = 0, next_refresh = 0, next_size = 0;
    int64_t next_identity = 0;   /* ms, records_now_ms */
    pthread_mutex_lock(&rs->lock);
    while (!rs->stopping) {
        time_t now = time(NULL);
        bool failing = rs->health == STORE_UNAVAILABLE;
        for (size_t i = 0; i < rs->ndetached;) {
            if (rs->detached[i].state != DETACHED_PENDING &&
                now - rs->detached[i].done_at > DETACHED_KEEP_S) {
                free(rs->detached[i].answer);
                rs->detached[i] = rs->detached[--rs->ndetached];
            } else {
                i++;
            }
        }
        pthread_mutex_unlock(&rs->lock);
        pthread_mutex_lock(&rs->lock);
        if (rs->retention_days && now >= next_purge) {
            store_writer_call(rs->writer, purge_call, rs);
            next_purge = now + RETENTION_SWEEP_S;
        }
        if (failing && now >= next_probe) {
            store_writer_call(rs->reader, probe_call, rs);
            next_probe = now + PROBE_INTERVAL_S;
        }
        if (now >= next_size && !rs->sizing) {
            rs->sizing = store_writer_call(rs->reader, size_call, rs) == STORE_WRITER_QUEUED;
            next_size = now + STORE_SIZE_POLL_S;
        }
        if (now >= next_refresh && !rs->refreshing) {
            rs->refreshing = store_writer_call(rs->reader, refresh_call, rs) ==
                             STORE_WRITER_QUEUED;
            next_refresh = now + CREDENTIALS_REFRESH_S;
        }
        int64_t now_ms = records_now_ms();
        if (now_ms >= next_identity && !rs->identity_reading) {
            rs->identity_reading = store_writer_call(rs->reader, identity_call, rs) ==
                                   STORE_WRITER_QUEUED;
            next_identity = now_ms + IDENTITY_POLL_MS;
        }
        /* wake for the next read due, and every PROBE_INTERVAL_S to see
         * whether the store has failed (a second on while a read is in
         * flight); the changes' poll at its own pace, in ms */
        time_t wake = now + PROBE_INTERVAL_S;
        if (next_refresh < wake)
            wake = next_refresh > now ? next_refresh : now + 1;
        int64_t wake_ms = (int64_t)wake * 1000;
        if (next_identity < wake_ms)
            wake_ms = next_identity > now_ms ? next_identity : now_ms + IDENTITY_POLL_MS;
        struct timespec until = { .tv_sec = (time_t)(wake_ms / 1000),
                                  .tv_nsec = (long)(wake_ms % 1000) * 1000000L };
        if (!rs->stopping)
            pthread_cond_timedwait(&rs->wake, &rs->lock, &until);
    }
    pthread_mutex_unlock(&rs->lock);
    return NULL;
}

static struct store_writer *open_writer(const char *url, char *err, size_t errsz)
{
    struct store *s = NULL;
    struct store_error e = { 0 };
    if (store_open(url, &s, &e) != STORE_OK || !s) {
        snprintf(err, errsz, "cannot open the store: %s", e.message);
        return NULL;
    }
    struct store_writer_options o;
    store_writer_options_init(&o);
    struct store_writer *w = store_writer_start(s, &o);
    if (!w)
        snprintf(err, errsz, "cannot start the store's thread");
    return w;
}

struct records *records_start(const char *url, unsigned retention_days, unsigned max_mb,
                              unsigned guest_records, unsigned guest_mb,
                              char instructor_token[STORE_TOKEN_SIZE], bool rotate_token,
                              char *err, size_t errsz)
{
    instructor_token[0] = '\0';
    struct records *rs = calloc(1, sizeof *rs);
    if (!rs) {
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&rs->lock, NULL);
    pthread_mutex_init(&rs->forgotten_mu, NULL);
    pthread_cond_init(&rs->wake, NULL);
    rs->retention_days = retention_days;
    rs->max_bytes = (uint64_t)max_mb << 20;
    rs->budget = record_budget_new(guest_records, (uint64_t)guest_mb << 20,
                                   UNTRUSTED_BUDGET_WINDOW_S);
    rs->keys = idempotency_new(IDEMPOTENCY_IN_FLIGHT_MAX);
    if (!rs->budget || !rs->keys) {
        snprintf(err, errsz, "out of memory");
        goto fail;
    }
    /* the first connection makes the instructor's token and reads the
     * session key, on this thread, before any request can come */
    struct store *s = NULL;
    struct store_error e = { 0 };
    if (store_open(url, &s, &e) != STORE_OK || !s) {
        snprintf(err, errsz, "cannot open the store: %s", e.message);
        goto fail;
    }
    /* the key is the store's, so that sessions outlive a restart and
     * instances sharing a store share them. A store that cannot be
     * written now (full, read-only) must not stop the server: grading
     * goes on, with a key of this process's own and no new token. */
    _Static_assert(SESSION_KEY_BYTES == STORE_SECRET_BYTES, "one key size");
    if (store_secret(s, "session", rs->key, &e) != STORE_OK) {
        fprintf(stderr, "butterfly-server: the store's session key cannot be read (%s); "
                        "sessions end when this process does\n", e.message);
        if (getrandom(rs->key, sizeof rs->key, 0) != (ssize_t)sizeof rs->key) {
            snprintf(err, errsz, "no random bytes for the session key");
            store_close(s);
            goto fail;
        }
    }
    rs->credentials = credentials_new();
    if (!rs->credentials) {
        snprintf(err, errsz, "out of memory");
        store_close(s);
        goto fail;
    }
    rs->kind = store_kind(s);
    snprintf(rs->display_url, sizeof rs->display_url, "%s", store_display_url(s));
    bool created = false;
    enum store_status st = store_instructor_ensure(s, instructor_token, &created, &e);
    if (st == STORE_OK && !created && rotate_token) {
        /* the token before this start: its sessions go on under the new one */
        if (credentials_load(rs->credentials, s, time(NULL), &e) == STORE_OK)
            credentials_carry_instructor(rs->credentials);
        st = store_instructor_new_token(s, instructor_token, &e);
    }
    if (st != STORE_OK) {
        instructor_token[0] = '\0';
        fprintf(stderr, "butterfly-server: no new instructor's token (%s)\n", e.message);
        rs->health = st;
        snprintf(rs->health_msg, sizeof rs->health_msg, "%s", e.message);
    }
    /* where the changes of who may sign in are read from: the last one
     * before the table (unread, the first poll reads it) */
    if (store_identity_last(s, &rs->identity_seq, &e) == STORE_OK)
        rs->identity_known = true;
    /* the table before the first request; a failure here leaves it
     * empty (signatures and expiries only) until the sweeper's next read */
    if (credentials_load(rs->credentials, s, time(NULL), &e) != STORE_OK)
        fprintf(stderr, "butterfly-server: the current tokens cannot be read (%s); "
                        "renewed tokens end sessions once they can\n", e.message);
    /* the size before the first record, so that a store past its limit
     * at start keeps no signed-out record */
    if (store_size(s, &rs->size_bytes, &e) != STORE_OK)
        fprintf(stderr, "butterfly-server: the store's size cannot be read (%s)\n", e.message);
    store_close(s);
    rs->writer = open_writer(url, err, errsz);
    if (!rs->writer)
        goto fail;
    /* A second connection for reads, on both backends, so that a long
     * read (a gradebook of the whole class) never holds a commit, and so
     * a submission's answer, behind it: WAL lets SQLite's reader read its
     * snapshot while the writer commits. A process's SQLite connections
     * to one file share its -shm mapping, so one opened while the file
     * was read-only would keep the others read-only after the file is
     * writable again; the backend closes a read-only connection as soon
     * as its call ends (store_sqlite.c, release_if_read_only), so the
     * reader never holds it so, and the writer's next open after a
     * read-only failure finds the file as it is. */
    rs->reader = open_writer(url, err, errsz);
    if (!rs->reader)
        goto fail;
    if (pthread_create(&rs->sweeper, NULL, sweeper_main, rs) != 0) {
        snprintf(err, errsz, "cannot start the retention thread");
        goto fail;
    }
    rs->sweeper_started = true;
    return rs;
fail:
    records_free(rs);
    return NULL;
}

void records_stop(struct records *rs)
{
    if (!rs)
        return;
    pthread_mutex_lock(&rs->lock);
    rs->stopping = true;
    pthread_cond_broadcast(&rs->wake);
    pthread_mutex_unlock(&rs->lock);
    if (rs->sweeper_started)
        pthread_join(rs->sweeper, NULL);
    rs->sweeper_started = false;
    /* from here on records_write and records_read refuse; the writers
     * are taken out under the lock, so no call is half made */
    pthread_mutex_lock(&rs->lock);
    struct store_writer *w = rs->writer, *rd = rs->reader;
    rs->writer = rs->reader = NULL;
    pthread_mutex_unlock(&rs->lock);
    /* every queued record is written and told, which resumes its connection */
    store_writer_stop(w);
    store_writer_stop(rd);
}

void records_free(struct records *rs)
{
    if (!rs)
        return;
    records_stop(rs);
    for (size_t i = 0; i < rs->ndetached; i++)
        free(rs->detached[i].answer);
    free(rs->detached);
    credentials_free(rs->credentials);
    record_budget_free(rs->budget);
    idempotency_free(rs->keys);
    pthread_cond_destroy(&rs->wake);
    pthread_mutex_destroy(&rs->forgotten_mu);
    pthread_mutex_destroy(&rs->lock);
    free(rs);
}

struct idempotency *records_keys(struct records *rs)
{
    return rs->keys;
}

const uint8_t *records_session_key(const struct records *rs)
{
    return rs->key;
}

bool records_session_current(struct records *rs, const struct principal *who)
{
    return !rs->credentials || credentials_current(rs->credentials, who);
}

const char *records_kind(const struct records *rs)
{
    return store_kind_to_str(rs->kind);
}

const char *records_display_url(const struct records *rs)
{
    return rs->display_url;
}

struct write_ctx {
    struct records *rs;
    const struct store_record *rec;   /* the writer's, whole until its callback returns */
    store_written_fn fn;
    void *arg;
};

/* Counts the outcome and keeps it as the store's health, tells the class
 * view of a commit, then tells the submission. */
static void on_written(const char *id, enum store_status st, const char *reason, void *arg)
{
    struct write_ctx *c = arg;
    struct records *rs = c->rs;
    /* a key that is a record's already is the store answering well: the
     * submission's answer is that record (submission.c), no failure */
    bool replay = st == STORE_CONFLICT && c->rec->idem_key;
    /* nor is a student forgotten while the run was graded: refused
     * rightly, the store is well (counted by its reason) */
    bool fine = replay || st == STORE_FORGOTTEN;
    pthread_mutex_lock(&rs->lock);
    if (st == STORE_OK) {
        rs->recorded++;
        rs->written_since += record_bytes(c->rec);
    } else if (replay)
        rs->replayed++;
    else if ((unsigned)st < STORE_NSTATUSES)
        rs->failed_by[st]++;
    if (st != STORE_FORGOTTEN) {
        rs->health = fine ? STORE_OK : st;
        snprintf(rs->health_msg, sizeof rs->health_msg, "%s",
                 st == STORE_OK || fine ? "" : reason);
    }
    pthread_mutex_unlock(&rs->lock);
    if (st == STORE_OK && rs->committed)
        rs->committed(c->rec, c->rec->shown_known ? &c->rec->shown : NULL, rs->committed_arg);
    c->fn(id, st, reason, c->arg);
    free(c);
}

void records_on_commit(struct records *rs, records_committed_fn fn, void *arg)
{
    rs->committed = fn;
    rs->committed_arg = arg;
}

/* Whether a record of an untrusted client is kept: within the store's
 * limit and the client's budget. STORE_OK, or the refusal with its
 * sentence in msg. */
static enum store_status admit(struct records *rs, const struct store_record *r,
                               const struct client_id *client, char *msg, size_t msgsz)
{
    pthread_mutex_lock(&rs->lock);
    bool over = rs->max_bytes && rs->size_bytes + rs->written_since >= rs->max_bytes;
    if (over)
        rs->refused_limit++;
    pthread_mutex_unlock(&rs->lock);
    if (over) {
        snprintf(msg, msgsz, "The store is past its size limit (--store-max-mb %llu): only "
                 "signed-in students' submissions are kept now.",
                 (unsigned long long)(rs->max_bytes >> 20));
        return STORE_OVER_LIMIT;
    }
    enum record_budget_answer a = record_budget_take(rs->budget, client, record_bytes(r),
                                                     time(NULL));
    if (a == BUDGET_OK)
        return STORE_OK;
    pthread_mutex_lock(&rs->lock);
    rs->refused_budget++;
    pthread_mutex_unlock(&rs->lock);
    unsigned records = 0;
    uint64_t bytes = 0;
    record_budget_limits(rs->budget, &records, &bytes);
    snprintf(msg, msgsz, "Not kept: this address has had the most submissions kept (%u, or "
             "%llu MiB) in %u minutes that a client not signed in as a student may; sign in "
             "to keep every attempt.", records, (unsigned long long)(bytes >> 20),
             UNTRUSTED_BUDGET_WINDOW_S / 60);
    return STORE_OVER_BUDGET;
}

void records_write(struct records *rs, struct store_record *r, const struct verdict_shown *facts,
                   const struct client_id *untrusted, store_written_fn fn, void *arg)
{
    /* the class view's facts are the record's columns (store.h) */
    r->shown_known = facts != NULL;
    if (facts)
        r->shown = *facts;
    if (untrusted) {
        char msg[300];
        enum store_status st = admit(rs, r, untrusted, msg, sizeof msg);
        if (st != STORE_OK) {
            char id[STORE_ID_SIZE];
            snprintf(id, sizeof id, "%s", r->id);
            store_record_free(r);
            fn(id, st, msg, arg);
            return;
        }
    }
    struct write_ctx *c = malloc(sizeof *c);
    enum store_writer_submit q = STORE_WRITER_NO_MEMORY;
    if (c) {
        *c = (struct write_ctx){ .rs = rs, .rec = r, .fn = fn, .arg = arg };
        pthread_mutex_lock(&rs->lock);
        q = rs->writer ? store_writer_submit(rs->writer, r, on_written, c)
                       : STORE_WRITER_STOPPING;
        pthread_mutex_unlock(&rs->lock);
    }
    if (q == STORE_WRITER_QUEUED)
        return;
    free(c);
    pthread_mutex_lock(&rs->lock);
    rs->refused++;
    pthread_mutex_unlock(&rs->lock);
    char id[STORE_ID_SIZE];
    snprintf(id, sizeof id, "%s", r->id);
    store_record_free(r);
    fn(id, STORE_UNAVAILABLE, q == STORE_WRITER_QUEUE_FULL ? "the store's queue is full"
                              : "the store is stopping", arg);
}

bool records_read(struct records *rs, store_call_fn fn, void *arg)
{
    pthread_mutex_lock(&rs->lock);
    bool ok = rs->reader && store_writer_call(rs->reader, fn, arg) == STORE_WRITER_QUEUED;
    pthread_mutex_unlock(&rs->lock);
    return ok;
}

struct waited_call {
    store_call_fn fn;
    void *arg;
    pthread_mutex_t lock;
    pthread_cond_t done_cv;
    bool done;
};

static void waited_call_run(struct store *s, void *arg)
{
    struct waited_call *w = arg;
    w->fn(s, w->arg);
    pthread_mutex_lock(&w->lock);
    w->done = true;
    pthread_cond_signal(&w->done_cv);
    pthread_mutex_unlock(&w->lock);
}

bool records_call_wait(struct records *rs, bool write, store_call_fn fn, void *arg)
{
    struct waited_call w = { .fn = fn, .arg = arg };
    pthread_mutex_init(&w.lock, NULL);
    pthread_cond_init(&w.done_cv, NULL);
    pthread_mutex_lock(&rs->lock);
    struct store_writer *t = write ? rs->writer : rs->reader;
    bool ok = t && store_writer_call(t, waited_call_run, &w) == STORE_WRITER_QUEUED;
    pthread_mutex_unlock(&rs->lock);
    /* A queued call is always run, store_writer_stop included, and every
     * store call is bounded (the busy timeout, STORE_PG_ANSWER_MS), so
     * this wait ends; w lives on this stack until it has. */
    pthread_mutex_lock(&w.lock);
    while (ok && !w.done)
        pthread_cond_wait(&w.done_cv, &w.lock);
    pthread_mutex_unlock(&w.lock);
    pthread_cond_destroy(&w.done_cv);
    pthread_mutex_destroy(&w.lock);
    return ok;
}

void records_size(struct records *rs, uint64_t *bytes, uint64_t *max_bytes)
{
    pthread_mutex_lock(&rs->lock);
    *bytes = rs->size_bytes + rs->written_since;
    *max_bytes = rs->max_bytes;
    pthread_mutex_unlock(&rs->lock);
}

const char *records_health(struct records *rs, char *msg, size_t msgsz)
{
    pthread_mutex_lock(&rs->lock);
    enum store_status st = rs->health;
    snprintf(msg, msgsz, "%s", rs->health_msg);
    pthread_mutex_unlock(&rs->lock);
    return store_status_to_str(st);
}

void records_render_metrics(struct records *rs, FILE *f)
{
    pthread_mutex_lock(&rs->lock);
    fprintf(f, "# HELP butterfly_records_total Graded submissions by what the store did with them.\n"
               "# TYPE butterfly_records_total counter\n"
               "butterfly_records_total{outcome=\"recorded\",reason=\"\"} %llu\n"
               "butterfly_records_total{outcome=\"failed\",reason=\"queue_full\"} %llu\n",
            (unsigned long long)rs->recorded, (unsigned long long)rs->refused);
    fprintf(f, "butterfly_records_total{outcome=\"refused\",reason=\"%s\"} %llu\n"
               "butterfly_records_total{outcome=\"refused\",reason=\"%s\"} %llu\n",
            store_status_to_str(STORE_OVER_BUDGET), (unsigned long long)rs->refused_budget,
            store_status_to_str(STORE_OVER_LIMIT), (unsigned long long)rs->refused_limit);
    for (int st = STORE_OK + 1; st < STORE_NSTATUSES; st++)
        if (st != STORE_OVER_BUDGET && st != STORE_OVER_LIMIT)
            fprintf(f, "butterfly_records_total{outcome=\"failed\",reason=\"%s\"} %llu\n",
                    store_status_to_str((enum store_status)st),
                    (unsigned long long)rs->failed_by[st]);
    fprintf(f, "butterfly_records_total{outcome=\"replayed\",reason=\"idempotency_key\"} "
               "%llu\n", (unsigned long long)rs->replayed);
    fprintf(f, "# HELP butterfly_store_up Whether the store's last write or probe succeeded.\n"
               "# TYPE butterfly_store_up gauge\nbutterfly_store_up %d\n"
               "# HELP butterfly_records_purged_total Records removed past --retention-days.\n"
               "# TYPE butterfly_records_purged_total counter\nbutterfly_records_purged_total %llu\n",
            rs->health == STORE_OK, (unsigned long long)rs->purged);
    fprintf(f, "# HELP butterfly_store_bytes The store's size as last read, and what was "
               "written since.\n"
               "# TYPE butterfly_store_bytes gauge\nbutterfly_store_bytes %llu\n"
               "# HELP butterfly_store_max_bytes --store-max-mb in bytes; 0: no limit.\n"
               "# TYPE butterfly_store_max_bytes gauge\nbutterfly_store_max_bytes %llu\n",
            (unsigned long long)(rs->size_bytes + rs->written_since),
            (unsigned long long)rs->max_bytes);
    /* an operator's (and a test's) way to see that a forget or a renewal
     * by butterfly-admin has reached this instance */
    fprintf(f, "# HELP butterfly_identity_change_seq The store's last change of who may sign "
               "in (forget, renewed token) this server has applied.\n"
               "# TYPE butterfly_identity_change_seq gauge\nbutterfly_identity_change_seq %lld\n",
            (long long)rs->identity_seq);
    pthread_mutex_unlock(&rs->lock);
    record_budget_render_metrics(rs->budget, f);
    if (rs->credentials)
        credentials_render_metrics(rs->credentials, time(NULL), f);
}

/* --- detached ---------------------------------------------------------------- */

static struct detached *find_detached(struct records *rs, const char *id)
{
    for (size_t i = 0; i < rs->ndetached; i++)
        if (!strcmp(rs->detached[i].id, id))
            return &rs->detached[i];
    return NULL;
}

bool records_detach(struct records *rs, const char *id, const struct principal *who)
{
    pthread_mutex_lock(&rs->lock);
    bool ok = false;
    if (rs->ndetached < MAX_DETACHED) {
        if (!rs->detached)
            rs->detached = calloc(MAX_DETACHED, sizeof *rs->detached);
        if (rs->detached) {
            struct detached *d = &rs->detached[rs->ndetached++];
            memset(d, 0, sizeof *d);
            d->state = DETACHED_PENDING;
            snprintf(d->id, sizeof d->id, "%s", id);
            d->owner = *who;
            ok = true;
        }
    }
    pthread_mutex_unlock(&rs->lock);
    return ok;
}

void records_detached_done(struct records *rs, const char *id, bool recorded, char *answer)
{
    pthread_mutex_lock(&rs->lock);
    struct detached *d = find_detached(rs, id);
    if (d && recorded) {
        *d = rs->detached[--rs->ndetached];
        free(answer);
    } else if (d) {
        /* no answer (out of memory making it) is a lost verdict, never a
         * job pending for ever: it leaves the table after DETACHED_KEEP_S
         * like any other (issue 30, defect 3) */
        d->state = answer ? DETACHED_UNRECORDED : DETACHED_LOST;
        d->answer = answer;
        d->done_at = time(NULL);
    } else {
        free(answer);
    }
    pthread_mutex_unlock(&rs->lock);
}

/* Whether who may read what owner made: the instructor of the server's
 * token reads all, a student or guest their own. (A launch's instructor,
 * limited to one class, reads its learners' records once they are in the
 * store, where the membership is known.) */
static bool may_read(const struct principal *who, const struct principal *owner)
{
    if (who->kind == PRINCIPAL_INSTRUCTOR && !principal_class_scope(who))
        return true;
    return who->kind != PRINCIPAL_NONE && owner->kind == who->kind && owner->id[0] &&
           !strcmp(owner->id, who->id);
}

enum detached_state records_detached_get(struct records *rs, const char *id,
                                         const struct principal *who, char **answer)
{
    enum detached_state st = DETACHED_UNKNOWN;
    *answer = NULL;
    pthread_mutex_lock(&rs->lock);
    struct detached *d = find_detached(rs, id);
    if (d && may_read(who, &d->owner)) {
        st = d->state;
        if (st == DETACHED_UNRECORDED)
            *answer = strdup(d->answer);
    }
    pthread_mutex_unlock(&rs->lock);
    return st;
}
