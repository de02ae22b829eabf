/*
 * class_feed.c - the live class view's thread and its event streams
 * (class_feed.h).
 *
 * Locks: f->lock guards the model, the list of streams and the queue of
 * ids; a stream's own mutex guards its buffer and whether its connection
 * is suspended. The order is always f->lock, then a stream's, then
 * libmicrohttpd's own (inside MHD_suspend/resume_connection), on every
 * thread, so no two threads wait on each other.
 *
 * A suspended connection is never timed out by libmicrohttpd and its
 * client's leaving is not seen: the heartbeat resumes every stream every
 * heartbeat_s, and the write of its comment to a gone client fails,
 * which closes the connection and frees the stream.
 */
#include "server/class/class_feed.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "common/defaults.h"
#include "server/core/sse.h"
#include "server/identity/records.h"
#include "store/store_class.h"
#include "store/store_lti.h"

#define ID_QUEUE_MAX 8192   /* committed records waiting for the feed's thread */

/* A record this instance committed, as the writer told it: what the
 * model keeps of it, so that the feed need not read it back. */
struct pending {
    struct pending *next;
    char id[STORE_ID_SIZE];
    char *student;              /* NULL: nobody signed in */
    char task[EX_ID_MAX + 1];   /* its exercise */
    int64_t received_ms, graded_ms;
    int status, points, max_points;
    bool late;                  /* as the insert marked it (store_record.late_out) */
    bool has_facts;             /* else the record is read from the store */
    struct verdict_shown facts;
    bool forget;                /* not a record: student was forgotten */
};

struct stream {
    pthread_mutex_t mu;
    struct MHD_Connection *conn;
    struct class_feed *f;
    char *buf;
    size_t len, off, cap;
    bool suspended;     /* by the reader, waiting for bytes */
    bool ended;         /* shutdown: finish once the buffer is sent */
    bool dead;          /* fell too far behind: close */
    char klass[STORE_ID_SIZE];   /* only this class's records; "": every record */
    struct stream *prev, *next;
};

struct class_feed {
    struct class_options o;
    pthread_mutex_t lock;
    struct class_model *m;
    struct stream *streams;
    unsigned nstreams;
    bool stopping;
    /* records from this instance's writer, oldest first */
    struct pending *qhead, *qtail;
    size_t qlen;
    bool overflow;          /* records were dropped: catch up from the store */
    bool forget_lost;       /* a forgotten student was dropped: read the class anew */
    bool quit;
    int wake;               /* eventfd */
    pthread_t thread;
    bool started;
    struct records *rs;     /* its store calls go to the records' reader */
    pthread_mutex_t call_mu;   /* a call on the reader's thread is done */
    pthread_cond_t call_cv;
    char *url;
    struct store_listener *listener;
    bool pg;
    bool loaded;            /* the class is read from the store */
    /* LTI, read by the thread every CLASS_LTI_REFRESH_MS and after a
     * launch (class_feed_lti_changed); NULL until read, and while the
     * store has no LTI tables (a server without --lti-config) */
    json_t *classes;        /* class_id -> { student id: true } of its learners */
    json_t *unsent;         /* student -> { failed, attempts, error } */
    json_t *rosters;        /* class_id -> its roster's last read (class_feed_summary) */
    uint64_t lti_asked, lti_read;   /* launches told, and the last one read after */
    json_t *nobody;         /* {}: the learners of a class not known */
};

/* The learners of class klass ("" or NULL: NULL, everyone), an empty
 * object for an unknown class (nobody). Under f->lock. */
static const json_t *members_of(struct class_feed *f, const char *klass)
{
    if (!klass || !*klass)
        return NULL;
    const json_t *m = f->classes ? json_object_get(f->classes, klass) : NULL;
    if (m)
        return m;
    if (!f->nobody)
        f->nobody = json_object();
    return f->nobody;   /* NULL only out of memory: then every student, never a crash */
}

/* Whether a stream of class klass is sent student's records. Under f->lock. */
static bool stream_wants(struct class_feed *f, const char *klass, const char *student)
{
    const json_t *m = members_of(f, klass);
    return !m || (student && json_object_get(m, student));
}

/* Adds the "score not sent" marker to one tile. Under f->lock. */
static void mark_unsent(struct class_feed *f, json_t *tile)
{
    const char *id = json_string_value(json_object_get(tile, "id"));
    json_t *u = f->unsent && id ? json_object_get(f->unsent, id) : NULL;
    json_object_set(tile, "score_not_sent", u ? u : json_null());
}

static int64_t now_ms(void)
{
    return store_now_ms();
}

static double mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

/* --- streams ----------------------------------------------------------------- */

/* Appends n bytes to s and wakes its connection. Under f->lock. */
static void stream_push(struct stream *s, const char *text, size_t n)
{
    pthread_mutex_lock(&s->mu);
    if (!s->dead && !s->ended) {
        if (s->off) {
            memmove(s->buf, s->buf + s->off, s->len - s->off);
            s->len -= s->off;
            s->off = 0;
        }
        if (s->len + n > CLASS_STREAM_BUFFER_MAX) {
            s->dead = true;   /* a view that does not read: closed, it reconnects */
        } else {
            if (s->len + n > s->cap) {
                size_t cap = s->cap ? s->cap : 4096;
                while (cap < s->len + n)
                    cap *= 2;
                char *b = realloc(s->buf, cap);
                if (!b) {
                    s->dead = true;
                } else {
                    s->buf = b;
                    s->cap = cap;
                }
            }
            if (!s->dead) {
                memcpy(s->buf + s->len, text, n);
                s->len += n;
            }
        }
    }
    if (s->suspended) {
        s->suspended = false;
        MHD_resume_connection(s->conn);
    }
    pthread_mutex_unlock(&s->mu);
}

/* libmicrohttpd's thread: the next bytes of the stream, or suspend. */
static ssize_t stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
    struct stream *s = cls;
    (void)pos;
    pthread_mutex_lock(&s->mu);
    if (s->dead) {
        pthread_mutex_unlock(&s->mu);
        return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    size_t avail = s->len - s->off;
    if (avail) {
        size_t n = avail < max ? avail : max;
        memcpy(out, s->buf + s->off, n);
        s->off += n;
        if (s->off == s->len)
            s->off = s->len = 0;
        pthread_mutex_unlock(&s->mu);
        return (ssize_t)n;
    }
    if (s->ended) {
        pthread_mutex_unlock(&s->mu);
        return MHD_CONTENT_READER_END_OF_STREAM;
    }
    /* nothing to send: wait, off this thread, for an event or a heartbeat */
    s->suspended = true;
    MHD_suspend_connection(s->conn);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

/* The response is gone (sent, or its connection closed). */
static void stream_free(void *cls)
{
    struct stream *s = cls;
    struct class_feed *f = s->f;
    pthread_mutex_lock(&f->lock);
    if (s->prev)
        s->prev->next = s->next;
    else
        f->streams = s->next;
    if (s->next)
        s->next->prev = s->prev;
    f->nstreams--;
    pthread_mutex_unlock(&f->lock);
    pthread_mutex_destroy(&s->mu);
    free(s->buf);
    free(s);
}

/* What a stream is told when it must read the class again. */
static const struct sse_event reset_event = { .event = "reset", .data = "{}" };

/* Writes "id: ID\nevent: record\ndata: JSON\n\n" of record i to mem:
 * the event id is the record's own. Under f->lock. */
static void event_text(struct class_feed *f, size_t i, int64_t now, FILE *mem)
{
    json_t *j = class_model_event(f->m, i, now);
    char *data = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (data)
        sse_put(mem, &(struct sse_event){ .id = class_model_record_id(f->m, i),
                                          .event = "record", .data = data });
    free(data);
}

/* The text of record k's event for a stream of class klass: a string
 * the caller frees, its length in *len; NULL with *len 0 for a record
 * the stream is not sent (or out of memory). Under f->lock. */
static char *event_for(struct class_feed *f, const char *klass, size_t k, int64_t now,
                       size_t *len)
{
    char *text = NULL;
    *len = 0;
    if (!stream_wants(f, klass, class_model_record_student(f->m, k)))
        return NULL;
    FILE *mem = open_memstream(&text, len);
    if (!mem)
        return NULL;
    event_text(f, k, now, mem);
    fclose(mem);
    if (!*len) {
        free(text);
        return NULL;
    }
    return text;
}

/* Writes to mem what a view of class klass missed since record after_id:
 * every record after it, then before them the records of the slack
 * (graded up to CLASS_REPLAY_SLACK_MS before it: another instance may
 * have ordered them after it), as many as fit, the nearest first. False,
 * with nothing written, when the view must reload instead: after_id is
 * not held, or what followed it is over CLASS_REPLAY_MAX_RECORDS records
 * or CLASS_REPLAY_MAX_BYTES. A replay longer than the stream's buffer
 * closed the stream before its first byte, and the view retried the same
 * id for ever: the bytes decide, not only the count. The slack never
 * forces a reset: a view that has just reloaded asks with the newest id,
 * whose slack can be the whole of a flood, and a reset then would reload
 * it again and again. Under f->lock. */
static bool replay(struct class_feed *f, const char *klass, const char *after_id, FILE *mem)
{
    long at = class_model_find(f->m, after_id);
    size_t n = class_model_count(f->m);
    if (at < 0 || n - (size_t)at - 1 > CLASS_REPLAY_MAX_RECORDS)
        return false;
    int64_t now = now_ms();
    /* what followed: all of it, or a reset */
    char *after = NULL;
    size_t nafter = 0;
    FILE *a = open_memstream(&after, &nafter);
    if (!a)
        return false;
    bool fits = true;
    for (size_t k = (size_t)at + 1; k < n && fits; k++) {
        size_t len;
        char *t = event_for(f, klass, k, now, &len);
        if (t && ftell(a) + (long)len > (long)CLASS_REPLAY_MAX_BYTES)
            fits = false;
        else if (t)
            fwrite(t, 1, len, a);
        free(t);
    }
    if (fclose(a) != 0 || !fits) {
        free(after);
        return false;
    }
    /* the slack, nearest first, into what the budget leaves: kept as
     * texts to be written oldest first (the look back is bounded by
     * class_model_replay_from) */
    size_t from = class_model_replay_from(f->m, (size_t)at, CLASS_REPLAY_SLACK_MS);
    size_t left = CLASS_REPLAY_MAX_BYTES - nafter, nslack = 0;
    char **slack = from < (size_t)at ? calloc((size_t)at - from, sizeof *slack) : NULL;
    for (size_t k = (size_t)at; slack && k > from; k--) {
        size_t len;
        char *t = event_for(f, klass, k - 1, now, &len);
        if (t && len > left) {
            free(t);
            break;
        }
        if (t) {
            slack[nslack++] = t;
            left -= len;
        }
    }
    for (size_t i = nslack; i > 0; i--) {
        fputs(slack[i - 1], mem);
        free(slack[i - 1]);
    }
    free(slack);
    fwrite(after, 1, nafter, mem);
    free(after);
    return true;
}

struct MHD_Response *class_feed_stream(struct class_feed *f, struct MHD_Connection *conn,
                                       const char *after_id, const char *klass,
                                       enum class_stream_open *why)
{
    struct stream *s = calloc(1, sizeof *s);
    if (!s) {
        *why = CLASS_STREAM_NO_MEMORY;
        return NULL;
    }
    snprintf(s->klass, sizeof s->klass, "%s", klass ? klass : "");
    pthread_mutex_init(&s->mu, NULL);
    s->conn = conn;
    s->f = f;
    struct MHD_Response *resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024,
                                                                  stream_read, s, stream_free);
    if (!resp) {
        pthread_mutex_destroy(&s->mu);
        free(s);
        *why = CLASS_STREAM_NO_MEMORY;
        return NULL;
    }
    /* the first bytes: the reconnect delay, then what was missed */
    char *first = NULL;
    size_t nfirst = 0;
    FILE *mem = open_memstream(&first, &nfirst);
    pthread_mutex_lock(&f->lock);
    *why = f->stopping ? CLASS_STREAM_STOPPING
         : f->nstreams >= f->o.max_streams ? CLASS_STREAM_FULL
         : mem ? CLASS_STREAM_OK : CLASS_STREAM_NO_MEMORY;
    if (*why == CLASS_STREAM_OK) {
        sse_put(mem, &(struct sse_event){ .retry_ms = 2000,
                                          .comment = "butterfly class events" });
        if (after_id && *after_id && !replay(f, s->klass, after_id, mem))
            sse_put(mem, &reset_event);
        fflush(mem);
        s->next = f->streams;
        if (f->streams)
            f->streams->prev = s;
        f->streams = s;
        f->nstreams++;
        stream_push(s, first, nfirst);
    }
    pthread_mutex_unlock(&f->lock);
    if (mem)
        fclose(mem);
    free(first);
    if (*why != CLASS_STREAM_OK) {
        /* destroying the response frees s through stream_free: link it
         * first so the unlink finds it */
        pthread_mutex_lock(&f->lock);
        s->next = f->streams;
        if (f->streams)
            f->streams->prev = s;
        f->streams = s;
        f->nstreams++;
        pthread_mutex_unlock(&f->lock);
        MHD_destroy_response(resp);
        return NULL;
    }
    return resp;
}

/* Writes text to every stream. Under f->lock. */
static void broadcast(struct class_feed *f, const char *text, size_t n)
{
    for (struct stream *s = f->streams; s; s = s->next)
        stream_push(s, text, n);
}

/* Writes the event of a record of student (NULL: nobody's) to every
 * stream of a class it is in. Under f->lock. */
static void broadcast_record(struct class_feed *f, const char *text, size_t n,
                             const char *student)
{
    for (struct stream *s = f->streams; s; s = s->next)
        if (stream_wants(f, s->klass, student))
            stream_push(s, text, n);
}

void class_feed_end_streams(struct class_feed *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&f->lock);
    f->stopping = true;
    for (struct stream *s = f->streams; s; s = s->next) {
        pthread_mutex_lock(&s->mu);
        s->ended = true;
        if (s->suspended) {
            s->suspended = false;
            MHD_resume_connection(s->conn);
        }
        pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_unlock(&f->lock);
}

bool class_feed_ready(struct class_feed *f)
{
    pthread_mutex_lock(&f->lock);
    bool ready = f->loaded;
    pthread_mutex_unlock(&f->lock);
    return ready;
}

unsigned class_feed_streams(struct class_feed *f)
{
    pthread_mutex_lock(&f->lock);
    unsigned n = f->nstreams;
    pthread_mutex_unlock(&f->lock);
    return n;
}

/* --- answers from memory ------------------------------------------------------ */

enum class_known class_feed_has_class(struct class_feed *f, const char *klass)
{
    pthread_mutex_lock(&f->lock);
    enum class_known k = f->classes && json_object_get(f->classes, klass) ? CLASS_KNOWN
                       : f->lti_asked != f->lti_read ? CLASS_PENDING : CLASS_UNKNOWN;
    pthread_mutex_unlock(&f->lock);
    return k;
}

void class_feed_lti_changed(struct class_feed *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&f->lock);
    f->lti_asked++;
    pthread_mutex_unlock(&f->lock);
    uint64_t one = 1;
    ssize_t w = write(f->wake, &one, sizeof one);
    (void)w;
}

json_t *class_feed_summary(struct class_feed *f, const char *klass, const char *task)
{
    pthread_mutex_lock(&f->lock);
    json_t *j = class_model_summary(f->m, members_of(f, klass), task, now_ms());
    if (j)
        json_object_set_new(j, "streams", json_integer(f->nstreams));
    /* a course's roster (NRPS): how its last read went; null when the
     * view is of no course, or its platform sent no roster's address */
    json_t *roster = klass && f->rosters ? json_object_get(f->rosters, klass) : NULL;
    if (j)
        json_object_set_new(j, "roster", roster ? json_deep_copy(roster) : json_null());
    pthread_mutex_unlock(&f->lock);
    return j;
}

json_t *class_feed_students(struct class_feed *f, const char *klass, const char *task)
{
    pthread_mutex_lock(&f->lock);
    json_t *j = class_model_students(f->m, members_of(f, klass), task, now_ms());
    json_t *a = json_object_get(j, "students");
    for (size_t i = 0; i < json_array_size(a); i++)
        mark_unsent(f, json_array_get(a, i));
    pthread_mutex_unlock(&f->lock);
    return j;
}

json_t *class_feed_tile(struct class_feed *f, const char *klass, const char *student)
{
    pthread_mutex_lock(&f->lock);
    json_t *j = stream_wants(f, klass, student) ? class_model_tile(f->m, student, now_ms())
                                                : NULL;
    if (j)
        mark_unsent(f, j);
    pthread_mutex_unlock(&f->lock);
    return j;
}

bool class_feed_in_class(struct class_feed *f, const char *klass, const char *student)
{
    if (!f || !klass || !*klass || !student || !*student)
        return false;
    pthread_mutex_lock(&f->lock);
    const json_t *m = f->classes ? json_object_get(f->classes, klass) : NULL;
    bool in = m && json_object_get(m, student);
    pthread_mutex_unlock(&f->lock);
    return in;
}

char *class_feed_gradebook_csv(struct class_feed *f, const char *klass, size_t *len)
{
    pthread_mutex_lock(&f->lock);
    char *t = class_model_gradebook_csv(f->m, members_of(f, klass), len);
    pthread_mutex_unlock(&f->lock);
    return t;
}

json_t *class_feed_members(struct class_feed *f, const char *klass, bool *oom)
{
    *oom = false;
    if (!klass || !*klass)
        return NULL;
    pthread_mutex_lock(&f->lock);
    const json_t *m = members_of(f, klass);
    json_t *copy = m ? json_deep_copy(m) : NULL;
    pthread_mutex_unlock(&f->lock);
    *oom = copy == NULL;
    return copy;
}

/* --- the feed's thread ---------------------------------------------------------- */

static void pending_free(struct pending *e)
{
    if (e)
        free(e->student);
    free(e);
}

/* Appends e to the feed's queue (under f->lock), when it has room: false
 * when full (the caller marks what the next catch-up must find). */
static bool enqueue(struct class_feed *f, struct pending *e)
{
    if (f->qlen >= ID_QUEUE_MAX)
        return false;
    if (f->qtail)
        f->qtail->next = e;
    else
        f->qhead = e;
    f->qtail = e;
    f->qlen++;
    return true;
}


void class_feed_committed(struct class_feed *f, const struct store_record *r,
                          const struct verdict_shown *facts)
{
    struct pending *e = calloc(1, sizeof *e);
    if (e) {
        snprintf(e->id, sizeof e->id, "%s", r->id);
        e->student = r->student ? strdup(r->student) : NULL;
        snprintf(e->task, sizeof e->task, "%s", r->task ? r->task : "");
        e->received_ms = r->received_ms;
        e->graded_ms = r->graded_ms;
        e->status = r->status;
        e->points = r->points;
        e->max_points = r->max_points;
        e->late = r->late;
        e->has_facts = facts != NULL;
        if (facts)
            e->facts = *facts;
        if (r->student && !e->student) {
            pending_free(e);
            e = NULL;
        }
    }
    pthread_mutex_lock(&f->lock);
    if (e && enqueue(f, e)) {
        e = NULL;
    } else {
        f->overflow = true;   /* found by the next catch-up */
    }
    pthread_mutex_unlock(&f->lock);
    pending_free(e);
    uint64_t one = 1;
    ssize_t w = write(f->wake, &one, sizeof one);
    (void)w;   /* a full counter still wakes the thread */
}

void class_feed_forgotten(struct class_feed *f, const char *student)
{
    struct pending *e = calloc(1, sizeof *e);
    if (e && !(e->student = strdup(student))) {
        free(e);
        e = NULL;
    }
    if (e)
        e->forget = true;
    pthread_mutex_lock(&f->lock);
    /* in the queue's order: a record of theirs committed before the
     * forget is added first, then goes with them */
    if (e && enqueue(f, e)) {
        e = NULL;
    } else {
        f->forget_lost = true;
    }
    pthread_mutex_unlock(&f->lock);
    pending_free(e);
    uint64_t one = 1;
    ssize_t w = write(f->wake, &one, sizeof one);
    (void)w;
}

/* --- the store, through the records' reader ---------------------------------- */

/* One piece of work for the reader's thread, waited for here: the feed
 * opens no store connection of its own (the records' two serve the whole
 * server, see server/records.c). */
struct feed_call {
    struct class_feed *f;
    void (*fn)(struct class_feed *f, struct store *s, void *arg);
    void *arg;
    bool done;
};

static void feed_call_run(struct store *s, void *arg)
{
    struct feed_call *c = arg;
    c->fn(c->f, s, c->arg);
    pthread_mutex_lock(&c->f->call_mu);
    c->done = true;
    pthread_cond_broadcast(&c->f->call_cv);
    pthread_mutex_unlock(&c->f->call_mu);
}

/* Runs fn(f, store, arg) on the reader's thread and waits for it (each
 * of its calls is bounded by the store's busy and statement timeouts).
 * False when the records refuse it (their queue full, or stopping). */
static bool on_store(struct class_feed *f, void (*fn)(struct class_feed *, struct store *,
                                                      void *), void *arg)
{
    struct feed_call c = { f, fn, arg, false };
    if (!records_read(f->rs, feed_call_run, &c))
        return false;
    pthread_mutex_lock(&f->call_mu);
    while (!c.done)
        pthread_cond_wait(&f->call_cv, &f->call_mu);
    pthread_mutex_unlock(&f->call_mu);
    return true;
}

/* What a new record's read brings back. */
struct learnt {
    const char *id;             /* the record to read; NULL: only the student */
    const char *student;        /* with id NULL: the student to read */
    enum store_status status;
    struct store_record rec;
    struct store_student student_row;
    bool has_student;
};

static void learn_call(struct class_feed *f, struct store *s, void *arg)
{
    struct learnt *l = arg;
    const char *student = l->student;
    if (l->id) {
        l->status = store_record_get(s, l->id, NULL, true, &l->rec, NULL);
        if (l->status != STORE_OK)
            return;
        student = l->rec.student;
    } else {
        l->status = STORE_OK;
    }
    if (!student)
        return;
    pthread_mutex_lock(&f->lock);
    bool known = class_model_has_student(f->m, student);
    pthread_mutex_unlock(&f->lock);
    if (!known)
        l->has_student = store_student_get(s, student, &l->student_row, NULL) == STORE_OK;
}

/* Adds record r to the model (facts: what its verdict shows; NULL: read
 * from r's verdict) and sends its event; a student read with it first. */
static void add_and_send(struct class_feed *f, const struct store_record *r,
                         const struct verdict_shown *facts, const struct store_student *st)
{
    char *text = NULL;
    size_t n = 0;
    pthread_mutex_lock(&f->lock);
    if (st)
        class_model_put_student(f->m, st->id, st->name, st->section, st->verified);
    long i = facts ? class_model_add_facts(f->m, r, facts) : class_model_add(f->m, r);
    /* with no view open, no event is written (a view that opens later
     * asks for a replay, made from the model) */
    if (i >= 0 && f->streams) {
        FILE *mem = open_memstream(&text, &n);
        if (mem) {
            event_text(f, (size_t)i, now_ms(), mem);
            fclose(mem);
            broadcast_record(f, text, n, r->student);
        }
    }
    pthread_mutex_unlock(&f->lock);
    free(text);
}

/* Record id is committed somewhere: read it, add it, send its event. */
static void learn(struct class_feed *f, const char *id)
{
    pthread_mutex_lock(&f->lock);
    bool have = class_model_has_record(f->m, id);
    pthread_mutex_unlock(&f->lock);
    if (have)
        return;
    struct learnt l = { .id = id, .status = STORE_UNAVAILABLE };
    if (on_store(f, learn_call, &l) && l.status == STORE_OK)
        add_and_send(f, &l.rec, NULL, l.has_student ? &l.student_row : NULL);
    store_record_clear(&l.rec);
    store_student_clear(&l.student_row);
}

/* A record this instance committed: added from what the writer told,
 * with no read of the record (only of its student, the first time). */
static void learn_committed(struct class_feed *f, const struct pending *e)
{
    if (!e->has_facts) {
        learn(f, e->id);
        return;
    }
    pthread_mutex_lock(&f->lock);
    bool have = class_model_has_record(f->m, e->id);
    bool known = !e->student || class_model_has_student(f->m, e->student);
    pthread_mutex_unlock(&f->lock);
    if (have)
        return;
    struct learnt l = { .student = e->student, .status = STORE_UNAVAILABLE };
    if (!known)
        on_store(f, learn_call, &l);   /* unread: the tile says "(unknown)" */
    struct store_record r = {
        .task = (char *)e->task, .student = e->student, .received_ms = e->received_ms,
        .graded_ms = e->graded_ms,
        .status = e->status, .points = e->points, .max_points = e->max_points,
        .late = e->late,
    };
    snprintf(r.id, sizeof r.id, "%s", e->id);
    add_and_send(f, &r, &e->facts, l.has_student ? &l.student_row : NULL);
    store_student_clear(&l.student_row);
}

/* Student was forgotten: their tile and records leave the model, and
 * every view is told to read the class again (the page does so on a
 * reset), so the tile, the counts and the roster lose them at once. */
static void forget_one(struct class_feed *f, const char *student)
{
    pthread_mutex_lock(&f->lock);
    if (class_model_forget(f->m, student)) {
        char reset[64];
        size_t n = sse_format(reset, sizeof reset, &reset_event);
        if (n)
            broadcast(f, reset, n);
    }
    pthread_mutex_unlock(&f->lock);
}

/* Which students were forgotten is not known (the queue was full, or out
 * of memory): the class is read anew into a fresh model (the views get
 * a reset). The old model stays when no new one can be made. */
static enum store_status catch_up(struct class_feed *f, bool initial, struct store_error *e);

static void reread(struct class_feed *f)
{
    struct class_model *fresh = class_model_new(&f->o.stuck);
    if (!fresh)
        return;
    pthread_mutex_lock(&f->lock);
    struct class_model *old = f->m;
    f->m = fresh;
    pthread_mutex_unlock(&f->lock);
    class_model_free(old);
    catch_up(f, false, NULL);
}

/* A notice from another instance (the listener's callback). */
static void heard(const char *id, void *arg)
{
    learn(arg, id);
}

static bool load_student(const struct store_student *st, void *arg)
{
    struct class_feed *f = arg;
    pthread_mutex_lock(&f->lock);
    class_model_put_student(f->m, st->id, st->name, st->section, st->verified);
    pthread_mutex_unlock(&f->lock);
    return true;
}

static bool load_record(const struct store_class_row *r, void *arg)
{
    struct class_feed *f = arg;
    pthread_mutex_lock(&f->lock);
    class_model_add_row(f->m, r);
    pthread_mutex_unlock(&f->lock);
    return true;
}

static void load_call(struct class_feed *f, struct store *s, void *arg)
{
    struct store_error *e = arg;
    if (store_students_each(s, load_student, f, e) == STORE_OK)
        store_class_rows(s, load_record, f, e);
}

/* Reads what the model lacks from the store: at start, and after ids
 * were lost (the queue full, the listener's connection broken). Records
 * found this way are added without an event; views get a reset. */
static enum store_status catch_up(struct class_feed *f, bool initial, struct store_error *e)
{
    struct store_error mine = { 0 };
    if (!e)
        e = &mine;
    e->status = STORE_UNAVAILABLE;
    snprintf(e->message, sizeof e->message, "the records' queue refused the read");
    if (on_store(f, load_call, e) && e->status == STORE_OK)
        e->message[0] = '\0';
    pthread_mutex_lock(&f->lock);
    class_model_sort(f->m);
    if (!initial) {
        char reset[64];
        size_t n = sse_format(reset, sizeof reset, &reset_event);
        if (n)
            broadcast(f, reset, n);
    }
    pthread_mutex_unlock(&f->lock);
    return e->status;
}

/* --- LTI: the classes, their learners, the scores not sent ------------------- */

struct lti_read {
    json_t *classes, *unsent, *rosters;
    /* the learners the model has no tile of (a roster's, never launched,
     * or launched with no record yet): read here, put in under the lock */
    struct store_student *fresh;
    size_t nfresh;
    bool ok;
};

static bool lti_member(const char *klass, const char *student, void *arg)
{
    struct lti_read *r = arg;
    json_t *m = json_object_get(r->classes, klass);
    if (!m) {
        m = json_object();
        json_object_set_new(r->classes, klass, m);
    }
    if (m && student)
        json_object_set_new(m, student, json_true());
    return true;
}

static bool lti_unsent(const struct store_lti_unsent *u, void *arg)
{
    struct lti_read *r = arg;
    json_t *had = json_object_get(r->unsent, u->student);
    /* a student unsent on two line items: failed for good wins */
    if (!had || (u->failed && !json_is_true(json_object_get(had, "failed"))))
        json_object_set_new(r->unsent, u->student,
                            json_pack("{s:b, s:s, s:i, s:s}", "failed", u->failed, "state",
                                      u->failed ? "failed" : "retrying", "attempts",
                                      u->attempts, "error", u->error));
    return true;
}

static const char *const roster_states[] = { "waiting", "read", "partial", "refused" };

static bool lti_roster(const struct store_lti_roster *x, void *arg)
{
    struct lti_read *r = arg;
    unsigned k = (unsigned)x->state < 4 ? (unsigned)x->state : 3;
    json_object_set_new(r->rosters, x->class_id,
                        json_pack("{s:s, s:s, s:I, s:o}", "state", roster_states[k],
                                  "message", x->message, "learners", (json_int_t)x->learners,
                                  "read_ms", x->read_ms ? json_integer(x->read_ms)
                                                        : json_null()));
    return true;
}

/* Reads the students of the classes' learners the model lacks into r. */
static void lti_fresh_students(struct class_feed *f, struct store *s, struct lti_read *r)
{
    const char *klass, *student;
    json_t *m, *v;
    size_t cap = 0;
    json_object_foreach(r->classes, klass, m) {
        json_object_foreach(m, student, v) {
            pthread_mutex_lock(&f->lock);
            bool known = class_model_has_student(f->m, student);
            pthread_mutex_unlock(&f->lock);
            bool twice = false;
            for (size_t i = 0; !known && i < r->nfresh && !twice; i++)
                twice = !strcmp(r->fresh[i].id, student);
            if (known || twice)
                continue;
            if (r->nfresh == cap) {
                size_t ncap = cap ? cap * 2 : 16;
                struct store_student *g = realloc(r->fresh, ncap * sizeof *g);
                if (!g)
                    return;
                r->fresh = g;
                cap = ncap;
            }
            if (store_student_get(s, student, &r->fresh[r->nfresh], NULL) == STORE_OK)
                r->nfresh++;
        }
    }
}

static void lti_call(struct class_feed *f, struct store *s, void *arg)
{
    struct lti_read *r = arg;
    /* any failure (most often: no LTI tables, a server without
     * --lti-config) reads as "no LTI": no classes, no markers */
    r->ok = r->classes && r->unsent && r->rosters &&
            store_lti_members_each(s, lti_member, r, NULL) == STORE_OK &&
            store_lti_unsent_each(s, lti_unsent, r, NULL) == STORE_OK &&
            store_lti_rosters_each(s, lti_roster, r, NULL) == STORE_OK;
    if (r->ok)
        lti_fresh_students(f, s, r);
}

/* Reads the LTI classes and the scores not sent, and keeps them. */
static void lti_refresh(struct class_feed *f)
{
    pthread_mutex_lock(&f->lock);
    uint64_t asked = f->lti_asked;
    pthread_mutex_unlock(&f->lock);
    struct lti_read r = { json_object(), json_object(), json_object(), NULL, 0, false };
    if (!on_store(f, lti_call, &r))
        r.ok = false;
    pthread_mutex_lock(&f->lock);
    /* a learner with no record yet gets a tile: silent until they try */
    for (size_t i = 0; r.ok && i < r.nfresh; i++) {
        const struct store_student *st = &r.fresh[i];
        class_model_put_student(f->m, st->id, st->name, st->section, st->verified);
    }
    json_decref(f->classes);
    json_decref(f->unsent);
    json_decref(f->rosters);
    f->classes = r.ok ? r.classes : NULL;
    f->unsent = r.ok ? r.unsent : NULL;
    f->rosters = r.ok ? r.rosters : NULL;
    f->lti_read = asked;
    pthread_mutex_unlock(&f->lock);
    for (size_t i = 0; i < r.nfresh; i++)
        store_student_clear(&r.fresh[i]);
    free(r.fresh);
    if (!r.ok) {
        json_decref(r.classes);
        json_decref(r.unsent);
        json_decref(r.rosters);
    }
}

static void heartbeat(struct class_feed *f)
{
    char beat[32];
    size_t n = sse_format(beat, sizeof beat, &(struct sse_event){ .comment = "heartbeat" });
    pthread_mutex_lock(&f->lock);
    if (n)
        broadcast(f, beat, n);
    pthread_mutex_unlock(&f->lock);
}

/* Reads the class from the store, again every CLASS_LISTEN_RETRY_S while
 * the store fails; false when told to quit first. */
static bool load(struct class_feed *f)
{
    for (;;) {
        double t0 = mono_ms();
        struct store_error e = { 0 };
        if (catch_up(f, true, &e) == STORE_OK) {
            pthread_mutex_lock(&f->lock);
            f->loaded = true;
            size_t n = class_model_count(f->m);
            pthread_mutex_unlock(&f->lock);
            fprintf(stderr, "butterfly-server: class view: %zu records loaded in %.1f s\n", n,
                    (mono_ms() - t0) / 1000.0);
            return true;
        }
        fprintf(stderr, "butterfly-server: class view: the records cannot be read (%s); "
                        "trying again\n", e.message);
        for (unsigned waited = 0; waited < CLASS_LISTEN_RETRY_S * 10; waited++) {
            pthread_mutex_lock(&f->lock);
            bool quit = f->quit;
            pthread_mutex_unlock(&f->lock);
            if (quit)
                return false;
            usleep(100000);
        }
    }
}

static void *feed_main(void *arg)
{
    struct class_feed *f = arg;
    /* the class is read here, not at start: a big class does not hold the
     * server's start, and the views wait (503 "loading") meanwhile */
    if (!load(f))
        return NULL;
    double next_beat = mono_ms() + f->o.heartbeat_s * 1000.0;
    double next_listen = 0;
    lti_refresh(f);
    double next_lti = mono_ms() + CLASS_LTI_REFRESH_MS;
    for (;;) {
        struct pollfd p[2] = { { .fd = f->wake, .events = POLLIN },
                               { .fd = store_listener_fd(f->listener), .events = POLLIN } };
        double now = mono_ms();
        double until = next_beat - now;
        if (f->pg && !f->listener && next_listen - now < until)
            until = next_listen - now;
        if (next_lti - now < until)
            until = next_lti - now;
        int timeout = until < 0 ? 0 : (int)until + 1;
        int np = p[1].fd >= 0 ? 2 : 1;
        if (poll(p, (nfds_t)np, timeout) < 0 && errno != EINTR)
            usleep(10000);
        if (p[0].revents & POLLIN) {
            uint64_t v;
            ssize_t r = read(f->wake, &v, sizeof v);
            (void)r;
        }
        /* this instance's commits (with PostgreSQL, the other instances
         * hear of them from the insert's own NOTIFY) */
        for (;;) {
            pthread_mutex_lock(&f->lock);
            bool quit = f->quit, over = f->overflow, lost = f->forget_lost;
            struct pending *e = f->qhead;
            f->overflow = f->forget_lost = false;
            if (e) {
                f->qhead = e->next;
                if (!f->qhead)
                    f->qtail = NULL;
                f->qlen--;
            }
            pthread_mutex_unlock(&f->lock);
            if (quit) {
                pending_free(e);
                return NULL;
            }
            if (lost)
                reread(f);
            else if (over)
                catch_up(f, false, NULL);
            if (!e)
                break;
            if (e->forget)
                forget_one(f, e->student);
            else
                learn_committed(f, e);
            pending_free(e);
        }
        /* the other instances' commits */
        if (f->listener && np == 2 && (p[1].revents & (POLLIN | POLLERR | POLLHUP))) {
            if (store_listener_drain(f->listener, heard, f, NULL) != STORE_OK) {
                store_listener_close(f->listener);
                f->listener = NULL;
                next_listen = mono_ms() + CLASS_LISTEN_RETRY_S * 1000.0;
            }
        }
        if (f->pg && !f->listener && mono_ms() >= next_listen) {
            if (store_listener_open(f->url, &f->listener, NULL) == STORE_OK)
                catch_up(f, false, NULL);   /* what came while deaf */
            else
                next_listen = mono_ms() + CLASS_LISTEN_RETRY_S * 1000.0;
        }
        pthread_mutex_lock(&f->lock);
        bool launched = f->lti_asked != f->lti_read;
        pthread_mutex_unlock(&f->lock);
        if (launched || mono_ms() >= next_lti) {
            lti_refresh(f);
            next_lti = mono_ms() + CLASS_LTI_REFRESH_MS;
        }
        if (mono_ms() >= next_beat) {
            heartbeat(f);
            next_beat = mono_ms() + f->o.heartbeat_s * 1000.0;
        }
    }
}

struct class_feed *class_feed_start(struct records *rs, const char *url,
                                    const struct class_options *o, char *err, size_t errsz)
{
    struct class_feed *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    f->o = *o;
    f->rs = rs;
    f->wake = -1;
    pthread_mutex_init(&f->lock, NULL);
    pthread_mutex_init(&f->call_mu, NULL);
    pthread_cond_init(&f->call_cv, NULL);
    struct store_error e = { 0 };
    f->m = class_model_new(&o->stuck);
    f->url = strdup(url);
    f->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (!f->m || !f->url || f->wake < 0) {
        snprintf(err, errsz, "the class view cannot start: out of memory or descriptors");
        goto fail;
    }
    f->pg = store_kind_of_url(url) == STORE_KIND_POSTGRES;
    if (f->pg && store_listener_open(url, &f->listener, &e) != STORE_OK) {
        snprintf(err, errsz, "the class view cannot listen: %s", e.message);
        goto fail;
    }
    if (pthread_create(&f->thread, NULL, feed_main, f) != 0) {
        snprintf(err, errsz, "the class view's thread cannot start");
        goto fail;
    }
    f->started = true;
    return f;
fail:
    class_feed_free(f, 0);
    return NULL;
}

void class_feed_free(struct class_feed *f, unsigned wait_ms)
{
    if (!f)
        return;
    class_feed_end_streams(f);
    for (unsigned waited = 0; waited < wait_ms && class_feed_streams(f); waited += 10)
        usleep(10000);
    if (f->started) {
        pthread_mutex_lock(&f->lock);
        f->quit = true;
        pthread_mutex_unlock(&f->lock);
        uint64_t one = 1;
        ssize_t w = write(f->wake, &one, sizeof one);
        (void)w;
        pthread_join(f->thread, NULL);
    }
    store_listener_close(f->listener);
    if (f->wake >= 0)
        close(f->wake);
    class_model_free(f->m);
    json_decref(f->rosters);
    json_decref(f->classes);
    json_decref(f->unsent);
    json_decref(f->nobody);
    while (f->qhead) {
        struct pending *e = f->qhead;
        f->qhead = e->next;
        pending_free(e);
    }
    free(f->url);
    pthread_mutex_destroy(&f->lock);
    pthread_mutex_destroy(&f->call_mu);
    pthread_cond_destroy(&f->call_cv);
    free(f);
}
