/*
 * butterfly-server: the grader over HTTP, with the exercise page.
 * Every option has an environment variable; the option wins. The options
 * are one table: --help is printed from it, and the README's table is
 * tested against --help (tests/http/test_docs.py).
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "common/defaults.h"
#include "common/install_paths.h"
#include "common/due/late_policy.h"
#include "common/parse_num.h"
#include "pool/pool.h"
#include "server/core/server.h"
#include "server/lti/lti.h"
#include "store/store.h"
#include "store/store_location.h"

enum value_kind { V_UINT, V_TEXT, V_FLAG, V_LIST };

struct option_def {
    const char *name, *env, *arg, *help;
    enum value_kind kind;
    unsigned long long min, max;
};

enum opt {
    O_PORT, O_BIND, O_WORKERS, O_QUEUE, O_PER_CLIENT, O_MAX_WAIT, O_DEADLINE, O_RECYCLE,
    O_DEVICE, O_STATIC, O_WORKER, O_TRUSTED, O_PROXY_HEADER, O_IPV6_PREFIX, O_SEED, O_MAX_CONN,
    O_PER_IP, O_TIMEOUT, O_QUIET, O_DATABASE, O_STATE_DIR, O_STATE_GROUP_OK, O_PUBLIC_URL,
    O_RETENTION, O_STORE_MAX, O_GUEST_RECORDS, O_GUEST_MB,
    O_CLASS_STREAMS, O_HEARTBEAT, O_STUCK_ATTEMPTS, O_STUCK_MINUTES, O_STUCK_REPEATS,
    O_LTI_CONFIG, O_LTI_POLICY, O_LATE_POLICY, O_EXERCISES, O_COUNT
};

static const struct option_def defs[O_COUNT] = {
    [O_PORT] = { "port", "BUTTERFLY_PORT", "N", "port to listen on, 0 for any free one",
                 V_UINT, 0, 65535 },
    [O_BIND] = { "bind", "BUTTERFLY_BIND", "ADDR", "IPv4 or IPv6 address to listen on",
                 V_TEXT, 0, 0 },
    [O_WORKERS] = { "workers", "BUTTERFLY_WORKERS", "N", "grading worker processes",
                    V_UINT, 1, MAX_WORKERS },
    [O_QUEUE] = { "queue", "BUTTERFLY_QUEUE", "N",
                  "submissions that may wait, all clients together", V_UINT, 1,
                  MAX_QUEUE_LENGTH },
    [O_PER_CLIENT] = { "per-client-queue", "BUTTERFLY_PER_CLIENT_QUEUE", "N",
                       "submissions one client may have waiting (429 past it), 0 no bound",
                       V_UINT, 0, MAX_QUEUE_LENGTH },
    [O_MAX_WAIT] = { "max-wait-ms", "BUTTERFLY_MAX_WAIT_MS", "N",
                     "refuse (503) a submission expected to wait longer, 0 never",
                     V_UINT, 0, 3600000 },
    [O_DEADLINE] = { "deadline-ms", "BUTTERFLY_DEADLINE_MS", "N", DEADLINE_MEANING, V_UINT, 1,
                     MAX_DEADLINE_MS },
    [O_RECYCLE] = { "recycle-after", "BUTTERFLY_RECYCLE_AFTER", "N",
                    "jobs per worker before it is replaced, 0 never", V_UINT, 0,
                    MAX_RECYCLE_AFTER },
    [O_DEVICE] = { "device", "BUTTERFLY_DEVICE", "SEL",
                   "Vulkan device by index or name part", V_TEXT, 0, 0 },
    [O_STATIC] = { "static-dir", "BUTTERFLY_STATIC_DIR", "DIR",
                   "the page's files (installed: PREFIX/share/butterfly-grader/static)",
                   V_TEXT, 0, 0 },
    [O_WORKER] = { "worker", "BUTTERFLY_WORKER", "PATH",
                   "the grading worker program (installed: PREFIX/libexec/butterfly-worker)",
                   V_TEXT, 0, 0 },
    [O_TRUSTED] = { "trusted-proxy", "BUTTERFLY_TRUSTED_PROXY", "ADDR[/BITS]",
                    "a reverse proxy whose forwarding header names the client (repeatable; "
                    "the variable takes a comma-separated list)", V_LIST, 0, 0 },
    [O_PROXY_HEADER] = { "proxy-header", "BUTTERFLY_PROXY_HEADER", "NAME",
                         "the header the trusted proxies write, X-Forwarded-For or Forwarded "
                         "(the other is ignored)", V_TEXT, 0, 0 },
    [O_IPV6_PREFIX] = { "ipv6-client-prefix", "BUTTERFLY_IPV6_CLIENT_PREFIX", "BITS",
                        "IPv6 clients in one network of this prefix share one client's queue",
                        V_UINT, 1, 128 },
    [O_SEED] = { "seed", "BUTTERFLY_SEED", "N",
                 "grade every submission with these hidden spectra (tests only; "
                 "default: fresh ones for each)", V_UINT, 0, MAX_SEED },
    [O_MAX_CONN] = { "max-connections", "BUTTERFLY_MAX_CONNECTIONS", "N",
                     "open connections in all; when all are, the one waiting longest for "
                     "a request header is closed for a new one", V_UINT, 1,
                     MAX_CONNECTIONS_LIMIT },
    [O_PER_IP] = { "per-ip-connections", "BUTTERFLY_PER_IP_CONNECTIONS", "N",
                   "open connections per client (an address, an IPv6 network of "
                   "--ipv6-client-prefix; through a trusted proxy, requests per forwarded "
                   "client), 0 no bound", V_UINT, 0, MAX_CONNECTIONS_LIMIT },
    [O_TIMEOUT] = { "timeout-s", "BUTTERFLY_TIMEOUT_S", "N",
                    "idle connection timeout (a request header has " HEADER_DEADLINE_TEXT " s in all)",
                    V_UINT, 1, MAX_IDLE_TIMEOUT_S },
    [O_QUIET] = { "quiet", "BUTTERFLY_QUIET", NULL, "no access log (the variable: 1)",
                  V_FLAG, 0, 0 },
    [O_DATABASE] = { "database", "BUTTERFLY_DATABASE", "URL",
                     "where records are kept: sqlite:PATH, postgresql://..., or none (keep "
                     "nothing)", V_TEXT, 0, 0 },
    [O_STATE_DIR] = { "state-dir", "BUTTERFLY_STATE_DIR", "DIR",
                      "the folder of the SQLite store (" STORE_FILE_NAME "), without --database",
                      V_TEXT, 0, 0 },
    [O_STATE_GROUP_OK] = { "state-dir-group-ok", "BUTTERFLY_STATE_DIR_GROUP_OK", NULL,
                           "start though the state folder is writable by its group (a group "
                           "meant to share it; the variable: 1); never by other users",
                           V_FLAG, 0, 0 },
    [O_PUBLIC_URL] = { "public-url", "BUTTERFLY_PUBLIC_URL", "URL",
                       "the server's address as students reach it, for links (https: makes "
                       "cookies Secure, named __Host-)", V_TEXT, 0, 0 },
    [O_RETENTION] = { "retention-days", "BUTTERFLY_RETENTION_DAYS", "N",
                      "remove records older than this, 0 keep them", V_UINT, 0,
                      MAX_RETENTION_DAYS },
    [O_STORE_MAX] = { "store-max-mb", "BUTTERFLY_STORE_MAX_MB", "N",
                      "the store's size limit in MiB: past it, only signed-in students' "
                      "records are kept, 0 no limit", V_UINT, 0, MAX_STORE_MAX_MB },
    [O_GUEST_RECORDS] = { "guest-records", "BUTTERFLY_GUEST_RECORDS", "N",
                          "records one client not signed in as a student (signed out, an "
                          "open lab's name) may have kept in 10 minutes, 0 no bound", V_UINT, 0,
                          MAX_GUEST_BUDGET },
    [O_GUEST_MB] = { "guest-mb", "BUTTERFLY_GUEST_MB", "N",
                     "... and MiB of them (sources, verdicts), 0 no bound", V_UINT, 0,
                     MAX_GUEST_BUDGET },
    [O_CLASS_STREAMS] = { "class-streams", "BUTTERFLY_CLASS_STREAMS", "N",
                          "live class views open at once (503 past it)", V_UINT, 1,
                          MAX_CLASS_STREAMS },
    [O_HEARTBEAT] = { "heartbeat-s", "BUTTERFLY_HEARTBEAT_S", "N",
                      "seconds between heartbeats on a class view's event stream", V_UINT, 1,
                      MAX_HEARTBEAT_S },
    [O_STUCK_ATTEMPTS] = { "stuck-attempts", "BUTTERFLY_STUCK_ATTEMPTS", "N",
                           "a student is stuck after this many attempts without passing ...",
                           V_UINT, 1, MAX_STUCK_VALUE },
    [O_STUCK_MINUTES] = { "stuck-minutes", "BUTTERFLY_STUCK_MINUTES", "N",
                          "... spread over at least this many minutes", V_UINT, 0,
                          MAX_STUCK_VALUE },
    [O_STUCK_REPEATS] = { "stuck-repeats", "BUTTERFLY_STUCK_REPEATS", "N",
                          "or after the same mistake this many times in a row, 0 never",
                          V_UINT, 0, MAX_STUCK_VALUE },
    [O_LTI_CONFIG] = { "lti-config", "BUTTERFLY_LTI_CONFIG", "FILE",
                       "the LTI 1.3 platforms this tool is registered with (docs/LTI.md); "
                       "needs --public-url", V_TEXT, 0, 0 },
    [O_LTI_POLICY] = { "lti-score-policy", "BUTTERFLY_LTI_SCORE_POLICY", "POLICY",
                       "the score sent to a platform's gradebook: best (the best attempt) or "
                       "last", V_TEXT, 0, 0 },
    [O_LATE_POLICY] = { "late-policy", "BUTTERFLY_LATE_POLICY", "POLICY",
                        "what an attempt after its due date counts for in a platform's "
                        "gradebook and in the Canvas and Moodle gradebooks: none (never above "
                        "the best on-time attempt), accept, or penalty:P% (its points less P "
                        "percent)", V_TEXT, 0, 0 },
    [O_EXERCISES] = { "exercises", "BUTTERFLY_EXERCISES", "ID,ID",
                      "the built-in exercises served, in course order whatever the order "
                      "given (an unknown id stops the start)", V_TEXT, 0, 0 },
};

/* --database and --state-dir as given, resolved by store_location_resolve;
 * --state-dir-group-ok for store_location_claim. */
static const char *opt_database, *opt_state_dir;
static bool opt_state_group_ok;

/* The current value of option o, for --help. */
static void current(const struct server_config *c, enum opt o, char *buf, size_t n)
{
    switch (o) {
    case O_PORT: snprintf(buf, n, "%u", c->port); break;
    case O_BIND: snprintf(buf, n, "%s", c->bind); break;
    case O_WORKERS: snprintf(buf, n, "%u", c->workers); break;
    case O_QUEUE: snprintf(buf, n, "%u", c->queue_length); break;
    case O_PER_CLIENT: snprintf(buf, n, "%u", c->per_client_queue); break;
    case O_MAX_WAIT: snprintf(buf, n, "%u", c->max_wait_ms); break;
    case O_DEADLINE: snprintf(buf, n, "%u", c->deadline_ms); break;
    case O_RECYCLE: snprintf(buf, n, "%u", c->recycle_after); break;
    case O_DEVICE: snprintf(buf, n, "%s", c->device ? c->device : "best"); break;
    case O_STATIC: snprintf(buf, n, "%s", c->static_dir); break;
    case O_WORKER: {
        char err[256];
        if (!pool_find_worker(c->worker_path, buf, n, err, sizeof err))
            snprintf(buf, n, "%s", err);
        break;
    }
    case O_TRUSTED: snprintf(buf, n, "%s", c->clients.proxies.n ? "set" : "none"); break;
    case O_PROXY_HEADER: snprintf(buf, n, "%s", client_addr_header_to_str(c->clients.header)); break;
    case O_IPV6_PREFIX: snprintf(buf, n, "%u", c->clients.ipv6_prefix); break;
    case O_SEED: snprintf(buf, n, "%s", c->fixed_seed ? "fixed" : "fresh"); break;
    case O_MAX_CONN: snprintf(buf, n, "%u", c->max_connections); break;
    case O_PER_IP: snprintf(buf, n, "%u", c->per_ip_connections); break;
    case O_TIMEOUT: snprintf(buf, n, "%u", c->connection_timeout_s); break;
    case O_QUIET: snprintf(buf, n, "%s", c->access_log ? "off" : "on"); break;
    case O_DATABASE: snprintf(buf, n, "%s", opt_database ? opt_database
                                             : "sqlite in the state folder"); break;
    case O_STATE_DIR: snprintf(buf, n, "%s", opt_state_dir ? opt_state_dir
                                              : "$STATE_DIRECTORY, else "
                                                "~/.local/state/" DEFAULT_STATE_SUBDIR); break;
    case O_STATE_GROUP_OK: snprintf(buf, n, "%s", opt_state_group_ok ? "on" : "off"); break;
    case O_PUBLIC_URL: snprintf(buf, n, "%s", c->public_url ? c->public_url
                                               : "http://BIND:PORT"); break;
    case O_RETENTION: snprintf(buf, n, "%u", c->retention_days); break;
    case O_STORE_MAX: snprintf(buf, n, "%u", c->store_max_mb); break;
    case O_GUEST_RECORDS: snprintf(buf, n, "%u", c->guest_records); break;
    case O_GUEST_MB: snprintf(buf, n, "%u", c->guest_mb); break;
    case O_CLASS_STREAMS: snprintf(buf, n, "%u", c->class_streams); break;
    case O_HEARTBEAT: snprintf(buf, n, "%u", c->heartbeat_s); break;
    case O_STUCK_ATTEMPTS: snprintf(buf, n, "%u", c->stuck_attempts); break;
    case O_STUCK_MINUTES: snprintf(buf, n, "%u", c->stuck_minutes); break;
    case O_STUCK_REPEATS: snprintf(buf, n, "%u", c->stuck_repeats); break;
    case O_LTI_CONFIG: snprintf(buf, n, "%s", c->lti_config ? c->lti_config : "none"); break;
    case O_LTI_POLICY: snprintf(buf, n, "%s", c->lti_score_last ? "last" : "best"); break;
    case O_LATE_POLICY: {
        struct late_policy lp = { (enum late_kind)c->late_policy, c->late_penalty_pct };
        late_policy_format(&lp, buf, n);
        break;
    }
    case O_EXERCISES: snprintf(buf, n, "%s", c->exercises ? c->exercises : "all"); break;
    default: buf[0] = '\0';
    }
}

static void usage(FILE *out, const struct server_config *c)
{
    fprintf(out, "usage: butterfly-server [options]\n"
                 "Serves the exercises' pages (the butterfly's at /, every one at /tasks)\n"
                 "and grades submissions over HTTP.\n\n");
    for (int o = 0; o < O_COUNT; o++) {
        char flag[64], now[512];
        snprintf(flag, sizeof flag, "--%s%s%s", defs[o].name, defs[o].arg ? " " : "",
                 defs[o].arg ? defs[o].arg : "");
        current(c, (enum opt)o, now, sizeof now);
        fprintf(out, "  %-26s (%s) %s [%s]\n", flag, defs[o].env, defs[o].help, now);
    }
    fprintf(out, "  --version, --help\n");
}

static bool set_uint(enum opt o, const char *value, unsigned long long *out)
{
    uint64_t x;
    if (!parse_u64(value, defs[o].max, &x) || x < defs[o].min) {
        fprintf(stderr, "butterfly-server: bad --%s \"%s\" (%llu..%llu)\n", defs[o].name, value,
                defs[o].min, defs[o].max);
        return false;
    }
    *out = x;
    return true;
}

static bool add_proxies(struct server_config *c, const char *value)
{
    char list[1024], err[200];
    snprintf(list, sizeof list, "%s", value);
    for (char *save, *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (!client_addr_proxies_add(&c->clients.proxies, item, err, sizeof err)) {
            fprintf(stderr, "butterfly-server: %s\n", err);
            return false;
        }
    }
    return true;
}

/* Applies one setting, from an option or from the environment. */
static bool apply(struct server_config *c, enum opt o, const char *value)
{
    unsigned long long x = 0;
    if (defs[o].kind == V_UINT && !set_uint(o, value, &x))
        return false;
    switch (o) {
    case O_PORT: c->port = (unsigned)x; break;
    case O_BIND: c->bind = value; break;
    case O_WORKERS: c->workers = (unsigned)x; break;
    case O_QUEUE: c->queue_length = (unsigned)x; break;
    case O_PER_CLIENT: c->per_client_queue = (unsigned)x; break;
    case O_MAX_WAIT: c->max_wait_ms = (uint32_t)x; break;
    case O_DEADLINE: c->deadline_ms = (uint32_t)x; break;
    case O_RECYCLE: c->recycle_after = (unsigned)x; break;
    case O_DEVICE: c->device = value; break;
    case O_STATIC: c->static_dir = value; break;
    case O_WORKER: c->worker_path = value; break;
    case O_TRUSTED: return add_proxies(c, value);
    case O_PROXY_HEADER:
        if (!client_addr_header_parse(value, &c->clients.header)) {
            fprintf(stderr, "butterfly-server: bad --proxy-header \"%.80s\" (X-Forwarded-For "
                    "or Forwarded)\n", value);
            return false;
        }
        break;
    case O_IPV6_PREFIX: c->clients.ipv6_prefix = (unsigned)x; break;
    case O_SEED: c->seed = x; c->fixed_seed = true; break;
    case O_MAX_CONN: c->max_connections = (unsigned)x; break;
    case O_PER_IP: c->per_ip_connections = (unsigned)x; break;
    case O_TIMEOUT: c->connection_timeout_s = (unsigned)x; break;
    case O_QUIET: c->access_log = !(value && *value && strcmp(value, "0")); break;
    case O_DATABASE: opt_database = value; break;
    case O_STATE_DIR: opt_state_dir = value; break;
    case O_STATE_GROUP_OK: opt_state_group_ok = value && *value && strcmp(value, "0"); break;
    case O_PUBLIC_URL:
        if (strncmp(value, "http://", 7) && strncmp(value, "https://", 8)) {
            fprintf(stderr, "butterfly-server: bad --public-url \"%s\" (http://... or "
                            "https://...)\n", value);
            return false;
        }
        c->public_url = value;
        break;
    case O_RETENTION: c->retention_days = (unsigned)x; break;
    case O_STORE_MAX: c->store_max_mb = (unsigned)x; break;
    case O_GUEST_RECORDS: c->guest_records = (unsigned)x; break;
    case O_GUEST_MB: c->guest_mb = (unsigned)x; break;
    case O_CLASS_STREAMS: c->class_streams = (unsigned)x; break;
    case O_HEARTBEAT: c->heartbeat_s = (unsigned)x; break;
    case O_STUCK_ATTEMPTS: c->stuck_attempts = (unsigned)x; break;
    case O_STUCK_MINUTES: c->stuck_minutes = (unsigned)x; break;
    case O_STUCK_REPEATS: c->stuck_repeats = (unsigned)x; break;
    case O_LTI_CONFIG: c->lti_config = value; break;
    case O_LTI_POLICY:
        if (strcmp(value, "best") && strcmp(value, "last")) {
            fprintf(stderr, "butterfly-server: bad --lti-score-policy \"%s\" (best or last)\n",
                    value);
            return false;
        }
        c->lti_score_last = !strcmp(value, "last");
        break;
    case O_LATE_POLICY: {
        struct late_policy lp;
        if (!late_policy_parse(value, &lp)) {
            fprintf(stderr, "butterfly-server: bad --late-policy \"%s\" (%s)\n", value,
                    LATE_POLICY_CHOICES);
            return false;
        }
        c->late_policy = (int)lp.kind;   /* lti.h's order */
        c->late_penalty_pct = lp.penalty_pct;
        break;
    }
    case O_EXERCISES: c->exercises = value; break;
    default: break;
    }
    return true;
}

/* Reads the options: the environment first, then the command line. */
static int configure(struct server_config *cfg, int argc, char **argv)
{
    struct option longopts[O_COUNT + 3];
    for (int o = 0; o < O_COUNT; o++)
        longopts[o] = (struct option){ defs[o].name,
                                       defs[o].kind == V_FLAG ? no_argument : required_argument,
                                       NULL, o };
    longopts[O_COUNT] = (struct option){ "version", no_argument, NULL, 'V' };
    longopts[O_COUNT + 1] = (struct option){ "help", no_argument, NULL, 'h' };
    longopts[O_COUNT + 2] = (struct option){ NULL, 0, NULL, 0 };
    for (int o = 0; o < O_COUNT; o++) {
        const char *v = getenv(defs[o].env);
        if (v && *v && !apply(cfg, (enum opt)o, v))
            return 64;
    }
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout, cfg);
            return 0;
        }
        if (c == 'V') {
            printf("butterfly-server %s\n", BUTTERFLY_VERSION);
            return 0;
        }
        if (c < 0 || c >= O_COUNT || !apply(cfg, (enum opt)c, defs[c].kind == V_FLAG ? "1" : optarg)) {
            usage(stderr, cfg);
            return 64;
        }
    }
    if (optind < argc) {
        usage(stderr, cfg);
        return 64;
    }
    return -1;
}

int main(int argc, char **argv)
{
    struct server_config cfg;
    char static_dir[INSTALL_PATH_MAX];
    server_config_init(&cfg);
    /* the page installed beside this program (or the source tree's, in
     * the build tree); --static-dir and its variable override it */
    cfg.static_dir = install_paths_find(INSTALL_STATIC_DIR, static_dir, sizeof static_dir)
                     ? static_dir : "static";
    int rc = configure(&cfg, argc, argv);
    if (rc >= 0)
        return rc;

    /* Signals are taken by this thread alone, with sigwait: every thread
     * started from here on inherits the mask. Sockets are written with
     * MSG_NOSIGNAL or by libmicrohttpd, which avoids SIGPIPE itself. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    char err[512];
    static struct store_location loc;
    if (!store_location_resolve(opt_database, opt_state_dir, &loc, err, sizeof err)) {
        fprintf(stderr, "butterfly-server: %s (give --state-dir DIR or --database URL)\n", err);
        return 64;
    }
    /* the state folder is the server's alone, or it does not start */
    if (!store_location_claim(&loc, opt_state_group_ok, err, sizeof err)) {
        fprintf(stderr, "butterfly-server: %s\n", err);
        return 1;
    }
    cfg.database_url = loc.url;
    /* Jupyter's way: every start prints a working instructor's address.
     * SQLite serves one instance, so its start makes a new token; a
     * PostgreSQL store is shared by instances, whose starts must not end
     * each other's token: there only the first start makes one. */
    cfg.rotate_instructor_token = store_kind_of_url(loc.url) == STORE_KIND_SQLITE;
    struct server *s = server_start(&cfg, err, sizeof err);
    if (!s) {
        fprintf(stderr, "butterfly-server: %s\n", err);
        return 1;
    }
    const char *host = strchr(cfg.bind, ':') ? "[%s]" : "%s";
    char hostbuf[80], base[600];
    snprintf(hostbuf, sizeof hostbuf, host, cfg.bind);
    snprintf(base, sizeof base, "http://%s:%u", hostbuf, server_port(s));
    if (cfg.public_url)
        snprintf(base, sizeof base, "%.*s", (int)strcspn(cfg.public_url, "?#"), cfg.public_url);
    size_t bl = strlen(base);
    if (bl && base[bl - 1] == '/')
        base[bl - 1] = '\0';
    /* butterfly-admin's links and token use it when given no --public-url;
     * a store that cannot keep it still grades */
    if (!server_announce(s, base, err, sizeof err))
        fprintf(stderr, "butterfly-server: %s (butterfly-admin links needs --public-url)\n",
                err);
    /* the first line is what scripts wait for: it stays as it was */
    printf("butterfly-server %s listening on http://%s:%u/\n", BUTTERFLY_VERSION, hostbuf,
           server_port(s));
    if (!server_keeps_records(s)) {
        printf("records: none (--database none): nothing is kept\n");
    } else {
        printf("records: %s (from %s)\n", server_records_url(s), loc.from);
        if (*server_instructor_token(s))
            printf("instructor: %s/class?token=%s\n", base, server_instructor_token(s));
        else
            printf("instructor: %s/class (its token is kept; butterfly-admin token makes a "
                   "new one)\n", base);
        printf("page: %s/\n", base);
    }
    fflush(stdout);

    int sig = 0;
    sigwait(&set, &sig);
    fprintf(stderr, "butterfly-server: %s: finishing the jobs in flight, then exiting\n",
            sig == SIGINT ? "SIGINT" : "SIGTERM");
    /* the jobs in flight get up to their deadline, and a little more */
    server_stop(s, cfg.deadline_ms + 2000);
    return 0;
}
