/*
 * store.h - the records: every graded submission kept, with who made it.
 *
 * One interface, backends chosen by URL (store_open): SQLite, the embedded
 * default (one file, WAL, synchronous=FULL, a busy timeout, BEGIN
 * IMMEDIATE for writes), and PostgreSQL (libpq) for several instances
 * that share a class. The schema is versioned; store_open migrates an
 * older store forward before anything else, and refuses a newer one.
 *
 * Threads and processes. A struct store is one connection: use it from
 * one thread at a time. A process's SQLite connections to one file share
 * SQLite's locks and shared memory, so one opened while the file was
 * read-only would keep the others read-only after the file is writable
 * again: the SQLite backend closes such a connection as soon as its call
 * ends, and reopens after a read-only failure, so several connections
 * (the server's writer and reader) recover by themselves. Only the server process and butterfly-admin /
 * butterfly-batch open a store, never a worker, and a store is never
 * used across fork: every call made in a process other than the one that
 * opened it fails with STORE_UNAVAILABLE and touches nothing. The server
 * never calls the store on libmicrohttpd's threads: store_writer.h runs
 * a thread that owns its own connection.
 *
 * Errors. Every call that can fail returns an enum store_status and, when
 * err is not NULL, fills it with the status and a sentence that names
 * what failed (the statement, the backend's own message). A failure
 * leaves the store usable: the transaction is rolled back, and a later
 * call succeeds once the cause is gone (space freed, the lock released,
 * the file writable again, PostgreSQL back up: the connection is made
 * again by the next call). Nothing here exits or aborts.
 *
 * Times are milliseconds since the Unix epoch (UTC). Strings are UTF-8
 * as given; the store checks lengths (STORE_MAX_*), not contents.
 */
#ifndef BUTTERFLY_STORE_H
#define BUTTERFLY_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/defaults.h"
#include "common/verdict_facts.h"

/* Ids and tokens: lower-case hex of random bytes from getrandom. */
#define STORE_ID_BYTES        16                       /* 128 random bits */
#define STORE_ID_SIZE         (2 * STORE_ID_BYTES + 1) /* hex and the NUL */
#define STORE_TOKEN_BYTES     32                       /* 256 random bits */
#define STORE_TOKEN_SIZE      (2 * STORE_TOKEN_BYTES + 1)
#define STORE_SHA256_SIZE     65                       /* hex and the NUL */

/* Bounds on what one row may hold; longer input is refused (STORE_INVALID). */
#define STORE_MAX_SOURCE      (1024 * 1024)            /* bytes of source kept */
#define STORE_MAX_VERDICT     (4 * 1024 * 1024)        /* bytes of verdict JSON kept */
#define STORE_MAX_TEXT        1024                     /* a name, id, section, email, ... */
#define STORE_MAX_STUDENT_ID  ROSTER_ID_MAX            /* a roster's id: a session carries it
                                                          whole (server/session.h) */
#define STORE_MAX_PAGE        200                      /* records in one page of a list */

/* The schema version this build writes (store_schema.h holds the text). */
#define STORE_SCHEMA_VERSION  11

enum store_kind {
    STORE_KIND_NONE,        /* "none": no records, the stateless server */
    STORE_KIND_SQLITE,      /* "sqlite:PATH" */
    STORE_KIND_POSTGRES,    /* "postgresql://..." or "postgres://..." */
};

/* "none", "sqlite" or "postgresql"; never NULL. */
const char *store_kind_to_str(enum store_kind k);

/* The backend a URL names, by its scheme alone (STORE_KIND_NONE for
 * "none" and for what is no store URL): the one place that reads it. */
enum store_kind store_kind_of_url(const char *url);

enum store_status {
    STORE_OK = 0,
    STORE_NOT_FOUND,        /* no such row, or one the caller may not see */
    STORE_INVALID,          /* a bad argument: too long, missing, a bad URL */
    STORE_CONFLICT,         /* the id exists already */
    STORE_FULL,             /* no space: disk, tmpfs, SQLite's max_page_count */
    STORE_READ_ONLY,        /* the file, folder or database cannot be written */
    STORE_LOCKED,           /* another writer held the lock past the busy timeout */
    STORE_UNAVAILABLE,      /* cannot connect (PostgreSQL down), or used across fork */
    STORE_TOO_NEW,          /* the store's schema is newer than this build's */
    STORE_CORRUPT,          /* not a store, or damaged */
    STORE_UNSUPPORTED,      /* not for this backend (backup of PostgreSQL: pg_dump) */
    STORE_FORGOTTEN,        /* a record's student is in no students row (forgotten while
                               the run was graded): nothing written */
    STORE_NO_MEMORY,
    /* Not written by the server's choice, the store being fine (never
     * returned by a store call; server/records.h): */
    STORE_OVER_BUDGET,      /* the client's budget of records kept is spent */
    STORE_OVER_LIMIT,       /* the store is past its size limit (--store-max-mb) */
    STORE_ERROR,            /* anything else; the message says what */
};
#define STORE_NSTATUSES (STORE_ERROR + 1)

/* A short machine name: "ok", "not_found", "full", "read_only",
 * "locked", "unavailable", ...; never NULL. What the API's `reason`,
 * /metrics and /healthz show. */
const char *store_status_to_str(enum store_status s);

struct store_error {
    enum store_status status;
    char message[512];      /* one sentence for a log or an answer; "" when ok */
};

struct store;

/* ---- opening ---------------------------------------------------------- */

/*
 * Opens the store at url: "sqlite:PATH" (the file is created mode 0600,
 * the folders missing on its way 0700; PATH may end in
 * ?max_page_count=N, a cap on its size, and &busy_timeout_ms=N),
 * "postgresql://..." (a libpq connection URI), or "none". Runs the migrations up to
 * STORE_SCHEMA_VERSION. For "none" returns STORE_OK with *out NULL: the
 * caller keeps no records. Otherwise *out is the new store (free with
 * store_close) or NULL on failure. A PostgreSQL store that cannot be
 * reached at open is a failure (STORE_UNAVAILABLE): the server should
 * say so at start rather than run without a class it was told to keep.
 */
enum store_status store_open(const char *url, struct store **out, struct store_error *err);

/* Closes the connection and frees s. Accepts NULL. */
void store_close(struct store *s);

/* The backend of an open store. */
enum store_kind store_kind(const struct store *s);

/* The URL it was opened with, for a log line: a PostgreSQL password is
 * shown as "***". Owned by s. */
const char *store_display_url(const struct store *s);

/* The schema version of the open store (after the migrations). */
int store_schema_version(const struct store *s);

/*
 * Whether the store answers now: a read that touches the database
 * (SQLite: a read of the schema version; PostgreSQL: reconnects if the
 * connection was lost, then SELECT 1). For /healthz.
 */
enum store_status store_probe(struct store *s, struct store_error *err);

/*
 * The bytes the store's data takes now into *bytes (0 on failure): SQLite
 * the file's pages in use (its free pages and its WAL not counted: the one
 * is reused before the file grows, the other is checkpointed back into
 * it); PostgreSQL the store's tables in its schema with their indexes and
 * TOAST. What --store-max-mb is compared with (server/records.c).
 */
enum store_status store_size(struct store *s, uint64_t *bytes, struct store_error *err);

/* ---- random ids and tokens ---------------------------------------------- */

/* A new record or student id: STORE_ID_BYTES random bytes as hex in out.
 * False (out untouched) when the kernel gives no random bytes. */
bool store_new_id(char out[STORE_ID_SIZE]);

/* A new personal or instructor token (STORE_TOKEN_BYTES random bytes). */
bool store_new_token(char out[STORE_TOKEN_SIZE]);

/* The SHA-256 of len bytes as 64 lower-case hex digits (a record's
 * sha256; the stored form of a token). */
void store_sha256_hex(const void *data, size_t len, char out[STORE_SHA256_SIZE]);

/* The time of day in milliseconds since the Unix epoch (CLOCK_REALTIME):
 * what received_ms and graded_ms hold. */
int64_t store_now_ms(void);

/* ---- records ---------------------------------------------------------- */

struct store_record {
    char id[STORE_ID_SIZE];     /* from store_new_id */
    char *task;                 /* "butterfly" */
    char *student;              /* the student's id, NULL: nobody signed in */
    int64_t received_ms;        /* when the submission came */
    int64_t graded_ms;          /* when its verdict came */
    char *source;               /* the source as sent, source_len bytes (may hold NULs) */
    size_t source_len;
    char sha256[STORE_SHA256_SIZE];   /* of the source, lower-case hex */
    int status;                 /* enum verdict_status (Judge0's id) */
    int points, max_points;     /* common/score.h's points for the verdict (score_verdict) */
    char *verdict;              /* the verdict JSON exactly as answered, verdict_len bytes */
    size_t verdict_len;
    uint64_t seed;              /* of the hidden spectra */
    char *device;               /* the device's name, NULL: none ran it */
    char *grader_version;       /* BUTTERFLY_VERSION of the grader that graded it */
    int64_t lti_link;           /* the LTI resource link the submission came from
                                   (store_lti.h; only once LTI's tables are there),
                                   0: none named; only written, never read back */
    /* What the class view shows of the verdict, as the worker sent it
     * (common/verdict_facts.h), kept in columns of their own so that no
     * reader parses the verdict for them; when !shown_known the record
     * is kept as one with no mistake and no half run. Only written:
     * store_class_rows reads them back. */
    bool shown_known;
    struct verdict_shown shown;
    /* An Idempotency-Key the submission came with (NULL: none): written
     * with the record, in its transaction, under idem_scope (who sent it:
     * a key is one principal's, never shared), with the SHA-256 of the
     * request's body. A key of that scope already held by a live record
     * (made within IDEMPOTENCY_WINDOW_S) makes the insert STORE_CONFLICT,
     * and nothing is written: a retried POST is one record. */
    char *idem_scope;
    char *idem_key;
    char idem_body_sha256[STORE_SHA256_SIZE];
    /* Whether it came after its due date (an LTI link's for the student,
     * else the roster class's: store_class_due_set), as the insert marked
     * it: read back by every read; never written by the caller. */
    bool late;
    /* Where the insert tells the mark it made (NULL: nobody asks): the
     * writer's caller points it at the record's own `late`, so that what
     * it does after the commit (the class view's event) knows it with no
     * read. A copy does not keep it. */
    bool *late_out;
};

/*
 * A deep copy of r, or NULL on OOM. Every string pointer of the copy is
 * its own (source and verdict keep their lengths; NULLs stay NULL).
 */
struct store_record *store_record_copy(const struct store_record *r);

/* Frees what r owns and r itself. Accepts NULL. */
void store_record_free(struct store_record *r);

/* Frees what r owns and empties it, for a record on the stack. */
void store_record_clear(struct store_record *r);

/*
 * Adds one record in its own transaction. STORE_CONFLICT when the id is
 * there already, STORE_INVALID when a field is missing or over its bound
 * (the student need not be on the roster: an open lab's name is one, and
 * a forgotten student's id is never reused). The server does not call
 * this: store_writer.h does, several records to one commit.
 */
enum store_status store_record_insert(struct store *s, const struct store_record *r,
                                      struct store_error *err);

/*
 * Adds n records in one transaction: all or none. The writer's batch.
 */
enum store_status store_records_insert(struct store *s, const struct store_record *const *r,
                                       size_t n, struct store_error *err);

/*
 * The record the Idempotency-Key `key` of `scope` names (store_record's
 * idem_*), when it was made at or after since_ms: *out filled (release
 * with store_record_clear) and the SHA-256 of the body that made it in
 * body_sha256. STORE_NOT_FOUND when there is none (never used, expired,
 * or its record gone: forgotten, past retention).
 */
enum store_status store_idempotency_find(struct store *s, const char *scope, const char *key,
                                         int64_t since_ms, char body_sha256[STORE_SHA256_SIZE],
                                         struct store_record *out, struct store_error *err);

/*
 * The record with this id, as the reader may see it: student is the
 * signed-in student's id (only their own records are found), NULL with
 * instructor true for the instructor (every record), NULL with
 * instructor false finds nothing. Another student's id answers
 * STORE_NOT_FOUND, the same as an id that does not exist. On STORE_OK *out
 * is filled (release with store_record_clear), else left empty.
 */
enum store_status store_record_get(struct store *s, const char *id, const char *student,
                                   bool instructor, struct store_record *out,
                                   struct store_error *err);

/* A page of records. */
struct store_record_list {
    struct store_record *v;     /* owned */
    size_t n;
    bool more;                  /* older records follow: ask again with the cursor */
};

/* Releases what l holds and empties it. Accepts an empty one. */
void store_record_list_clear(struct store_record_list *l);

/*
 * A student's records, newest first (received_ms, then id, both
 * descending), at most limit (1..STORE_MAX_PAGE) of them. The page starts
 * after the cursor (before_ms, before_id): pass the last record of the
 * page before, or 0 and NULL for the first page. The records of a list
 * hold no source and no verdict bytes (NULL, length 0): a page shows time,
 * status and points, and loads one attempt's code with store_record_get.
 */
enum store_status store_student_records(struct store *s, const char *student,
                                        int64_t before_ms, const char *before_id,
                                        unsigned limit, struct store_record_list *out,
                                        struct store_error *err);

/*
 * Calls fn for every record received at or before until_ms (INT64_MAX:
 * all), complete with source and verdict, ordered by student (NULL
 * first), then received_ms, then id: what a gradebook reads. The record
 * passed is valid during the call only. fn returns false to stop (the
 * call then returns STORE_OK). A read transaction covers the whole walk,
 * so a concurrent write is either all in it or not at all.
 */
enum store_status store_records_each(struct store *s, int64_t until_ms,
                                     bool (*fn)(const struct store_record *r, void *arg),
                                     void *arg, struct store_error *err);

/*
 * Deletes every record received before cutoff_ms (retention: the caller
 * passes now minus N days, store_retention_cutoff). *deleted (may be
 * NULL) gets the count.
 */
enum store_status store_records_delete_before(struct store *s, int64_t cutoff_ms,
                                              uint64_t *deleted, struct store_error *err);

/* now_ms minus days days, clamped at 0. */
int64_t store_retention_cutoff(int64_t now_ms, unsigned days);

/*
 * Retention: deletes the records received more than days days ago (now:
 * the wall clock). What `butterfly-admin purge --retention-days N` runs,
 * and what a server calls now and then (on its store thread) with
 * --retention-days. days 0 deletes nothing.
 */
enum store_status store_retention_purge(struct store *s, unsigned days, uint64_t *deleted,
                                        struct store_error *err);

/*
 * A record as JSON, for an export: id, task, student, received and graded
 * (RFC 3339 UTC and ms), source, sha256, status (id and name), points,
 * max_points, seed, device, grader_version, the verdict parsed back
 * (a JSON object; the original bytes are the ones stored), and late
 * (received after its due date, as the insert marked it). A new
 * reference, NULL on OOM.
 */
json_t *store_record_to_json(const struct store_record *r);

/* ---- students ------------------------------------------------------------- */

struct store_student {
    char *id;                   /* the roster's id; an open lab's is store_new_id's */
    char *name;                 /* as shown */
    char *section;              /* "" when none */
    char *email;                /* "" when none */
    bool verified;              /* false: an open lab's display name, unchecked */
    bool has_token;             /* a personal token is set (its hash, never the token) */
    int64_t created_ms;
};

/* Frees what st owns and empties it. */
void store_student_clear(struct store_student *st);

/*
 * Adds the student, or updates the name, section, email and verified flag
 * of the one with this id (a roster imported again); the token and the
 * records stay. *created (may be NULL) says which.
 */
enum store_status store_student_put(struct store *s, const struct store_student *st,
                                    bool *created, struct store_error *err);

/*
 * Adds an open lab's student (st->verified false, a new id) under a name
 * nobody in the class has: st->name itself, else "NAME (2)", "NAME (3)",
 * ... up to GUEST_NAME_SUFFIX_MAX, so that two people who give the same
 * name are two names in the class view and every gradebook. The name
 * given is written to name (n bytes). Checked and written in one
 * transaction, under a lock on PostgreSQL, so instances that add one
 * name at the same moment still tell the two apart. STORE_CONFLICT when
 * every suffix is taken.
 */
enum store_status store_guest_put(struct store *s, const struct store_student *st, char *name,
                                  size_t n, struct store_error *err);

/*
 * Puts n students as store_student_put does, in one transaction: all of
 * them or none (a roster imported). *added and *updated (may be NULL)
 * count them; on failure *failed_at (may be NULL) is the index of the
 * student refused, or n when the store failed on no one student.
 */
enum store_status store_students_put(struct store *s, const struct store_student *st, size_t n,
                                     size_t *added, size_t *updated, size_t *failed_at,
                                     struct store_error *err);

/* The student with this id; STORE_NOT_FOUND when none. Release with
 * store_student_clear. */
enum store_status store_student_get(struct store *s, const char *id, struct store_student *out,
                                    struct store_error *err);

/* Calls fn for every student, ordered by id; fn returns false to stop. */
enum store_status store_students_each(struct store *s,
                                      bool (*fn)(const struct store_student *st, void *arg),
                                      void *arg, struct store_error *err);

/*
 * Sets the student's personal token to a new one, written to token: the
 * old one, if any, stops working at the commit. Only its SHA-256 is kept,
 * so a copy of the store gives no one a way in. STORE_NOT_FOUND when no
 * such student.
 */
enum store_status store_student_new_token(struct store *s, const char *id,
                                          char token[STORE_TOKEN_SIZE], struct store_error *err);

/*
 * The student whose personal token this is; STORE_NOT_FOUND for any other
 * string (compared by hash: the time taken does not depend on how much
 * of a token matched). Release *out with store_student_clear.
 */
enum store_status store_student_by_token(struct store *s, const char *token,
                                         struct store_student *out, struct store_error *err);

/*
 * All of one student's records as a JSON object: {"student": {...},
 * "records": [store_record_to_json, oldest first]}. STORE_NOT_FOUND when
 * there is neither such a student nor a record of theirs. *out is a new
 * reference on STORE_OK.
 */
enum store_status store_student_export(struct store *s, const char *id, json_t **out,
                                       struct store_error *err);

/*
 * Deletes the student and all their records, in one transaction.
 * *deleted (may be NULL) gets the number of records. STORE_NOT_FOUND when
 * there was nothing to delete.
 */
enum store_status store_student_forget(struct store *s, const char *id, uint64_t *deleted,
                                       struct store_error *err);

/* ---- the instructor -------------------------------------------------------- */

/*
 * Makes a new instructor token, written to token; the old one stops
 * working at the commit. Only its SHA-256 is kept.
 */
enum store_status store_instructor_new_token(struct store *s, char token[STORE_TOKEN_SIZE],
                                             struct store_error *err);

/*
 * At a server's start: when the store has no instructor token yet, makes
 * one as store_instructor_new_token does and sets *created; else leaves
 * token "" and *created false (the token that exists cannot be shown: it
 * is kept hashed; `butterfly-admin token` makes a new one). Several
 * instances starting at once make at most one.
 */
enum store_status store_instructor_ensure(struct store *s, char token[STORE_TOKEN_SIZE],
                                          bool *created, struct store_error *err);

/* STORE_OK when token is the instructor's, STORE_NOT_FOUND otherwise. */
enum store_status store_instructor_check(struct store *s, const char *token,
                                         struct store_error *err);

/* ---- credentials ------------------------------------------------------------ */

/* One credential that signs someone in now, as store_credentials_each
 * gives it: valid during the call only. */
struct store_credential {
    bool instructor;            /* the instructor's token (id NULL) */
    const char *id;             /* the student's id; NULL for the instructor */
    const char *token_sha256;   /* its stored SHA-256 (hex); NULL: a student without
                                   a token (an open lab's name, an LTI student) */
};

/*
 * Calls fn for every student (with their token's hash or none) and for
 * the instructor's token, in one statement, so the walk sees one moment
 * of the store; fn returns false to stop (the call then returns
 * STORE_OK). What the server reads every CREDENTIALS_REFRESH_S to end the
 * sessions of renewed tokens and forgotten students (server/credentials.h).
 */
enum store_status store_credentials_each(struct store *s,
                                         bool (*fn)(const struct store_credential *c, void *arg),
                                         void *arg, struct store_error *err);

/* ---- changes of who may sign in (schema version 4) ------------------------- */

/* One change as store_identity_changes gives it: valid during the call. */
struct store_identity_change {
    int64_t seq;                /* increasing, in the order the changes committed */
    const char *student;        /* NULL: the instructor's token was renewed */
    bool forgotten;             /* the student was forgotten; else their token renewed */
};

/*
 * Calls fn for each change with a seq after `after`, oldest first, at
 * most max of them (fn returns false to stop). Every forget and every
 * renewal of a student's or the instructor's token writes one in its own
 * transaction (kept IDENTITY_CHANGES_KEEP_MS), and the changes commit in
 * the order of their seq on both backends, so a server that remembers
 * the last seq it read misses none: how butterfly-admin's change reaches
 * every running server, which share nothing with it but the store.
 */
enum store_status store_identity_changes(struct store *s, int64_t after, unsigned max,
                                         bool (*fn)(const struct store_identity_change *c,
                                                    void *arg),
                                         void *arg, struct store_error *err);

/* The seq of the latest change (0 when none) into *seq: where a server
 * starts reading, its table of tokens being read after it. */
enum store_status store_identity_last(struct store *s, int64_t *seq, struct store_error *err);

/* ---- the class ---------------------------------------------------------------- */

/*
 * Whether a roster was imported: some student is verified. No roster
 * means an open lab (display names, unverified).
 */
enum store_status store_has_roster(struct store *s, bool *yes, struct store_error *err);

#define STORE_SECRET_BYTES 32

/*
 * The shared secret called name (at most STORE_MAX_TEXT bytes), made of
 * STORE_SECRET_BYTES random bytes the first time it is asked for. Several
 * instances asking at once get the same one. For keys that must be the
 * same on every instance of a class (the session cookie's signing key).
 * A secret that exists is only read: a store that cannot be written gives it.
 */
enum store_status store_secret(struct store *s, const char *name,
                               unsigned char out[STORE_SECRET_BYTES], struct store_error *err);

/*
 * A roster class's due date (butterfly-admin class due): due_ms, ms since
 * the epoch, > 0; 0 clears it. Every record inserted after it is marked
 * late (store_record.late), on every instance, from the next insert on;
 * a student with an LTI due date (a launch's due_at) keeps their link's
 * instead. Records already kept keep their mark.
 */
enum store_status store_class_due_set(struct store *s, int64_t due_ms, struct store_error *err);

/* The class's due date into *due_ms (0: none). */
enum store_status store_class_due_get(struct store *s, int64_t *due_ms, struct store_error *err);

/*
 * The address a server announced at its start (its "page:" line: the
 * --public-url, else the address it listens on), kept so that
 * butterfly-admin's links and token point at the running server when it
 * is given no --public-url. url: http:// or https://, at most
 * STORE_MAX_TEXT bytes. The last start wins (instances of a class behind
 * one proxy announce the same --public-url).
 */
enum store_status store_announced_url_set(struct store *s, const char *url,
                                          struct store_error *err);

/*
 * The address last announced, copied into out (n bytes, NUL-terminated),
 * and when (*when_ms, ms since the epoch). STORE_NOT_FOUND when no server
 * has announced one to this store (or it does not fit in n bytes).
 */
enum store_status store_announced_url_get(struct store *s, char *out, size_t n,
                                          int64_t *when_ms, struct store_error *err);

/* ---- backup ------------------------------------------------------------- */

/*
 * Copies a SQLite store, while others read and write it, to a new file
 * at path with SQLite's online backup API; the copy is a store that
 * store_open opens. path must not exist. PostgreSQL: STORE_UNSUPPORTED
 * (docs/DEPLOY.md: pg_dump).
 */
enum store_status store_backup(struct store *s, const char *path, struct store_error *err);

#endif
