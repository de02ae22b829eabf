/*
 * butterfly-server: the grader over HTTP, with the exercise page.
 * Every option has an environment variable; the option wins.
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "parse_num.h"
#include "server.h"

static void usage(FILE *out, const struct server_config *d)
{
    fprintf(out,
        "usage: butterfly-server [options]\n"
        "Serves the butterfly exercise page and grades submissions over HTTP.\n"
        "\n"
        "  --port N           (BUTTERFLY_PORT)        port, 0 for any free one [%u]\n"
        "  --bind ADDR        (BUTTERFLY_BIND)        address to listen on [%s]\n"
        "  --workers N        (BUTTERFLY_WORKERS)     grading worker processes [%u]\n"
        "  --queue N          (BUTTERFLY_QUEUE)       submissions that may wait [%u]\n"
        "  --deadline-ms N    (BUTTERFLY_DEADLINE_MS) per submission [%u]\n"
        "  --recycle-after N  (BUTTERFLY_RECYCLE_AFTER) jobs per worker before it is replaced, 0 never [%u]\n"
        "  --device SEL       (BUTTERFLY_DEVICE)      Vulkan device by index or name [best]\n"
        "  --static-dir DIR   (BUTTERFLY_STATIC_DIR)  the page's files [%s]\n"
        "  --seed N           (BUTTERFLY_SEED)        seed of the hidden spectra [%llu]\n"
        "  --max-connections N (BUTTERFLY_MAX_CONNECTIONS) [%u]\n"
        "  --per-ip-connections N (BUTTERFLY_PER_IP_CONNECTIONS) [%u]\n"
        "  --timeout-s N      (BUTTERFLY_TIMEOUT_S)   idle connection timeout [%u]\n"
        "  --quiet            (BUTTERFLY_QUIET=1)     no access log\n"
        "  --version, --help\n",
        d->port, d->bind, d->workers, d->queue_length, d->deadline_ms, d->recycle_after,
        d->static_dir,
        (unsigned long long)d->seed, d->max_connections, d->per_ip_connections,
        d->connection_timeout_s);
}

static bool parse_uint(const char *name, const char *s, unsigned long long max,
                       unsigned long long *out)
{
    uint64_t x;
    if (!parse_u64(s, max, &x)) {
        fprintf(stderr, "butterfly-server: bad %s \"%s\" (0..%llu)\n", name, s, max);
        return false;
    }
    *out = x;
    return true;
}

/* Applies one setting, from an option or from the environment. */
static bool apply(struct server_config *c, int key, const char *value)
{
    unsigned long long x;
    switch (key) {
    case 'p': if (!parse_uint("port", value, 65535, &x)) return false; c->port = (unsigned)x; break;
    case 'b': c->bind = value; break;
    case 'w':
        if (!parse_uint("workers", value, 64, &x) || x == 0) return false;
        c->workers = (unsigned)x;
        break;
    case 'q':
        if (!parse_uint("queue", value, 100000, &x) || x == 0) return false;
        c->queue_length = (unsigned)x;
        break;
    case 't':
        if (!parse_uint("deadline", value, 600000, &x) || x == 0) return false;
        c->deadline_ms = (uint32_t)x;
        break;
    case 'r':
        if (!parse_uint("recycle-after", value, 1000000000, &x)) return false;
        c->recycle_after = (unsigned)x;
        break;
    case 'd': c->device = value; break;
    case 's': c->static_dir = value; break;
    case 'S': if (!parse_uint("seed", value, (1ull << 53) - 1, &x)) return false; c->seed = x; break;
    case 'm':
        if (!parse_uint("max connections", value, 100000, &x) || x == 0) return false;
        c->max_connections = (unsigned)x;
        break;
    case 'i':
        if (!parse_uint("per-ip connections", value, 100000, &x) || x == 0) return false;
        c->per_ip_connections = (unsigned)x;
        break;
    case 'o':
        if (!parse_uint("timeout", value, 3600, &x) || x == 0) return false;
        c->connection_timeout_s = (unsigned)x;
        break;
    case 'Q': c->access_log = !(value && *value && strcmp(value, "0")); break;
    }
    return true;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "port", required_argument, NULL, 'p' },
        { "bind", required_argument, NULL, 'b' },
        { "workers", required_argument, NULL, 'w' },
        { "queue", required_argument, NULL, 'q' },
        { "deadline-ms", required_argument, NULL, 't' },
        { "recycle-after", required_argument, NULL, 'r' },
        { "device", required_argument, NULL, 'd' },
        { "static-dir", required_argument, NULL, 's' },
        { "seed", required_argument, NULL, 'S' },
        { "max-connections", required_argument, NULL, 'm' },
        { "per-ip-connections", required_argument, NULL, 'i' },
        { "timeout-s", required_argument, NULL, 'o' },
        { "quiet", no_argument, NULL, 'Q' },
        { "version", no_argument, NULL, 'V' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    static const struct { const char *env; int key; } envs[] = {
        { "BUTTERFLY_PORT", 'p' }, { "BUTTERFLY_BIND", 'b' }, { "BUTTERFLY_WORKERS", 'w' },
        { "BUTTERFLY_QUEUE", 'q' }, { "BUTTERFLY_DEADLINE_MS", 't' },
        { "BUTTERFLY_RECYCLE_AFTER", 'r' },
        { "BUTTERFLY_DEVICE", 'd' }, { "BUTTERFLY_STATIC_DIR", 's' }, { "BUTTERFLY_SEED", 'S' },
        { "BUTTERFLY_MAX_CONNECTIONS", 'm' }, { "BUTTERFLY_PER_IP_CONNECTIONS", 'i' },
        { "BUTTERFLY_TIMEOUT_S", 'o' }, { "BUTTERFLY_QUIET", 'Q' },
    };
    struct server_config cfg;
    server_config_init(&cfg);
    cfg.static_dir = BUTTERFLY_STATIC_DIR;
    for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++) {
        const char *v = getenv(envs[i].env);
        if (v && *v && !apply(&cfg, envs[i].key, v))
            return 64;
    }
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout, &cfg);
            return 0;
        }
        if (c == 'V') {
            printf("butterfly-server %s\n", BUTTERFLY_VERSION);
            return 0;
        }
        if (c == '?' || !apply(&cfg, c, c == 'Q' ? "1" : optarg)) {
            usage(stderr, &cfg);
            return 64;
        }
    }
    if (optind < argc) {
        usage(stderr, &cfg);
        return 64;
    }

    /* Signals are taken by this thread alone, with sigwait: every thread
     * started from here on inherits the mask. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    char err[512];
    struct server *s = server_start(&cfg, err, sizeof err);
    if (!s) {
        fprintf(stderr, "butterfly-server: %s\n", err);
        return 1;
    }
    const char *host = strchr(cfg.bind, ':') ? "[%s]" : "%s";
    char hostbuf[80];
    snprintf(hostbuf, sizeof hostbuf, host, cfg.bind);
    printf("butterfly-server %s listening on http://%s:%u/\n", BUTTERFLY_VERSION, hostbuf,
           server_port(s));
    fflush(stdout);

    int sig = 0;
    sigwait(&set, &sig);
    fprintf(stderr, "butterfly-server: %s: finishing the jobs in flight, then exiting\n",
            sig == SIGINT ? "SIGINT" : "SIGTERM");
    /* the jobs in flight get up to their deadline, and a little more */
    server_stop(s, cfg.deadline_ms + 2000);
    return 0;
}
