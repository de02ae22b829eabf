/*
 * butterfly-worker: grades bodies sent by the pool's supervisor, one at a
 * time, over the socket on fd 3 (see frame.h). Student code only ever runs
 * here: if it hangs or crashes this process, the supervisor kills or
 * reaps it and starts another. A failure of this program's own (out of
 * memory, say) ends it with WORKER_EXIT_INTERNAL, which the supervisor
 * never blames on the student.
 *
 * usage: butterfly-worker [--device SEL] [--deadline-ms N] [--memory-mb N]
 *        butterfly-worker --list-devices | --version | --help
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config.h"
#include "common/defaults.h"
#include "common/exercise/exercise.h"
#include "common/io/frame.h"
#include "common/verdict_facts.h"
#include "common/parse_num.h"
#include "engine/grade.h"
#include "worker/limits.h"
#include "worker/test_fault.h"

#define SUPERVISOR_FD 3

static void send_stage(enum grade_stage stage, void *arg)
{
    (void)arg;
    unsigned char b = (unsigned char)stage;
    /* a failed write means the supervisor is gone: the read that follows
     * will see it and end this process */
    frame_write(SUPERVISOR_FD, FRAME_STAGE, &b, 1);
    test_fault_at(stage);
}

/* Sends j (consumed) as one frame of the given type. */
static bool send_json(enum frame_type type, json_t *j, size_t flags)
{
    char *text = j ? json_dumps(j, JSON_COMPACT | flags) : NULL;
    json_decref(j);
    if (!text)
        return false;
    bool ok = frame_write(SUPERVISOR_FD, type, text, strlen(text));
    free(text);
    return ok;
}

/* The verdict's bytes, made once here, behind the header the pool reads. */
static bool send_verdict(const struct grader *g, const struct verdict *v)
{
    size_t len;
    char *json = verdict_to_bytes(v, &len);
    if (!json)
        return false;
    const struct grade_facts *f = grader_last_facts(g);
    struct frame_verdict h;
    frame_verdict_of(v, &h);
    verdict_facts_of(v, &h.facts);   /* what a record keeps: the server never parses v */
    h.stage = f->stage;
    h.cache_hit = f->cache_hit;
    h.kept = f->kept;
    h.dropped = f->dropped;
    bool ok = frame_write_verdict(SUPERVISOR_FD, &h, json, len);
    free(json);
    return ok;
}

static bool send_ready(const struct gpu_device_info *dev)
{
    return send_json(FRAME_READY,
                     json_pack("{s:i, s:{s:s, s:s, s:s}}", "pid", (int)getpid(), "device",
                               "name", dev->name, "type", device_type_to_str(dev->type),
                               "driver", dev->driver),
                     0);
}

static bool parse_option(const char *name, const char *s, uint64_t max, uint64_t *out)
{
    if (parse_u64(s, max, out))
        return true;
    fprintf(stderr, "butterfly-worker: bad %s \"%s\"\n", name, s);
    return false;
}

/* Grades jobs until the supervisor closes the socket. */
static int serve(struct grader *g)
{
    for (;;) {
        enum frame_type type;
        char *payload;
        size_t len;
        uint64_t seed;
        char id[EX_ID_MAX + 1];
        const char *body;
        size_t body_len;
        if (!frame_read(SUPERVISOR_FD, &type, &payload, &len))
            return 0;   /* the supervisor closed the socket: recycle or shutdown */
        if (type != FRAME_JOB ||
            !frame_parse_job(payload, len, &seed, id, &body, &body_len)) {
            free(payload);
            return WORKER_EXIT_INTERNAL;
        }
        /* the supervisor sends only ids it found in the same registry */
        const struct exercise *e = id[0] ? exercise_find(id) : exercise_default();
        if (!e) {
            free(payload);
            return WORKER_EXIT_INTERNAL;
        }
        grader_set_seed(g, seed);
        test_fault_body(body, body_len);
        struct verdict *v = grader_grade_exercise(g, e, body, body_len);
        free(payload);
        if (!v || !send_verdict(g, v)) {
            verdict_free(v);
            return WORKER_EXIT_INTERNAL;
        }
        verdict_free(v);
        /* a kernel that outlived its deadline may still be running, or the
         * device is lost: this device cannot be used or even destroyed */
        if (!grader_usable(g))
            _exit(0);
    }
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "device", required_argument, NULL, 'd' },
        { "deadline-ms", required_argument, NULL, 't' },
        { "memory-mb", required_argument, NULL, 'm' },
        { "list-devices", no_argument, NULL, 'l' },
        { "version", no_argument, NULL, 'V' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct grader_options o;
    struct worker_limits lim;
    char err[256];
    uint64_t x;
    int c;

    grader_options_init(&o);
    limits_init(&lim);
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': o.device = optarg; break;
        case 't':
            /* the supervisor adds a margin to the job's deadline */
            if (!parse_option("--deadline-ms", optarg,
                              MAX_DEADLINE_MS + WORKER_DEADLINE_MARGIN_MS, &x) || !x)
                return 64;
            o.deadline_ms = (uint32_t)x;
            break;
        case 'm':
            if (!parse_option("--memory-mb", optarg, 1u << 30, &x))
                return 64;
            lim.cpu_memory_mb = (size_t)x;
            break;
        case 'l': {
            /* for butterfly-grade --list-devices, which links no Vulkan */
            int n = gpu_list_devices(stdout, err, sizeof err);
            if (n < 0)
                fprintf(stderr, "butterfly-worker: %s\n", err);
            return n > 0 ? 0 : 3;
        }
        case 'V': printf("butterfly-worker %s\n", BUTTERFLY_VERSION); return 0;
        case 'h':
            printf("usage: butterfly-worker [--device SEL] [--deadline-ms N] [--memory-mb N]\n"
                   "       butterfly-worker --list-devices | --version | --help\n"
                   "Grades kernels for the pool that starts it (butterfly-server, butterfly-grade,\n"
                   "butterfly-batch), over the socket on descriptor %d: not for use by hand.\n",
                   SUPERVISOR_FD);
            return 0;
        default: return 64;
        }
    }
    /* Only the socket to the supervisor and stdio are wanted here: a
     * listening socket inherited by accident would outlive a restart. */
    close_range(SUPERVISOR_FD + 1, ~0u, 0);
    /* frames are sent with MSG_NOSIGNAL; this covers anything else */
    signal(SIGPIPE, SIG_IGN);
    if (!limits_apply_common(&lim, err, sizeof err)) {
        fprintf(stderr, "butterfly-worker: %s\n", err);
        return 1;
    }
    if (getppid() == 1)   /* the supervisor died before PDEATHSIG was set */
        return 1;
    o.before_device = limits_apply_for_device;
    o.before_device_arg = &lim;
    struct grader *g = grader_new(&o, err, sizeof err);
    if (!g) {
        fprintf(stderr, "butterfly-worker: %s\n", err);
        return 1;
    }
    /* Warm up: the first compile initialises glslang, the first dispatch
     * LLVM; neither should land on a student's time. */
    const char *warm = exercise_default()->starter;
    verdict_free(grader_grade(g, warm, strlen(warm)));
    grader_set_stage_hook(g, send_stage, NULL);
    if (!send_ready(grader_device(g)))
        return 1;
    int rc = serve(g);
    grader_free(g);
    return rc;
}
