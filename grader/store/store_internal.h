/*
 * store_internal.h - what the backends share with store.c.
 *
 * store.c writes every query once, as SQL text with numbered parameters
 * (?1, ?2, ...) and bound values only; a backend runs it (PostgreSQL
 * reads ?N as $N) and hands each row back as values. So the queries, the
 * checks and the transactions are the same on both backends, and a
 * backend is only a connection, its error codes and its types.
 */
#ifndef BUTTERFLY_STORE_INTERNAL_H
#define BUTTERFLY_STORE_INTERNAL_H

/* Columns of a row a query hands its callback; more are not read. */
#define STORE_MAX_COLUMNS 24

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "store/store.h"

enum store_value_type { SV_NULL, SV_INT, SV_TEXT, SV_BLOB };

/* A bound parameter or a column of a row: p points into the caller's
 * memory (a parameter) or the backend's (a row, valid during the call). */
struct store_value {
    enum store_value_type type;
    int64_t i;
    const char *p;
    size_t len;
};

static inline struct store_value sv_int(int64_t i)
{
    return (struct store_value){ .type = SV_INT, .i = i };
}

/* A text parameter; NULL binds SQL NULL. */
static inline struct store_value sv_text(const char *s)
{
    return s ? (struct store_value){ .type = SV_TEXT, .p = s, .len = strlen(s) }
             : (struct store_value){ .type = SV_NULL };
}

static inline struct store_value sv_bytes(const char *p, size_t n)
{
    return (struct store_value){ .type = SV_BLOB, .p = p, .len = n };
}

/* Receives one row of n columns; returns false to stop the query. */
typedef bool (*store_row_fn)(const struct store_value *cols, size_t n, void *arg);

struct store_ops {
    /* Runs sql with the n parameters; calls row (may be NULL) for each
     * row; *changes (may be NULL) gets the rows an INSERT, UPDATE or
     * DELETE touched. A statement list without parameters (the schema)
     * when n is 0 and multi is set. */
    enum store_status (*exec)(struct store *s, const char *sql, bool multi,
                              const struct store_value *params, size_t n, store_row_fn row,
                              void *arg, uint64_t *changes, struct store_error *err);
    /* Begins a transaction: write takes the write lock at once (SQLite's
     * BEGIN IMMEDIATE); a read sees one snapshot. */
    enum store_status (*begin)(struct store *s, bool write, struct store_error *err);
    enum store_status (*commit)(struct store *s, struct store_error *err);
    /* Rolls back what is open, if anything; never fails loudly. */
    void (*rollback)(struct store *s);
    /* Makes sure there is a working connection (reconnects after a
     * failure that left none). */
    enum store_status (*connect)(struct store *s, struct store_error *err);
    /* Serialises schema changes between processes (PostgreSQL: an
     * advisory lock inside the transaction; SQLite: BEGIN IMMEDIATE does). */
    enum store_status (*lock_schema)(struct store *s, struct store_error *err);
    enum store_status (*backup)(struct store *s, const char *path, struct store_error *err);
    void (*close)(struct store *s);
    /* The schema of each version in this backend's dialect. */
    const char *const *migrations;
    /* A query of one parameter, a table's name, answering one row, one
     * integer: 1 when the table exists (in the store's schema). */
    const char *has_table;
    /* How a record is inserted: RECORD_INSERT (store.c) with the 14
     * record's columns as ?1..?14, the class view's facts as ?15..?19,
     * and STORE_CLASS_CHANNEL as ?20 where the backend tells the other
     * instances in the same statement (notifies_class). */
    const char *insert_record;
    bool notifies_class;
    /* A query without parameters answering one row, one integer: the
     * bytes the store's data takes now (store_size). */
    const char *size_bytes;
    /* A statement outside a transaction is one, committed (durably, as a
     * COMMIT is) before its answer comes: one record's insert needs no
     * BEGIN and COMMIT, two round trips to a server (PostgreSQL). */
    bool statement_is_transaction;
};

struct store {
    const struct store_ops *ops;
    enum store_kind kind;
    pid_t pid;                  /* the process that opened it */
    int version;                /* schema version after the migrations */
    char *url;                  /* as given */
    char *display_url;          /* password hidden */
    void *backend;              /* the backend's own state */
};

extern const struct store_ops store_sqlite_ops;
extern const struct store_ops store_pg_ops;

/* Opens the backend's connection for url (after "sqlite:" for SQLite),
 * setting s->backend. */
enum store_status store_sqlite_open(struct store *s, const char *path, struct store_error *err);
enum store_status store_pg_open(struct store *s, const char *url, struct store_error *err);

/* Fills err (may be NULL) with status and a formatted sentence; returns status. */
enum store_status store_fail(struct store_error *err, enum store_status status, const char *fmt,
                             ...) __attribute__((format(printf, 3, 4)));

/* What every store call checks first: s is open, and this process's (a
 * store is never used across fork); reconnects when the backend must.
 * STORE_INVALID for NULL. */
enum store_status store_ready(struct store *s, struct store_error *err);

/* Runs fn in one write transaction (store_ready first): committed when fn
 * and the commit succeed, rolled back otherwise. */
enum store_status store_in_write(struct store *s,
                                 enum store_status (*fn)(struct store *s, void *arg,
                                                         struct store_error *err),
                                 void *arg, struct store_error *err);

/* Runs fn in one read transaction (store_ready first), so that what it
 * reads is one snapshot; ended when fn returns, err cleared on success. */
enum store_status store_in_read(struct store *s,
                                enum store_status (*fn)(struct store *s, void *arg,
                                                        struct store_error *err),
                                void *arg, struct store_error *err);

/* The columns of a record's insert, in the order of the parameters every
 * backend's insert_record binds. */
#define RECORD_COLUMNS "id, task, student, received_ms, graded_ms, source, sha256, status, " \
                       "points, max_points, verdict, seed, device, grader_version"
#define RECORD_SHOWN_COLUMNS "shown_key, shown_label, half1, half2, half3"
#define RECORD_INSERT "INSERT" RECORD_INSERT_INTO
/* RECORD_INSERT after its verb, for a backend that adds a conflict clause */
#define RECORD_INSERT_INTO " INTO records (" RECORD_COLUMNS ", " RECORD_SHOWN_COLUMNS \
                      ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, " \
                      "?14, ?15, ?16, ?17, ?18, ?19)"

/* Clears err (may be NULL) to STORE_OK. */
void store_ok(struct store_error *err);

/* n bytes from getrandom; false when the kernel gives none. */
bool store_random_bytes(unsigned char *b, size_t n);

/* A copy of len bytes with a NUL after them; NULL on OOM. */
char *store_memdup(const char *p, size_t len);

#endif
