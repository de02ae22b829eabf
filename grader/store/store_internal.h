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
/* The sweep values whose right-or-wrong mark a record keeps in a column of
 * its own (half1..half3, schema 3; half4, schema 11): the class view's
 * tiles. A number of columns, so a literal: an exercise with more values
 * needs a migration first, which the assertion below asks for. */
#define STORE_HALF_COLUMNS 4

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "common/exercise/exercise.h"
#include "store/store.h"

_Static_assert(STORE_HALF_COLUMNS == EX_MAX_SWEEP,
               "a record keeps one mark per sweep value: a new EX_MAX_SWEEP needs a migration "
               "adding its columns (store_schema.c) and RECORD_SHOWN_COLUMNS");

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
    /* How a record is inserted: RECORD_INSERT_CHECKED (store_internal.h) with the 14
     * record's columns as ?1..?14, the class view's facts as ?15..?20,
     * and STORE_CLASS_CHANNEL as ?21 where the backend tells the other
     * instances in the same statement (notifies_class); answering one
     * row whose first column is the late mark it made, unless
     * student_apart. */
    const char *insert_record;
    bool notifies_class;
    /* The insert is RECORD_INSERT_VALUES, answering nothing, run in a
     * transaction no other writer can enter (SQLite's one writer): the
     * student's row is checked, and the late mark read, by statements of
     * their own beside it (store.c). An INSERT ... SELECT on a table with
     * triggers fills a temporary table first, and RETURNING one more:
     * about 50,000 of a record's 450,000 instructions over HTTP. */
    bool student_apart;
    /* With student_apart, the insert of a record of nobody (?3 NULL): the
     * same columns and bindings, its late mark 0 as RECORD_LATE's first
     * case makes it, without the subqueries RECORD_LATE carries (about
     * 1,000 of a record's instructions over HTTP); NULL: insert_record. */
    const char *insert_nobody;
    /* A query without parameters answering one row, one integer: the
     * bytes the store's data takes now (store_size). */
    const char *size_bytes;
    /* A statement outside a transaction is one, committed (durably, as a
     * COMMIT is) before its answer comes: one record's insert needs no
     * BEGIN and COMMIT, two round trips to a server (PostgreSQL). */
    bool statement_is_transaction;
    /* Statements a writer runs first in its transaction where several
     * writers may run at once (PostgreSQL's instances), so that they take
     * their turns; NULL where the backend has one writer at a time
     * (SQLite). lock_guest_names orders two guests' sign-ins choosing a
     * name; lock_identity_changes orders the draws of identity_changes'
     * seq so that each commits before a later one is drawn. */
    const char *lock_guest_names;
    const char *lock_identity_changes;
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
#define RECORD_SHOWN_COLUMNS "shown_key, shown_label, half1, half2, half3, half4"
/* The columns a read of a record takes: the insert's, then whether it
 * came after its due date (records.late, as the insert marked it). */
#define RECORD_READ RECORD_COLUMNS ", late"

/* The secrets row (its created_ms) that holds a roster class's due date
 * (store_class_due_set): no migration for one value. */
#define CLASS_DUE_ROW "class_due"

/* The LTI link the record being inserted (?1 its id, ?2 its exercise,
 * ?3 its student) came from, as version 10's trigger chooses it: the
 * launch its page carried when that link is of the record's exercise,
 * else the student's latest launch from a link of it (NULL: none). */
#define RECORD_INSERT_LINK                                                            \
    " COALESCE((SELECT r.link FROM lti_record_links r JOIN lti_resource_links j"      \
    " ON j.link = r.link WHERE r.record_id = ?1 AND j.exercise = CAST(?2 AS TEXT)),"   \
    " (SELECT b.link FROM lti_launches b JOIN lti_resource_links j ON j.link = b.link" \
    " WHERE b.student = ?3 AND j.exercise = CAST(?2 AS TEXT)"                         \
    " ORDER BY b.launched_ms DESC, b.link DESC LIMIT 1))"

/* Whether the record being inserted (?4: when it came) is late: after the
 * due date its link's launch gave the student, or, when that launch gave
 * none (or the record is of no link), after the class's (CLASS_DUE_ROW);
 * a submission of nobody signed in is nobody's attempt, never late.
 * Computed in the insert, so that every instance and every backend marks
 * alike, at the time of the insert, with no copy of a due date to keep
 * fresh; version 8's trigger marks the LTI part again, to the same value. */
#define RECORD_LATE                                                                   \
    "(CASE WHEN CAST(?3 AS TEXT) IS NULL THEN 0"                                      \
    " WHEN EXISTS (SELECT 1 FROM lti_launches a WHERE a.student = ?3"                 \
    " AND a.due_ms > 0 AND ?4 > a.due_ms AND a.link =" RECORD_INSERT_LINK ")"         \
    " OR (?3 IS NOT NULL AND EXISTS (SELECT 1 FROM secrets d"                         \
    " WHERE d.name = '" CLASS_DUE_ROW "'"                                               \
    " AND d.created_ms > 0 AND ?4 > d.created_ms) AND NOT EXISTS (SELECT 1 FROM"      \
    " lti_launches c WHERE c.student = ?3 AND c.due_ms > 0 AND c.link ="              \
    RECORD_INSERT_LINK ")) THEN 1 ELSE 0 END)"

/* The insert: a record whose student has no students row is not written
 * (no row: STORE_FORGOTTEN): `butterfly-admin forget` ran while it was
 * graded, and it would be an orphan the class view shows as "(unknown)".
 * The check is in the insert's own statement; LOCK is what holds the
 * student's row until the commit where another transaction could delete
 * it between (PostgreSQL's " FOR KEY SHARE"; SQLite has one writer: ""),
 * so that a forget either comes first (no row: refused) or waits for the
 * commit and then deletes the record too (store.c deletes the student
 * first). A record of nobody (NULL) is written as before. Its late mark
 * is RECORD_LATE's; a backend's statement answers it, one row per record
 * written. */
#define RECORD_INSERT_CHECKED(LOCK) "INSERT" RECORD_INSERT_CHECKED_INTO(LOCK)
/* The insert of a backend that checks the student apart (student_apart),
 * after its verb: the same columns and late mark, as VALUES. */
#define RECORD_INSERT_VALUES_LATE_INTO(LATE)                                           \
    " INTO records (" RECORD_COLUMNS ", " RECORD_SHOWN_COLUMNS ", late"                 \
    ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, " \
    "?17, ?18, ?19, ?20, " LATE ")"
#define RECORD_INSERT_VALUES_INTO RECORD_INSERT_VALUES_LATE_INTO(RECORD_LATE)
/* The same for a record of nobody (insert_nobody): never late. */
#define RECORD_INSERT_NOBODY_VALUES_INTO RECORD_INSERT_VALUES_LATE_INTO("0")

/* RECORD_INSERT_CHECKED after its verb, for a backend that adds a
 * conflict clause (SQLite's OR ROLLBACK, store_sqlite.c) */
#define RECORD_INSERT_CHECKED_INTO(LOCK)                                               \
    " INTO records (" RECORD_COLUMNS ", " RECORD_SHOWN_COLUMNS ", late"                 \
    ") SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "  \
    "?17, ?18, ?19, ?20, " RECORD_LATE " WHERE CAST(?3 AS TEXT) IS NULL OR EXISTS (SELECT 1 " \
    "FROM students WHERE students.id = CAST(?3 AS TEXT)" LOCK ")"

/* Clears err (may be NULL) to STORE_OK. */
void store_ok(struct store_error *err);

/* n bytes from getrandom; false when the kernel gives none. */
bool store_random_bytes(unsigned char *b, size_t n);

/* A copy of len bytes with a NUL after them; NULL on OOM. */
char *store_memdup(const char *p, size_t len);

#endif
