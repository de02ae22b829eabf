/*
 * class_feed.h - the live class view's engine: a thread that learns of every committed record (from this
 * instance's writer, and with PostgreSQL from every instance over
 * LISTEN/NOTIFY), keeps the class in memory (class_model.h), and writes
 * each record's event to every open Server-Sent Events stream.
 *
 * Threads. class_feed_committed is called on the records writer's
 * thread and only queues what the view keeps of the record. The stream's reader runs on
 * libmicrohttpd's thread and never waits: with nothing to send it
 * suspends the connection, and the feed resumes it when an event or a
 * heartbeat is written. The summary and roster answers are made from
 * memory under the feed's lock (no store call).
 */
#ifndef BUTTERFLY_CLASS_FEED_H
#define BUTTERFLY_CLASS_FEED_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdbool.h>

#include "server/class/class_model.h"
#include "server/identity/records.h"

struct class_options {
    unsigned max_streams;          /* live streams at once; refused past it */
    unsigned heartbeat_s;          /* a comment on every stream this often */
    struct class_thresholds stuck;
};

struct class_feed;

/* Starts the thread (and, when url is PostgreSQL's, a listener
 * connection), which first loads the class (class_feed_ready). Every
 * store call goes through rs's reader (records_read): no connection of
 * its own. NULL with a reason in err. */
struct class_feed *class_feed_start(struct records *rs, const char *url,
                                    const struct class_options *o, char *err, size_t errsz);

/* Record r is committed in this instance's store (any thread; never
 * blocks: a record the bounded queue cannot take is found by the next
 * catch-up). What the view keeps of r is copied: with facts (what its
 * verdict shows, as the worker sent it: common/verdict_facts.h), the
 * record is not read back from the store; without, it is. */
void class_feed_committed(struct class_feed *f, const struct store_record *r,
                          const struct verdict_shown *facts);

/* Student was forgotten (records_on_forgotten: any thread; never blocks):
 * the feed's thread removes them from the class and sends every view a
 * reset. */
void class_feed_forgotten(struct class_feed *f, const char *student);

enum class_stream_open { CLASS_STREAM_OK, CLASS_STREAM_FULL, CLASS_STREAM_STOPPING,
                         CLASS_STREAM_NO_MEMORY };

/*
 * A response that streams events to conn, starting with what followed
 * record after_id (NULL or "": only new ones; an id the view does not
 * hold: a "reset" event, so the page reloads). Sets *why and answers NULL
 * when refused.
 */
struct MHD_Response *class_feed_stream(struct class_feed *f, struct MHD_Connection *conn,
                                       const char *after_id, const char *klass,
                                       enum class_stream_open *why);

/*
 * The answers of the class routes, from memory (new references). klass:
 * an LTI class id (lti_classes.class_id), only its learners; NULL or "":
 * every student (the roster, an open lab). A tile carries score_not_sent
 * (null, or {failed, state, attempts, error}) from the LTI outbox.
 */
json_t *class_feed_summary(struct class_feed *f, const char *klass, const char *task);
json_t *class_feed_students(struct class_feed *f, const char *klass, const char *task);
json_t *class_feed_tile(struct class_feed *f, const char *klass, const char *student);
char *class_feed_gradebook_csv(struct class_feed *f, const char *klass, size_t *len);

/* Whether student is a learner of the LTI class klass, as the feed read
 * the membership last; false for "" or NULL, and when not known. */
bool class_feed_in_class(struct class_feed *f, const char *klass, const char *student);

/* The ids of class klass's students as a new JSON object (its keys), for
 * a reader that walks the store; NULL for every student (klass NULL or
 * "") or on OOM (*oom then set). */
json_t *class_feed_members(struct class_feed *f, const char *klass, bool *oom);

/* Whether klass is an LTI class the feed knows (read from the store on
 * its thread every CLASS_LTI_REFRESH_MS and after each launch). */
enum class_known { CLASS_KNOWN, CLASS_UNKNOWN, CLASS_PENDING /* a launch not read yet */ };
enum class_known class_feed_has_class(struct class_feed *f, const char *klass);

/* A launch may have made a class or a member: the thread reads them
 * again now (any thread; never blocks on the store). Accepts NULL. */
void class_feed_lti_changed(struct class_feed *f);

/* Whether the class is loaded from the store (the thread reads it after
 * the start); until then the class routes answer 503 "loading". */
bool class_feed_ready(struct class_feed *f);

/* Live streams now. */
unsigned class_feed_streams(struct class_feed *f);

/* Ends every stream (each is resumed and finishes), stops taking new
 * ones; the thread keeps running until class_feed_free. */
void class_feed_end_streams(struct class_feed *f);

/* Waits (at most wait_ms) for the streams to be gone, stops the thread,
 * closes the store and frees f. Accepts NULL. */
void class_feed_free(struct class_feed *f, unsigned wait_ms);

#endif
