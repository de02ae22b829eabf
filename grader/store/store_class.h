/*
 * store_class.h - what the live class view needs of the store beyond the
 * records: hearing that another instance of the class committed a record
 * (PostgreSQL's LISTEN; the telling is the insert's own: every record
 * store_records_insert writes is announced with pg_notify on
 * STORE_CLASS_CHANNEL in its transaction, so it is heard at the commit
 * and only if it commits).
 *
 * SQLite serves one instance: there no notice is sent and a listener
 * cannot be opened (STORE_UNSUPPORTED).
 *
 * A listener is its own libpq connection, apart from any struct store,
 * so that a thread can wait on its socket while the store's connections
 * write and read. Payloads are record ids (hex), checked for shape.
 */
#ifndef BUTTERFLY_STORE_CLASS_H
#define BUTTERFLY_STORE_CLASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* The channel every instance of a class listens on. */
#define STORE_CLASS_CHANNEL "butterfly_records"

/* What the class view keeps of a record, read without its source and
 * its verdict: the verdict's few facts it shows are columns of their own,
 * written at insert (store_record.shown): valid during the callback. */
struct store_class_row {
    const char *id;
    const char *task;           /* its exercise's id (NULL: none kept) */
    const char *student;        /* NULL: nobody signed in */
    int64_t received_ms, graded_ms;
    int status, points, max_points;
    bool late;                  /* after its due date (store_record.late) */
    struct verdict_shown shown; /* as the worker sent them (a record of an older
                                 * store: as its migration read them, once) */
};

/*
 * Calls fn for every record, by graded_ms then id, in one read
 * transaction; fn returns false to stop. What the class view loads at
 * start: about a tenth of the bytes of store_records_each, and no
 * verdict read at all.
 */
enum store_status store_class_rows(struct store *s,
                                   bool (*fn)(const struct store_class_row *r, void *arg),
                                   void *arg, struct store_error *err);

struct store_listener;

/* Opens a listener on url (postgresql://... only; else STORE_UNSUPPORTED)
 * and LISTENs on STORE_CLASS_CHANNEL. *out is NULL on failure. */
enum store_status store_listener_open(const char *url, struct store_listener **out,
                                      struct store_error *err);

/* Its socket, to poll for reading; -1 when the connection is lost (call
 * store_listener_reconnect). */
int store_listener_fd(const struct store_listener *l);

/*
 * Reads what arrived on the socket and calls fn(id, arg) for every record
 * id notified (ids of the wrong shape are dropped). STORE_UNAVAILABLE
 * when the connection broke: reconnect, then replay what was missed from
 * the store (the caller's business: notices sent meanwhile are lost).
 */
enum store_status store_listener_drain(struct store_listener *l,
                                       void (*fn)(const char *id, void *arg), void *arg,
                                       struct store_error *err);

/* Makes the connection again and LISTENs again. */
enum store_status store_listener_reconnect(struct store_listener *l, struct store_error *err);

/* Closes the connection and frees l. Accepts NULL. */
void store_listener_close(struct store_listener *l);

#endif
