/* server.c - the server's parts, started and stopped in order. */
#include "server/core/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/defaults.h"
#include "common/exercise/exercise_check.h"
#include "pool/pool_check.h"
#include "server/class/class_feed.h"
#include "server/core/http.h"
#include "server/core/served.h"
#include "server/grade/submission.h"
#include "server/identity/records.h"
#include "server/identity/token_guard.h"
#include "server/lti/lti.h"

void server_config_init(struct server_config *c)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    memset(c, 0, sizeof *c);
    c->bind = DEFAULT_BIND;
    c->port = DEFAULT_PORT;
    c->workers = cores > 0 ? (unsigned)cores : 1;
    c->queue_length = DEFAULT_QUEUE_LENGTH;
    c->per_client_queue = DEFAULT_PER_CLIENT_QUEUE;
    c->max_wait_ms = DEFAULT_MAX_WAIT_MS;
    c->deadline_ms = DEFAULT_DEADLINE_MS;
    c->recycle_after = DEFAULT_RECYCLE_AFTER;
    client_addr_rules_init(&c->clients);
    c->max_connections = DEFAULT_MAX_CONNECTIONS;
    c->per_ip_connections = DEFAULT_PER_IP_CONNECTIONS;
    c->connection_timeout_s = DEFAULT_IDLE_TIMEOUT_S;
    c->connection_memory = DEFAULT_CONNECTION_MEMORY;
    c->access_log = true;
    c->store_max_mb = DEFAULT_STORE_MAX_MB;
    c->guest_records = DEFAULT_GUEST_RECORDS;
    c->guest_mb = DEFAULT_GUEST_MB;
    c->class_streams = DEFAULT_CLASS_STREAMS;
    c->heartbeat_s = DEFAULT_HEARTBEAT_S;
    c->stuck_attempts = DEFAULT_STUCK_ATTEMPTS;
    c->stuck_minutes = DEFAULT_STUCK_MINUTES;
    c->stuck_repeats = DEFAULT_STUCK_REPEATS;
}

/* The records writer's hook: the class view hears of every commit. */
static void on_committed(const struct store_record *r, const struct verdict_shown *facts,
                         void *arg)
{
    class_feed_committed(arg, r, facts);
}

/* The records' hook: a student forgotten (butterfly-admin, on any
 * instance) leaves the class view. */
static void on_forgotten(const char *student, void *arg)
{
    class_feed_forgotten(arg, student);
}

/* LTI's way to the store: the records' threads and connections. */
static bool server_store_call(void *ctx, bool write, store_call_fn fn, void *arg)
{
    return ctx && records_call_wait(ctx, write, fn, arg);
}

/*
 * The check on load: every served exercise's reference probed and its
 * solutions graded before the server listens, on the pool's workers (the
 * server links no GPU stack and never grades in its own process; the
 * workers it will grade with are the ones checked). Each problem goes to
 * standard error; any stops the start. There is no way to skip it: a
 * check that can be skipped is not one.
 */
static bool check_exercises(struct pool *p, uint32_t timeout_ms, char *err, size_t errsz)
{
    double t0 = clock_now_ms();
    size_t failed = 0, problems = 0, n = exercise_count();
    const char *first = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct exercise *e = exercise_at(i);
        struct exercise_check c;
        if (!pool_check_exercise(p, e, NULL, timeout_ms, &c)) {
            exercise_check_clear(&c);
            snprintf(err, errsz, "out of memory checking the exercises");
            return false;
        }
        for (size_t k = 0; k < c.nproblems; k++)
            fprintf(stderr, "butterfly-server: %s\n", c.problems[k]);
        if (c.nproblems) {
            failed++;
            problems += c.nproblems;
            first = first ? first : e->id;
        }
        exercise_check_clear(&c);
    }
    if (failed) {
        snprintf(err, errsz, "exercise %s%s failed its check on load (%zu problem%s, above)",
                 first, failed > 1 ? " and others" : "", problems, problems == 1 ? "" : "s");
        return false;
    }
    /* on standard error: the first line on standard output stays the
     * address, which scripts wait for */
    fprintf(stderr, "butterfly-server: %zu exercise%s checked on load in %.0f ms\n", n,
            n == 1 ? "" : "s", clock_now_ms() - t0);
    return true;
}

struct server *server_start(const struct server_config *c, char *err, size_t errsz)
{
    struct server *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    s->cfg = *c;
    /* the served exercises first: a wrong id stops the start before any
     * part is up (and the set is fixed before any thread reads it) */
    if (!served_select(c->exercises, err, errsz)) {
        free(s);
        return NULL;
    }
    s->class_has = class_feed_in_class;
    s->class_changed = class_feed_lti_changed;
    s->metrics = metrics_new();
    if (!s->metrics) {
        snprintf(err, errsz, "out of memory");
        goto fail;
    }
    s->files = static_files_load(c->static_dir, err, errsz);
    if (!s->files)
        goto fail;
    s->guard = token_guard_new(TOKEN_FAILURES_PER_WINDOW, TOKEN_FAILURE_WINDOW_S);
    s->sign_ins = token_guard_new(SIGN_INS_PER_WINDOW, SIGN_IN_WINDOW_S);
    /* both checked: token_guard_allow takes no NULL (issue 30, defect 4) */
    if (!s->guard || !s->sign_ins) {
        snprintf(err, errsz, "out of memory");
        goto fail;
    }
    /* the store first: a server told to keep records that cannot is
     * refused at start, not found out at the first submission */
    if (c->database_url && strcmp(c->database_url, "none") != 0) {
        s->records = records_start(c->database_url, c->retention_days, c->store_max_mb,
                                   c->guest_records, c->guest_mb, s->instructor_token,
                                   c->rotate_instructor_token, err, errsz);
        if (!s->records)
            goto fail;
        struct class_options co = {
            .max_streams = c->class_streams, .heartbeat_s = c->heartbeat_s,
            .stuck = { c->stuck_attempts, c->stuck_minutes, c->stuck_repeats },
        };
        s->feed = class_feed_start(s->records, c->database_url, &co, err, errsz);
        if (!s->feed)
            goto fail;
        records_on_commit(s->records, on_committed, s->feed);
        records_on_forgotten(s->records, on_forgotten, s->feed);
    }

    if (c->lti_config) {
        if (!s->records || !c->public_url) {
            snprintf(err, errsz, "--lti-config needs the records (a --database or state "
                     "folder) and --public-url (the address the platforms know)");
            goto fail;
        }
        char base[1024];
        snprintf(base, sizeof base, "%.*s", (int)strcspn(c->public_url, "?#"), c->public_url);
        size_t bl = strlen(base);
        if (bl && base[bl - 1] == '/')
            base[bl - 1] = '\0';
        struct lti_options lo = {
            .config_path = c->lti_config, .database_url = c->database_url, .public_url = base,
            .policy = c->lti_score_last ? LTI_POLICY_LAST : LTI_POLICY_BEST,
            .late_policy = (enum lti_late_policy)c->late_policy,
            .late_penalty_pct = c->late_penalty_pct,
            .store_call = server_store_call, .store_ctx = s->records,
        };
        s->lti = lti_start(&lo, err, errsz);
        if (!s->lti)
            goto fail;
    }
    /* The pages may talk to this server only: no CDN, no other host. Only
     * the learning systems' frames that --lti-config names may embed them. */
    const char *frames = s->lti ? lti_config_of(s->lti)->frame_ancestors : NULL;
    if (asprintf(&s->page_csp, "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                 "img-src 'self' data:; connect-src 'self'; frame-ancestors %s; "
                 "base-uri 'none'; form-action 'self'", frames ? frames : "'none'") < 0) {
        s->page_csp = NULL;
        snprintf(err, errsz, "out of memory");
        goto fail;
    }

    struct pool_options po;
    pool_options_init(&po);
    po.workers = c->workers;
    po.queue_length = c->queue_length;
    po.per_client_queue = c->per_client_queue;
    po.max_wait_ms = c->max_wait_ms;
    po.deadline_ms = c->deadline_ms;
    po.max_jobs_per_worker = c->recycle_after;
    po.device = c->device;
    po.worker_path = c->worker_path;
    /* hidden spectra nobody can know before submitting: fresh for each */
    po.seed_per_job = !c->fixed_seed;
    if (c->fixed_seed)
        po.seed = c->seed;
    s->pool = pool_new(&po, err, errsz);
    if (!s->pool || !check_exercises(s->pool, po.start_timeout_ms, err, errsz))
        goto fail;
    s->watch = conn_watch_new(submission_client_gone, s, err, errsz);
    if (!s->watch)
        goto fail;
    struct conn_limit_options cl = {
        .max_connections = c->max_connections, .per_client = c->per_ip_connections,
        .header_deadline_ms = HEADER_DEADLINE_S * 1000u, .rules = &s->cfg.clients,
    };
    s->conns = conn_limit_new(&cl, err, errsz);
    if (!s->conns)
        goto fail;
    s->daemon = routes_start(s, err, errsz);
    if (!s->daemon)
        goto fail;
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

const char *server_instructor_token(const struct server *s)
{
    return s->instructor_token;
}

bool server_keeps_records(const struct server *s)
{
    return s->records != NULL;
}

const char *server_records_url(const struct server *s)
{
    return s->records ? records_display_url(s->records) : "";
}

struct announce {
    const char *base;
    enum store_status st;
    struct store_error err;
};

static void announce_on_writer(struct store *st, void *arg)
{
    struct announce *a = arg;
    a->st = store_announced_url_set(st, a->base, &a->err);
}

bool server_announce(struct server *s, const char *base, char *err, size_t errsz)
{
    if (!s->records)
        return true;
    struct announce a = { .base = base, .st = STORE_ERROR };
    snprintf(a.err.message, sizeof a.err.message, "the records' writer refused the call");
    if (!records_call_wait(s->records, true, announce_on_writer, &a) || a.st != STORE_OK) {
        snprintf(err, errsz, "cannot keep the announced address in the store: %s",
                 a.err.message);
        return false;
    }
    return true;
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
    /* the class views' streams end (each is resumed and finishes): a
     * suspended connection would hold the daemon's stop */
    class_feed_end_streams(s->feed);
    /* no more cancellations: the watcher's callback uses the pool, which
     * is freed next (its callbacks may still unwatch sockets) */
    conn_watch_stop(s->watch);
    /* every queued or running job gets its verdict (or an Internal Error
     * past the drain time), which resumes its connection */
    pool_free(s->pool, drain_ms);
    s->pool = NULL;
    /* logins and launches queued are answered, with the records' threads
     * still there (they are LTI's store); a score in flight ends within
     * its timeout (and is sent again after the restart). The answers are
     * sent by the HTTP threads, which still read s->lti: it is freed once
     * the daemon has stopped */
    lti_quiesce(s->lti);
    /* every verdict is in: its record is written and told, which resumes
     * the connection; reads queued are answered */
    records_stop(s->records);
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
    lti_free(s->lti);
    s->lti = NULL;
    /* after the daemon: it tells of every connection's close */
    conn_limit_free(s->conns);
    conn_watch_free(s->watch);
    if (s->records)   /* no call into the feed once it is gone */
        records_on_forgotten(s->records, NULL, NULL);
    class_feed_free(s->feed, 0);
    records_free(s->records);
    token_guard_free(s->guard);
    token_guard_free(s->sign_ins);
    static_files_free(s->files);
    free(s->page_csp);
    metrics_free(s->metrics);
    free(s);
}
