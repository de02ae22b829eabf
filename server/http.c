/*
 * http.c - the libmicrohttpd daemon: routing, uploads, suspended grading
 * requests, responses, the access log.
 *
 * One internal polling thread serves every connection. Nothing on it ever
 * waits for a job: a submission's connection is suspended when its job is
 * queued, and the pool's callback resumes it when the verdict arrives, so
 * /healthz, the page and the API answer at once while every worker is
 * busy.
 */
#include "clock.h"
#include "defaults.h"
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "metrics.h"
#include "pool.h"
#include "report.h"
#include "static_files.h"
#include "task.h"

/* text/plain carries the body itself; JSON escapes may make it longer, so
 * its envelope may be bigger, and the body inside is still checked. */
#define MAX_PLAIN_BODY TASK_MAX_SOURCE
#define MAX_JSON_BODY  (4 * TASK_MAX_SOURCE)

struct server {
    struct server_config cfg;
    struct MHD_Daemon *daemon;
    struct pool *pool;
    struct static_files *files;
    struct metrics *metrics;
    unsigned port;
};

enum route {
    ROUTE_NONE,
    ROUTE_PAGE,
    ROUTE_STATIC,
    ROUTE_TASKS,
    ROUTE_TASK,
    ROUTE_SUBMIT,
    ROUTE_HEALTH,
    ROUTE_ABOUT,
    ROUTE_METRICS,
};

enum request_state { REQ_NEW, REQ_HEADERS, REQ_READING, REQ_WAITING, REQ_DONE };

/* Per request; created by the URI log callback, freed when it completes. */
struct request {
    struct server *srv;
    struct MHD_Connection *conn;
    double start_ms;
    char method[12];
    char path[200];               /* for the log only: cut */
    char client[64];
    enum request_state state;
    bool is_json, format_text;
    enum route route;
    bool path_escaped;            /* the raw path had a %-escape */
    bool path_nul;                /* ... and one of them was %00 */
    bool too_large;               /* a chunked body went past the limit */
    size_t limit;
    char *body;
    size_t len;
    double submitted_ms;
    bool refused;                 /* the queue was full */
    _Atomic(struct verdict *) verdict;
    unsigned status;
    char verdict_slug[32];
};

void server_config_init(struct server_config *c)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    memset(c, 0, sizeof *c);
    c->bind = DEFAULT_BIND;
    c->port = DEFAULT_PORT;
    c->workers = cores > 0 ? (unsigned)cores : 1;
    c->queue_length = DEFAULT_QUEUE_LENGTH;
    c->deadline_ms = DEFAULT_DEADLINE_MS;
    c->recycle_after = DEFAULT_RECYCLE_AFTER;
    c->seed = TASK_DEFAULT_SEED;
    c->max_connections = DEFAULT_MAX_CONNECTIONS;
    c->per_ip_connections = DEFAULT_PER_IP_CONNECTIONS;
    c->connection_timeout_s = DEFAULT_IDLE_TIMEOUT_S;
    c->connection_memory = DEFAULT_CONNECTION_MEMORY;
    c->access_log = true;
}

/* --- responses ------------------------------------------------------- */

/* Adds the headers every response has, queues it, and marks the request
 * answered. Takes the response (destroyed here); NULL is out of memory. */
static enum MHD_Result queue(struct request *r, unsigned status, struct MHD_Response *resp,
                             const char *type, const char *cache)
{
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, cache ? cache : "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    enum MHD_Result ret = MHD_queue_response(r->conn, status, resp);
    MHD_destroy_response(resp);
    r->status = status;
    r->state = REQ_DONE;
    return ret;
}

/* A response from a buffer the response will own (MUST_FREE) or borrow. */
static struct MHD_Response *from_buffer(char *data, size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, data, mode);
    if (!resp && mode == MHD_RESPMEM_MUST_FREE)
        free(data);
    return resp;
}

static enum MHD_Result send_response(struct request *r, unsigned status, const char *type,
                                     char *data, size_t len, enum MHD_ResponseMemoryMode mode,
                                     const char *cache)
{
    return queue(r, status, from_buffer(data, len, mode), type, cache);
}

static enum MHD_Result send_json(struct request *r, unsigned status, json_t *j)
{
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(9)) : NULL;
    json_decref(j);
    if (!text)
        return MHD_NO;
    return send_response(r, status, "application/json", text, strlen(text),
                         MHD_RESPMEM_MUST_FREE, NULL);
}

/* Every error has the same shape: {"error": {"code", "message"}}. */
static enum MHD_Result send_error_with(struct request *r, unsigned status, const char *code,
                                       const char *message, const char *header,
                                       const char *value)
{
    json_t *j = json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", message);
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!text)
        return MHD_NO;
    struct MHD_Response *resp = from_buffer(text, strlen(text), MHD_RESPMEM_MUST_FREE);
    if (resp && header)
        MHD_add_response_header(resp, header, value);
    return queue(r, status, resp, "application/json", NULL);
}

static enum MHD_Result send_error(struct request *r, unsigned status, const char *code,
                                  const char *message)
{
    return send_error_with(r, status, code, message, NULL, NULL);
}

/* The one place a verdict becomes an HTTP status: every graded outcome,
 * a compile error or a refused body included, is a 200. */
static unsigned http_status_for(const struct verdict *v)
{
    return v->status == VERDICT_INTERNAL_ERROR ? 500 : 200;
}

/* --- routes ---------------------------------------------------------- */

static enum route match(const char *url)
{
    static const struct { const char *path; enum route route; } table[] = {
        { "/", ROUTE_PAGE },
        { "/index.html", ROUTE_PAGE },
        { "/api/tasks", ROUTE_TASKS },
        { "/api/tasks/butterfly", ROUTE_TASK },
        { "/api/tasks/butterfly/submissions", ROUTE_SUBMIT },
        { "/healthz", ROUTE_HEALTH },
        { "/api/about", ROUTE_ABOUT },
        { "/metrics", ROUTE_METRICS },
        { NULL, ROUTE_NONE },
    };
    for (size_t i = 0; table[i].path; i++)
        if (!strcmp(url, table[i].path))
            return table[i].route;
    if (!strncmp(url, "/static/", 8))
        return ROUTE_STATIC;
    return ROUTE_NONE;
}

static enum MHD_Result serve_file(struct request *r, const char *name)
{
    /* The name is looked up in the set loaded at start, never opened:
     * "..", "%2e%2e", "%2f" and "%00" can only fail to match. */
    const struct static_file *f = static_files_find(r->srv->files, name);
    if (!f)
        return send_error(r, 404, "not_found", "No such file.");
    const char *inm = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                  MHD_HTTP_HEADER_IF_NONE_MATCH);
    bool fresh = inm && !strcmp(inm, f->etag);
    struct MHD_Response *resp = fresh ? from_buffer(NULL, 0, MHD_RESPMEM_PERSISTENT)
                                      : from_buffer(f->data, f->len, MHD_RESPMEM_PERSISTENT);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, f->etag);
    /* The page may talk to this server only: no CDN, no other host. */
    MHD_add_response_header(resp, "Content-Security-Policy",
                            "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                            "img-src 'self' data:; connect-src 'self'; "
                            "frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
    MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    /* Revalidate every time: the page changes with the server, and a 304
     * costs one round trip. */
    return queue(r, fresh ? 304 : 200, resp, f->content_type, "no-cache");
}

static enum MHD_Result serve_get(struct request *r, enum route route, const char *url)
{
    struct server *s = r->srv;
    struct pool_stats ps;
    switch (route) {
    case ROUTE_PAGE:
        return serve_file(r, "index.html");
    case ROUTE_STATIC:
        return serve_file(r, url + strlen("/static/"));
    case ROUTE_TASKS:
        return send_json(r, 200, api_tasks());
    case ROUTE_TASK:
        return send_json(r, 200, api_task_butterfly());
    case ROUTE_HEALTH:
        pool_get_stats(s->pool, &ps);
        return send_json(r, ps.ready > 0 ? 200 : 503,
                         json_pack("{s:s, s:i, s:i}", "status", ps.ready > 0 ? "ok" : "unavailable",
                                   "workers_ready", (int)ps.ready, "queued", (int)ps.queued));
    case ROUTE_ABOUT:
        pool_get_stats(s->pool, &ps);
        return send_json(r, 200, api_about(&ps, s->cfg.deadline_ms, s->cfg.max_connections));
    case ROUTE_METRICS: {
        pool_get_stats(s->pool, &ps);
        char *text = metrics_render(s->metrics, &ps);
        if (!text)
            return send_error(r, 500, "internal_error", "Out of memory.");
        return send_response(r, 200, "text/plain; version=0.0.4; charset=utf-8", text,
                             strlen(text), MHD_RESPMEM_MUST_FREE, NULL);
    }
    default:
        return send_error(r, 404, "not_found", "No such resource.");
    }
}

/* --- submissions ----------------------------------------------------- */

/* Runs on the pool's thread: hand the verdict over and wake the connection. */
static void on_verdict(struct verdict *v, void *arg)
{
    struct request *r = arg;
    atomic_store(&r->verdict, v);
    MHD_resume_connection(r->conn);
}

static unsigned retry_after_s(struct server *s)
{
    struct pool_stats ps;
    pool_get_stats(s->pool, &ps);
    double per_job = ps.mean_job_ms > 0 ? ps.mean_job_ms : 50;
    double wait = (ps.queued + ps.busy) * per_job / (ps.workers ? ps.workers : 1) / 1000.0;
    unsigned secs = (unsigned)ceil(wait);
    return secs < 1 ? 1 : secs;
}

/* Checks the headers of a submission before any of its body is read. */
static enum MHD_Result begin_submission(struct request *r)
{
    const char *type = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                   MHD_HTTP_HEADER_CONTENT_TYPE);
    if (type && !strncasecmp(type, "application/json", 16)) {
        r->is_json = true;
        r->limit = MAX_JSON_BODY;
    } else if (type && !strncasecmp(type, "text/plain", 10)) {
        r->limit = MAX_PLAIN_BODY;
    } else {
        return send_error(r, 415, "unsupported_media_type",
                          "Send the kernel body as text/plain, or JSON {\"source\": \"...\"} "
                          "as application/json.");
    }
    const char *fmt = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "format");
    r->format_text = fmt && !strcmp(fmt, "text");
    const char *cl = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_LENGTH);
    const char *te = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_TRANSFER_ENCODING);
    if (cl) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(cl, &end, 10);
        /* refused from the headers: a 10 MB body is never read */
        if (errno || *end || n > r->limit)
            return send_error(r, 413, "payload_too_large",
                              r->is_json ? "The request is over the limit of 256 KiB."
                                         : "The kernel body is over the limit of 64 KiB.");
    } else if (!te || strcasecmp(te, "chunked")) {
        return send_error(r, 411, "length_required", "Send a Content-Length (or a chunked body).");
    }
    r->state = REQ_READING;
    return MHD_YES;
}

/* The source from the body: raw text, or the "source" of a JSON object. */
static bool extract_source(struct request *r, const char **src, size_t *len,
                           json_t **owner, char *msg, size_t msgsz)
{
    *owner = NULL;
    if (!r->is_json) {
        *src = r->body ? r->body : "";
        *len = r->len;
        return true;
    }
    json_error_t jerr;
    json_t *j = json_loadb(r->body ? r->body : "", r->len, JSON_REJECT_DUPLICATES, &jerr);
    if (!j) {
        snprintf(msg, msgsz, "Malformed JSON at line %d, column %d: %s", jerr.line, jerr.column,
                 jerr.text);
        return false;
    }
    json_t *s = json_object_get(j, "source");
    if (!json_is_string(s)) {
        snprintf(msg, msgsz, "The JSON must be an object with a string \"source\".");
        json_decref(j);
        return false;
    }
    *src = json_string_value(s);
    *len = json_string_length(s);
    *owner = j;
    return true;
}

static enum MHD_Result finish_upload(struct request *r)
{
    const char *src;
    size_t len;
    json_t *owner;
    char msg[300];
    if (!extract_source(r, &src, &len, &owner, msg, sizeof msg))
        return send_error(r, 400, "bad_request", msg);
    /* Suspend first: the verdict may arrive before pool_submit returns. */
    MHD_suspend_connection(r->conn);
    r->state = REQ_WAITING;
    r->submitted_ms = clock_now_ms();
    enum pool_submit_status st = pool_submit(r->srv->pool, src, len, on_verdict, r);
    json_decref(owner);
    free(r->body);
    r->body = NULL;
    if (st != POOL_SUBMITTED) {
        r->refused = true;
        MHD_resume_connection(r->conn);
    }
    return MHD_YES;
}

static enum MHD_Result answer_verdict(struct request *r)
{
    if (r->refused) {
        char secs[16];
        snprintf(secs, sizeof secs, "%u", retry_after_s(r->srv));
        return send_error_with(r, 503, "queue_full",
                               "Every grader is busy and the queue is full; try again shortly.",
                               MHD_HTTP_HEADER_RETRY_AFTER, secs);
    }
    struct verdict *v = atomic_exchange(&r->verdict, NULL);
    if (!v)   /* resumed without a verdict: cannot happen, but never hang */
        return send_error(r, 500, "internal_error", "The job ended without a verdict.");
    metrics_count_submission(r->srv->metrics, v->status,
                             (clock_now_ms() - r->submitted_ms) / 1000.0);
    snprintf(r->verdict_slug, sizeof r->verdict_slug, "%s", verdict_status_slug(v->status));
    unsigned status = http_status_for(v);
    enum MHD_Result ret;
    if (r->format_text) {
        char *text = report_to_string(v);
        ret = text ? send_response(r, status, "text/plain; charset=utf-8", text, strlen(text),
                                   MHD_RESPMEM_MUST_FREE, NULL)
                   : MHD_NO;
    } else {
        ret = send_json(r, status, verdict_to_json(v));
    }
    verdict_free(v);
    return ret;
}

/* --- the daemon's callbacks ------------------------------------------ */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size, void **con_cls)
{
    struct request *r = *con_cls;
    (void)cls;
    (void)version;
    if (!r)
        return MHD_NO;   /* the URI callback always makes one: out of memory */
    r->conn = conn;

    if (r->state == REQ_DONE) {   /* answered early (413): drop the rest */
        *upload_size = 0;
        return MHD_YES;
    }
    if (r->state == REQ_READING) {
        if (*upload_size > 0) {
            /* Counted for chunked bodies too, whose length is not declared.
             * libmicrohttpd cannot answer in the middle of a body, so the
             * rest is read and dropped, up to 1 MiB more; past that the
             * connection is simply closed. */
            if (r->too_large || r->len + *upload_size > r->limit) {
                r->too_large = true;
                r->len += *upload_size;
                *upload_size = 0;
                return r->len > r->limit + (1u << 20) ? MHD_NO : MHD_YES;
            }
            char *grown = realloc(r->body, r->len + *upload_size + 1);
            if (!grown)
                return MHD_NO;
            memcpy(grown + r->len, upload_data, *upload_size);
            r->body = grown;
            r->len += *upload_size;
            *upload_size = 0;
            return MHD_YES;
        }
        if (r->too_large)
            return send_error(r, 413, "payload_too_large",
                              r->is_json ? "The request is over the limit of 256 KiB."
                                         : "The kernel body is over the limit of 64 KiB.");
        return finish_upload(r);
    }
    if (r->state == REQ_WAITING)
        return answer_verdict(r);
    if (r->state == REQ_HEADERS) {
        /* A body on a GET is read and dropped (up to the limit); the
         * answer goes out once the request is complete, which keeps the
         * connection alive for the next request. */
        if (*upload_size > 0) {
            r->len += *upload_size;
            *upload_size = 0;
            return r->len > MAX_PLAIN_BODY ? MHD_NO : MHD_YES;
        }
        return serve_get(r, r->route, url);
    }

    /* REQ_NEW: the headers are in */
    snprintf(r->method, sizeof r->method, "%s", method);
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (ci && ci->client_addr && ci->client_addr->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)ci->client_addr)->sin_addr,
                  r->client, sizeof r->client);
    else if (ci && ci->client_addr && ci->client_addr->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ci->client_addr)->sin6_addr,
                  r->client, sizeof r->client);
    /* An escaped NUL cuts the path libmicrohttpd hands over (so
     * "index.html%00.css" would read "index.html"): refuse it outright. */
    if (r->path_nul)
        return send_error(r, 400, "bad_request", "The path holds an escaped NUL byte.");
    enum route route = match(url);
    /* static names never need escapes: an escaped one is a probe */
    if (route == ROUTE_STATIC && r->path_escaped)
        return send_error(r, 404, "not_found", "No such file.");
    bool is_get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    if (route == ROUTE_NONE)
        return send_error(r, 404, "not_found", "No such resource.");
    if (route == ROUTE_SUBMIT) {
        if (!strcmp(method, "POST"))
            return begin_submission(r);
        return send_error_with(r, 405, "method_not_allowed", "Submit with POST.",
                               MHD_HTTP_HEADER_ALLOW, "POST");
    }
    if (!is_get)
        return send_error_with(r, 405, "method_not_allowed", "Only GET and HEAD here.",
                               MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    r->route = route;
    r->state = REQ_HEADERS;
    return MHD_YES;
}

/* Made at the start of every request, even one libmicrohttpd answers
 * itself (a header too large, say), so every request gets its log line. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    struct request *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->srv = cls;
    r->conn = conn;
    r->start_ms = clock_now_ms();
    /* the query string is not logged: it is nobody's business */
    size_t n = strcspn(uri, "?");
    const char *pct = memchr(uri, '%', n);
    r->path_escaped = pct != NULL;
    for (; pct; pct = memchr(pct + 1, '%', n - (size_t)(pct + 1 - uri)))
        if (pct + 2 < uri + n && pct[1] == '0' && pct[2] == '0')
            r->path_nul = true;
    if (n >= sizeof r->path)
        n = sizeof r->path - 1;
    memcpy(r->path, uri, n);
    for (size_t i = 0; i < n; i++)   /* one line per request, always */
        if ((unsigned char)r->path[i] < 0x20 || r->path[i] == 0x7f)
            r->path[i] = '?';
    r->path[n] = '\0';
    snprintf(r->client, sizeof r->client, "-");
    return r;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct server *s = cls;
    struct request *r = *con_cls;
    (void)conn;
    if (!r)
        return;
    /* A verdict that arrived for a connection that went away (the client
     * hung up while its job ran) was graded all the same: count it and log
     * it like any other, so that the counters add up. */
    struct verdict *orphan = atomic_exchange(&r->verdict, NULL);
    if (orphan) {
        metrics_count_submission(s->metrics, orphan->status,
                                 (clock_now_ms() - r->submitted_ms) / 1000.0);
        snprintf(r->verdict_slug, sizeof r->verdict_slug, "%s",
                 verdict_status_slug(orphan->status));
        verdict_free(orphan);
    }
    metrics_count_response(s->metrics, r->status);
    if (s->cfg.access_log) {
        char when[32];
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
        fprintf(stderr, "%s %s %s %s %u %.1fms %s%s\n", when, r->client,
                r->method[0] ? r->method : "-", r->path, r->status,
                clock_now_ms() - r->start_ms, r->verdict_slug[0] ? r->verdict_slug : "-",
                toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (connection closed)");
    }
    free(r->body);
    free(r);
    *con_cls = NULL;
}

/* --- lifetime -------------------------------------------------------- */

struct server *server_start(const struct server_config *c, char *err, size_t errsz)
{
    struct server *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    s->cfg = *c;
    s->metrics = metrics_new();
    s->files = static_files_load(c->static_dir, err, errsz);
    if (!s->metrics || !s->files)
        goto fail;

    struct pool_options po;
    pool_options_init(&po);
    po.workers = c->workers;
    po.queue_length = c->queue_length;
    po.deadline_ms = c->deadline_ms;
    po.max_jobs_per_worker = c->recycle_after;
    po.device = c->device;
    po.seed = c->seed;
    s->pool = pool_new(&po, err, errsz);
    if (!s->pool)
        goto fail;

    struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)c->port) };
    struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons((uint16_t)c->port) };
    const struct sockaddr *addr;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL_LINUX_ONLY |
                     MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    if (inet_pton(AF_INET, c->bind, &a4.sin_addr) == 1) {
        addr = (const struct sockaddr *)&a4;
    } else if (inet_pton(AF_INET6, c->bind, &a6.sin6_addr) == 1) {
        addr = (const struct sockaddr *)&a6;
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(err, errsz, "bad bind address \"%s\" (give an IPv4 or IPv6 address)", c->bind);
        goto fail;
    }
    s->daemon = MHD_start_daemon(
        flags, (uint16_t)c->port, NULL, NULL, on_request, s,
        MHD_OPTION_SOCK_ADDR, addr,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)c->max_connections,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)c->per_ip_connections,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)c->connection_timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, c->connection_memory,
        MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
        MHD_OPTION_END);
    if (!s->daemon) {
        snprintf(err, errsz, "cannot listen on %s port %u (in use?)", c->bind, c->port);
        goto fail;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = di ? di->port : c->port;
    return s;
fail:
    server_stop(s, 0);
    return NULL;
}

unsigned server_port(const struct server *s)
{
    return s->port;
}

void server_stop(struct server *s, uint32_t drain_ms)
{
    if (!s)
        return;
    if (s->daemon) {
        /* stop accepting; connections already open are still served */
        MHD_socket listen_fd = MHD_quiesce_daemon(s->daemon);
        if (listen_fd != MHD_INVALID_SOCKET)
            close(listen_fd);
    }
    /* every queued or running job gets its verdict (or an Internal Error
     * past the drain time), which resumes its connection */
    pool_free(s->pool, drain_ms);
    s->pool = NULL;
    if (s->daemon) {
        /* give the resumed connections a moment to send their answers */
        for (int i = 0; i < 100; i++) {
            const union MHD_DaemonInfo *di =
                MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
            if (!di || di->num_connections == 0)
                break;
            usleep(20000);
        }
        MHD_stop_daemon(s->daemon);
    }
    static_files_free(s->files);
    metrics_free(s->metrics);
    free(s);
}
