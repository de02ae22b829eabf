/*
 * store_record.c - a record in memory: copies, release, its JSON for an
 * export, and the small helpers every part of the store shares (ids,
 * tokens, hashes, the clock, error sentences).
 */
#include <errno.h>
#include <nettle/sha2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "store/store.h"
#include "store/store_internal.h"
#include "common/verdict.h"

const char *store_kind_to_str(enum store_kind k)
{
    switch (k) {
    case STORE_KIND_NONE: return "none";
    case STORE_KIND_SQLITE: return "sqlite";
    case STORE_KIND_POSTGRES: return "postgresql";
    }
    return "unknown";
}

const char *store_status_to_str(enum store_status s)
{
    switch (s) {
    case STORE_OK: return "ok";
    case STORE_NOT_FOUND: return "not_found";
    case STORE_INVALID: return "invalid";
    case STORE_CONFLICT: return "conflict";
    case STORE_FULL: return "full";
    case STORE_READ_ONLY: return "read_only";
    case STORE_LOCKED: return "locked";
    case STORE_UNAVAILABLE: return "unavailable";
    case STORE_TOO_NEW: return "too_new";
    case STORE_CORRUPT: return "corrupt";
    case STORE_UNSUPPORTED: return "unsupported";
    case STORE_FORGOTTEN: return "student_forgotten";
    case STORE_NO_MEMORY: return "no_memory";
    case STORE_OVER_BUDGET: return "over_budget";
    case STORE_OVER_LIMIT: return "store_limit";
    case STORE_ERROR: return "error";
    }
    return "error";
}

enum store_status store_fail(struct store_error *err, enum store_status status, const char *fmt,
                             ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

void store_ok(struct store_error *err)
{
    if (err) {
        err->status = STORE_OK;
        err->message[0] = '\0';
    }
}

char *store_memdup(const char *p, size_t len)
{
    char *c = malloc(len + 1);
    if (!c)
        return NULL;
    if (len)
        memcpy(c, p, len);
    c[len] = '\0';
    return c;
}

static void hex(const unsigned char *b, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

bool store_random_bytes(unsigned char *b, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(b + got, n - got, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        got += (size_t)r;
    }
    return true;
}

/* n bytes from the kernel's random source, as hex; never a guessable fallback. */
static bool random_hex(size_t n, char *out)
{
    unsigned char b[64];
    if (n > sizeof b || !store_random_bytes(b, n))
        return false;
    hex(b, n, out);
    return true;
}

bool store_new_id(char out[STORE_ID_SIZE])
{
    return random_hex(STORE_ID_BYTES, out);
}

bool store_new_token(char out[STORE_TOKEN_SIZE])
{
    return random_hex(STORE_TOKEN_BYTES, out);
}

void store_sha256_hex(const void *data, size_t len, char out[STORE_SHA256_SIZE])
{
    struct sha256_ctx ctx;
    unsigned char d[SHA256_DIGEST_SIZE];
    sha256_init(&ctx);
    sha256_update(&ctx, len, data);
    sha256_digest(&ctx, SHA256_DIGEST_SIZE, d);
    hex(d, SHA256_DIGEST_SIZE, out);
}

int64_t store_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t store_retention_cutoff(int64_t now_ms, unsigned days)
{
    int64_t span = (int64_t)days * 86400000;
    return now_ms > span ? now_ms - span : 0;
}

void store_record_clear(struct store_record *r)
{
    if (!r)
        return;
    free(r->task);
    free(r->student);
    free(r->source);
    free(r->verdict);
    free(r->device);
    free(r->grader_version);
    free(r->idem_scope);
    free(r->idem_key);
    memset(r, 0, sizeof *r);
}

void store_record_free(struct store_record *r)
{
    store_record_clear(r);
    free(r);
}

/* A copy of an optional string: true when there was nothing to copy or
 * the copy was made. */
static bool dup_opt(char **to, const char *from, size_t len)
{
    *to = from ? store_memdup(from, len) : NULL;
    return !from || *to;
}

struct store_record *store_record_copy(const struct store_record *r)
{
    struct store_record *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = *r;
    c->task = c->student = c->source = c->verdict = c->device = c->grader_version = NULL;
    c->idem_scope = c->idem_key = NULL;
    c->late_out = NULL;
    if (!dup_opt(&c->task, r->task, r->task ? strlen(r->task) : 0)
        || !dup_opt(&c->student, r->student, r->student ? strlen(r->student) : 0)
        || !dup_opt(&c->source, r->source, r->source_len)
        || !dup_opt(&c->verdict, r->verdict, r->verdict_len)
        || !dup_opt(&c->device, r->device, r->device ? strlen(r->device) : 0)
        || !dup_opt(&c->grader_version, r->grader_version,
                    r->grader_version ? strlen(r->grader_version) : 0)
        || !dup_opt(&c->idem_scope, r->idem_scope, r->idem_scope ? strlen(r->idem_scope) : 0)
        || !dup_opt(&c->idem_key, r->idem_key, r->idem_key ? strlen(r->idem_key) : 0)) {
        store_record_free(c);
        return NULL;
    }
    return c;
}

void store_record_list_clear(struct store_record_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        store_record_clear(&l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

void store_student_clear(struct store_student *st)
{
    if (!st)
        return;
    free(st->id);
    free(st->name);
    free(st->section);
    free(st->email);
    memset(st, 0, sizeof *st);
}

/* "2026-12-01T10:00:00.123Z" */
static void rfc3339(int64_t ms, char out[32])
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    if (ms < 0 || !gmtime_r(&t, &tm)) {
        snprintf(out, 32, "1970-01-01T00:00:00.000Z");
        return;
    }
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%03dZ", (int)(ms % 1000));
}

static json_t *opt_string(const char *s)
{
    return s ? json_string(s) : json_null();
}

json_t *store_record_to_json(const struct store_record *r)
{
    char received[32], graded[32];
    rfc3339(r->received_ms, received);
    rfc3339(r->graded_ms, graded);
    json_t *verdict = r->verdict ? json_loadb(r->verdict, r->verdict_len, 0, NULL) : NULL;
    if (!verdict && r->verdict)   /* never expected: the bytes were a verdict */
        verdict = json_stringn(r->verdict, r->verdict_len);
    /* The source as text when it is UTF-8 (json_stringn refuses it otherwise). */
    json_t *source = r->source ? json_stringn(r->source, r->source_len) : json_null();
    json_t *j = json_pack("{s:s, s:s?, s:o, s:s, s:I, s:s, s:I, s:o*, s:s, s:{s:i, s:s}, "
                          "s:i, s:i, s:I, s:o, s:s?, s:o*, s:b}",
                          "id", r->id, "task", r->task, "student", opt_string(r->student),
                          "received", received, "received_ms", (json_int_t)r->received_ms,
                          "graded", graded, "graded_ms", (json_int_t)r->graded_ms,
                          "source", source, "sha256", r->sha256,
                          "status", "id", r->status, "description",
                          verdict_status_to_str((enum verdict_status)r->status),
                          "points", r->points, "max_points", r->max_points,
                          "seed", (json_int_t)r->seed, "device", opt_string(r->device),
                          "grader_version", r->grader_version, "verdict", verdict,
                          "late", r->late);
    return j;
}
