/*
 * store_sqlite.c - the SQLite backend: one file, WAL (readers never wait
 * for the writer), synchronous=FULL (a commit is on the disk when it
 * returns, so a SIGKILL or a power cut loses nothing told committed), a
 * busy timeout, BEGIN IMMEDIATE for writes (the write lock is taken at
 * the start, so a transaction never fails half-way for want of it).
 *
 * "sqlite:PATH" may end in ?max_page_count=N (a cap on the file's size
 * in pages: the store then reports "full" as a full disk would) and
 * &busy_timeout_ms=N (default DEFAULT_STORE_BUSY_MS).
 *
 * A write refused because the file or folder is read-only leaves the
 * connection read-only for good (SQLite decides at open), so after such a
 * failure the next call opens the file again: recording resumes once the
 * file is writable, without restarting the process.
 */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/defaults.h"
#include "common/parse_num.h"
#include "store/store_internal.h"
#include "store/store_schema.h"

#define CACHED_STATEMENTS 32

struct cached {
    const char *sql;            /* the text's address: store.c passes literals */
    sqlite3_stmt *stmt;
};

struct sqlite_store {
    sqlite3 *db;
    char *path;
    unsigned busy_ms;
    uint64_t max_pages;         /* 0: no cap */
    bool reopen;                /* the connection must be made again */
    bool read_only;             /* SQLite opened the file read-only (its mode) */
    struct cached cache[CACHED_STATEMENTS];
    size_t ncached;
    /* the transactions' own statements, kept apart from the cache so
     * that a full cache never makes them parsed again (run_kept) */
    sqlite3_stmt *begin_write, *begin_read, *commit;
};

static struct sqlite_store *B(struct store *s)
{
    return s->backend;
}

/* The status for a SQLite result code. */
static enum store_status status_of(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_OK: case SQLITE_ROW: case SQLITE_DONE: return STORE_OK;
    case SQLITE_FULL: return STORE_FULL;
    case SQLITE_READONLY: case SQLITE_PERM: case SQLITE_AUTH: return STORE_READ_ONLY;
    case SQLITE_BUSY: case SQLITE_LOCKED: return STORE_LOCKED;
    case SQLITE_CONSTRAINT:
        return rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE
                   ? STORE_CONFLICT : STORE_INVALID;
    case SQLITE_CORRUPT: case SQLITE_NOTADB: return STORE_CORRUPT;
    case SQLITE_NOMEM: return STORE_NO_MEMORY;
    case SQLITE_CANTOPEN: return STORE_UNAVAILABLE;
    case SQLITE_IOERR:
        /* a write refused by the disk: ENOSPC comes as SQLITE_FULL, EDQUOT
         * and a short write of a full tmpfs as these */
        return rc == SQLITE_IOERR_WRITE || rc == SQLITE_IOERR_FSYNC ? STORE_FULL : STORE_ERROR;
    default: return STORE_ERROR;
    }
}

/* Reports rc on sql; marks the connection for reopening when the failure
 * can outlive its cause in this connection. */
static enum store_status fail_rc(struct store *s, int rc, const char *sql,
                                 struct store_error *err)
{
    enum store_status st = status_of(rc);
    struct sqlite_store *b = B(s);
    if (st == STORE_READ_ONLY || st == STORE_UNAVAILABLE || rc == SQLITE_READONLY_DBMOVED)
        b->reopen = true;
    const char *msg = b->db ? sqlite3_errmsg(b->db) : sqlite3_errstr(rc);
    char head[48];
    snprintf(head, sizeof head, "%s", sql ? sql : "");
    for (char *p = head; *p; p++)
        if (*p == '\n')
            *p = ' ';
    return store_fail(err, st, "SQLite store %s: %s (%s%s)", b->path, msg, head,
                      sql && strlen(sql) >= sizeof head ? "..." : "");
}

static void drop_cache(struct sqlite_store *b)
{
    for (size_t i = 0; i < b->ncached; i++)
        sqlite3_finalize(b->cache[i].stmt);
    b->ncached = 0;
    sqlite3_finalize(b->begin_write);
    sqlite3_finalize(b->begin_read);
    sqlite3_finalize(b->commit);
    b->begin_write = b->begin_read = b->commit = NULL;
}

static void disconnect(struct sqlite_store *b)
{
    drop_cache(b);
    if (b->db)
        sqlite3_close_v2(b->db);
    b->db = NULL;
}

/* A pragma that answers a row or none; the row is ignored. */
static int pragma(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

static enum store_status connect_db(struct store *s, struct store_error *err)
{
    struct sqlite_store *b = B(s);
    char sql[96];
    disconnect(b);
    int rc = sqlite3_open_v2(b->path, &b->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc != SQLITE_OK)
        goto fail;
    sqlite3_extended_result_codes(b->db, 1);
    sqlite3_busy_timeout(b->db, (int)b->busy_ms);
    if ((rc = pragma(b->db, "PRAGMA journal_mode = WAL")) != SQLITE_OK
        || (rc = pragma(b->db, "PRAGMA synchronous = FULL")) != SQLITE_OK)
        goto fail;
    if (b->max_pages) {
        snprintf(sql, sizeof sql, "PRAGMA max_page_count = %llu",
                 (unsigned long long)b->max_pages);
        if ((rc = pragma(b->db, sql)) != SQLITE_OK)
            goto fail;
    }
    b->reopen = false;
    b->read_only = sqlite3_db_readonly(b->db, "main") == 1;
    return STORE_OK;
fail:;
    enum store_status st = fail_rc(s, rc, "open", err);
    disconnect(b);
    b->reopen = true;
    return st;
}

/* Splits "PATH?k=v&k=v" into the path and the options it knows. */
static enum store_status parse_path(struct sqlite_store *b, const char *spec,
                                    struct store_error *err)
{
    const char *q = strchr(spec, '?');
    size_t n = q ? (size_t)(q - spec) : strlen(spec);
    if (n == 0)
        return store_fail(err, STORE_INVALID, "sqlite: needs a file's path (sqlite:PATH)");
    if (!(b->path = store_memdup(spec, n)))
        return store_fail(err, STORE_NO_MEMORY, "out of memory");
    b->busy_ms = DEFAULT_STORE_BUSY_MS;
    while (q && *q) {
        const char *key = q + 1, *eq = strchr(key, '='), *end = strchr(key, '&');
        if (!end)
            end = key + strlen(key);
        char val[32];
        uint64_t x;
        if (!eq || eq > end || (size_t)(end - eq - 1) >= sizeof val)
            return store_fail(err, STORE_INVALID, "sqlite: bad option in '%s'", spec);
        snprintf(val, sizeof val, "%.*s", (int)(end - eq - 1), eq + 1);
        if ((size_t)(eq - key) == 14 && !strncmp(key, "max_page_count", 14)
            && parse_u64(val, 4294967294u, &x) && x > 0)
            b->max_pages = x;
        else if ((size_t)(eq - key) == 15 && !strncmp(key, "busy_timeout_ms", 15)
                 && parse_u64(val, 3600000, &x))
            b->busy_ms = (unsigned)x;
        else
            return store_fail(err, STORE_INVALID,
                              "sqlite: unknown or bad option '%.*s' (max_page_count, "
                              "busy_timeout_ms)", (int)(end - key), key);
        q = *end ? end : NULL;
    }
    return STORE_OK;
}

/* The folders on the way are made if missing (a state folder the first
 * start creates, 0700); the file is made 0600 before SQLite opens it, as
 * it holds the class's names and code (SQLite gives its -wal and -shm
 * files the same mode). */
static enum store_status prepare_file(struct sqlite_store *b, struct store_error *err)
{
    char *dir = strdup(b->path);
    if (!dir)
        return store_fail(err, STORE_NO_MEMORY, "out of memory");
    for (char *p = strchr(dir + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
            int e = errno;
            enum store_status st = store_fail(err, e == EROFS || e == EACCES ? STORE_READ_ONLY
                                                                             : STORE_UNAVAILABLE,
                                              "cannot make the folder %s for the store: %s", dir,
                                              strerror(e));
            free(dir);
            return st;
        }
        *p = '/';
    }
    free(dir);
    /* Only a file that is not there yet is touched: closing any descriptor
     * of a file drops every POSIX lock this process holds on it, those of
     * its open SQLite connections included, and another process would then
     * think itself the last user and delete the -wal under them. No
     * connection can be open on a file that did not exist. */
    int fd = open(b->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
    else if (errno != EEXIST && errno != EACCES && errno != EROFS)
        return store_fail(err, STORE_UNAVAILABLE, "cannot make %s: %s", b->path, strerror(errno));
    return STORE_OK;
}

enum store_status store_sqlite_open(struct store *s, const char *spec, struct store_error *err)
{
    struct sqlite_store *b = calloc(1, sizeof *b);
    if (!b)
        return store_fail(err, STORE_NO_MEMORY, "out of memory");
    s->backend = b;
    enum store_status st = parse_path(b, spec, err);
    if (st == STORE_OK)
        st = prepare_file(b, err);
    if (st == STORE_OK)
        st = connect_db(s, err);
    return st;
}

static void sqlite_close(struct store *s)
{
    struct sqlite_store *b = B(s);
    disconnect(b);
    free(b->path);
    free(b);
    s->backend = NULL;
}

static enum store_status sqlite_connect(struct store *s, struct store_error *err)
{
    struct sqlite_store *b = B(s);
    if (!b->db || b->reopen)
        return connect_db(s, err);
    return STORE_OK;
}

/* A connection SQLite opened read-only (the file's mode) is closed as soon
 * as no transaction is open on it: the connections of one process to one
 * file share its -shm mapping, so an idle read-only one (LTI's, waiting
 * for a launch) would keep every other connection read-only after the
 * file is writable again, and recording would never resume. The next
 * call opens it again and finds out. */
static void release_if_read_only(struct sqlite_store *b)
{
    if (b->db && b->read_only && sqlite3_get_autocommit(b->db)) {
        disconnect(b);
        b->reopen = true;
    }
}

static int prepare(struct sqlite_store *b, const char *sql, sqlite3_stmt **out)
{
    for (size_t i = 0; i < b->ncached; i++)
        if (b->cache[i].sql == sql) {
            *out = b->cache[i].stmt;
            return SQLITE_OK;
        }
    int rc = sqlite3_prepare_v3(b->db, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL);
    if (rc == SQLITE_OK && b->ncached < CACHED_STATEMENTS)
        b->cache[b->ncached++] = (struct cached){ sql, *out };
    return rc;
}

static bool is_cached(struct sqlite_store *b, sqlite3_stmt *stmt)
{
    for (size_t i = 0; i < b->ncached; i++)
        if (b->cache[i].stmt == stmt)
            return true;
    return false;
}

static enum store_status sqlite_exec(struct store *s, const char *sql, bool multi,
                                     const struct store_value *params, size_t n, store_row_fn row,
                                     void *arg, uint64_t *changes, struct store_error *err)
{
    struct sqlite_store *b = B(s);
    sqlite3_stmt *stmt = NULL;
    int rc;
    if (changes)
        *changes = 0;
    enum store_status cst = b->db ? STORE_OK : connect_db(s, err);   /* release_if_read_only closed it */
    if (cst != STORE_OK)
        return cst;
    if (multi) {
        rc = sqlite3_exec(b->db, sql, NULL, NULL, NULL);
        enum store_status st = rc == SQLITE_OK ? STORE_OK : fail_rc(s, rc, sql, err);
        release_if_read_only(b);
        return st;
    }
    if ((rc = prepare(b, sql, &stmt)) != SQLITE_OK)
        return fail_rc(s, rc, sql, err);
    for (size_t i = 0; i < n && rc == SQLITE_OK; i++) {
        int at = (int)i + 1;
        switch (params[i].type) {
        case SV_NULL: rc = sqlite3_bind_null(stmt, at); break;
        case SV_INT: rc = sqlite3_bind_int64(stmt, at, params[i].i); break;
        case SV_TEXT:
            rc = sqlite3_bind_text64(stmt, at, params[i].p, params[i].len, SQLITE_STATIC,
                                     SQLITE_UTF8);
            break;
        case SV_BLOB:
            rc = sqlite3_bind_blob64(stmt, at, params[i].p, params[i].len, SQLITE_STATIC);
            break;
        }
    }
    if (rc != SQLITE_OK)
        goto done;
    struct store_value cols[STORE_MAX_COLUMNS];
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (!row)
            continue;
        int nc = sqlite3_column_count(stmt);
        if (nc > STORE_MAX_COLUMNS)
            nc = STORE_MAX_COLUMNS;
        for (int c = 0; c < nc; c++) {
            struct store_value *v = &cols[c];
            memset(v, 0, sizeof *v);
            switch (sqlite3_column_type(stmt, c)) {
            case SQLITE_NULL: v->type = SV_NULL; break;
            case SQLITE_INTEGER:
                v->type = SV_INT;
                v->i = sqlite3_column_int64(stmt, c);
                break;
            case SQLITE_BLOB:
                v->type = SV_BLOB;
                v->p = sqlite3_column_blob(stmt, c);
                v->len = (size_t)sqlite3_column_bytes(stmt, c);
                if (!v->p)
                    v->p = "";
                break;
            default:
                v->type = SV_TEXT;
                v->p = (const char *)sqlite3_column_text(stmt, c);
                v->len = (size_t)sqlite3_column_bytes(stmt, c);
                if (!v->p) {
                    rc = SQLITE_NOMEM;
                    goto done;
                }
                break;
            }
        }
        if (!row(cols, (size_t)nc, arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (rc == SQLITE_DONE && changes)
        *changes = (uint64_t)sqlite3_changes64(b->db);
done:;
    enum store_status st = rc == SQLITE_DONE || rc == SQLITE_OK ? STORE_OK
                                                                 : fail_rc(s, rc, sql, err);
    if (is_cached(b, stmt)) {
        sqlite3_reset(stmt);
        sqlite3_clear_bindings(stmt);
    } else {
        sqlite3_finalize(stmt);
    }
    release_if_read_only(b);
    return st;
}

/* Runs sql, a statement of no rows, through *kept, prepared on the first
 * call and reset after each: sqlite3_exec would parse and code BEGIN and
 * COMMIT again for every transaction, about 7,000 of the instructions of
 * a record over HTTP when each record is its own (docs/PERFORMANCE.md).
 * The error is read before the reset. */
static enum store_status run_kept(struct store *s, sqlite3_stmt **kept, const char *sql,
                                  struct store_error *err)
{
    struct sqlite_store *b = B(s);
    int rc = *kept ? SQLITE_OK
                   : sqlite3_prepare_v3(b->db, sql, -1, SQLITE_PREPARE_PERSISTENT, kept, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(*kept)) == SQLITE_DONE)
        rc = SQLITE_OK;
    enum store_status st = rc == SQLITE_OK ? STORE_OK : fail_rc(s, rc, sql, err);
    if (*kept)
        sqlite3_reset(*kept);
    return st;
}

static enum store_status sqlite_begin(struct store *s, bool write, struct store_error *err)
{
    struct sqlite_store *b = B(s);
    enum store_status st = b->db ? STORE_OK : connect_db(s, err);
    if (st != STORE_OK)
        return st;
    st = write ? run_kept(s, &b->begin_write, "BEGIN IMMEDIATE", err)
               : run_kept(s, &b->begin_read, "BEGIN", err);
    release_if_read_only(b);
    return st;
}

static enum store_status sqlite_commit(struct store *s, struct store_error *err)
{
    struct sqlite_store *b = B(s);
    if (!b->db)
        return store_fail(err, STORE_UNAVAILABLE, "COMMIT without a connection");
    enum store_status st = run_kept(s, &b->commit, "COMMIT", err);
    release_if_read_only(b);
    return st;
}

static void sqlite_rollback(struct store *s)
{
    struct sqlite_store *b = B(s);
    if (b->db && !sqlite3_get_autocommit(b->db))
        sqlite3_exec(b->db, "ROLLBACK", NULL, NULL, NULL);
    release_if_read_only(b);
}

static enum store_status sqlite_lock_schema(struct store *s, struct store_error *err)
{
    return STORE_OK;   /* BEGIN IMMEDIATE holds the write lock already */
}

static enum store_status sqlite_backup(struct store *s, const char *path,
                                       struct store_error *err)
{
    struct sqlite_store *b = B(s);
    sqlite3 *dest = NULL;
    enum store_status st;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return store_fail(err, errno == EEXIST ? STORE_CONFLICT : STORE_UNAVAILABLE,
                          "cannot make the backup %s: %s", path, strerror(errno));
    close(fd);
    int rc = sqlite3_open_v2(path, &dest, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_backup *bk = sqlite3_backup_init(dest, "main", b->db, "main");
        if (!bk) {
            rc = sqlite3_errcode(dest);
        } else {
            /* Pages in steps, so writers get the lock between them; each
             * wait for a busy source is bounded by the busy timeout. */
            unsigned waited = 0;
            for (;;) {
                rc = sqlite3_backup_step(bk, 256);
                if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
                    if (waited >= b->busy_ms)
                        break;
                    struct timespec ts = { 0, 10 * 1000 * 1000 };
                    nanosleep(&ts, NULL);
                    waited += 10;
                    continue;
                }
                if (rc != SQLITE_OK)
                    break;
            }
            int frc = sqlite3_backup_finish(bk);
            if (rc == SQLITE_DONE)
                rc = frc;
        }
    }
    if (rc == SQLITE_OK || rc == SQLITE_DONE) {
        sqlite3_close_v2(dest);
        store_ok(err);
        return STORE_OK;
    }
    st = store_fail(err, status_of(rc), "backup to %s failed: %s", path,
                    dest ? sqlite3_errmsg(dest) : sqlite3_errstr(rc));
    sqlite3_close_v2(dest);
    unlink(path);
    return st;
}

const struct store_ops store_sqlite_ops = {
    .exec = sqlite_exec,
    .begin = sqlite_begin,
    .commit = sqlite_commit,
    .rollback = sqlite_rollback,
    .connect = sqlite_connect,
    .lock_schema = sqlite_lock_schema,
    .backup = sqlite_backup,
    .close = sqlite_close,
    .migrations = store_schema_sqlite,
    .has_table = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
    /* one instance: no other class view to tell. OR ROLLBACK: a statement
     * whose table has a trigger (LTI's lti_outbox_on_record) and may abort
     * midway keeps a statement journal, a copy of each page it changes,
     * so that the abort undoes it alone; here a failed insert ends its
     * whole transaction anyway (store.c's insert_batch, in_transaction),
     * so the copies (about 4,500 of the 370,000 instructions the server
     * spends on a record over HTTP) bought nothing
     * (docs/PERFORMANCE.md). Any error still rolls the transaction back
     * and answers as before. */
    .insert_record = "INSERT OR ROLLBACK" RECORD_INSERT_VALUES_INTO,
    .student_apart = true,
    .insert_nobody = "INSERT OR ROLLBACK" RECORD_INSERT_NOBODY_VALUES_INTO,
    /* the pages in use: free pages (after a purge) are reused before the
     * file grows, so they are room, not size */
    .size_bytes = "SELECT (p.page_count - f.freelist_count) * s.page_size "
                  "FROM pragma_page_count() p, pragma_freelist_count() f, pragma_page_size() s",
};
