/* cli.c - butterfly-grade: grade a kernel body from a file or stdin. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config.h"
#include "common/defaults.h"
#include "common/parse_num.h"
#include "common/exercise/exercise_dir.h"
#include "common/exercise/exercise_load.h"
#include "common/io/read_input.h"
#include "common/report.h"
#include "common/seed.h"
#include "common/task.h"
#include "pool/pool.h"
#include "pool/pool_check.h"

enum {
    EXIT_ACCEPTED = 0,
    EXIT_WRONG = 1,
    EXIT_NOT_COMPILED = 2,   /* Compilation Error or Rejected */
    EXIT_OTHER = 3,          /* anything else: TLE, runtime, internal */
    EXIT_USAGE = 64,
};

/* The one place verdicts become exit codes. */
static int exit_code(enum verdict_status s)
{
    switch (s) {
    case VERDICT_ACCEPTED: return EXIT_ACCEPTED;
    case VERDICT_WRONG_ANSWER: return EXIT_WRONG;
    case VERDICT_COMPILATION_ERROR:
    case VERDICT_REJECTED: return EXIT_NOT_COMPILED;
    default: return EXIT_OTHER;
    }
}

static void usage(FILE *out)
{
    fprintf(out,
        "usage: butterfly-grade [options] [FILE]\n"
        "       butterfly-grade [options] --check-exercise DIR\n"
        "Grades a kernel body (FILE, or standard input when FILE is - or absent).\n"
        "\n"
        "  --exercise ID       grade FILE as exercise ID (default: butterfly)\n"
        "  --check-exercise DIR\n"
        "                      check the exercise in DIR as the server does on load:\n"
        "                      its reference, and every solution and named mistake\n"
        "                      against its expect line; prints each problem, or a\n"
        "                      one-line summary (exit status 0, 1 on any problem,\n"
        "                      3 when no worker could start to grade)\n"
        "  --json              print the verdict as JSON instead of the report\n"
        "  --device SEL        Vulkan device by index or name substring\n"
        "                      (env BUTTERFLY_DEVICE; default: the best GPU, else lavapipe)\n"
        "  --seed N            seed of the hidden spectra, 0 to %llu (default: a new\n"
        "                      one drawn from the operating system)\n"
        "  --deadline-ms N     " DEADLINE_MEANING " (default %u, at most %u)\n"
        "  --list-devices      list the Vulkan devices and exit\n"
        "  --worker PATH       the grading worker program (env BUTTERFLY_WORKER;\n"
        "                      default: PREFIX/LIBEXECDIR/butterfly-worker beside this program)\n"
        "  --version, --help\n"
        "\n"
        "exit status: 0 Accepted, 1 Wrong Answer, 2 Compilation Error or Rejected,\n"
        "             3 anything else (time limit, runtime or internal error), 64 usage;\n"
        "             --check-exercise: 0 no problem, 1 a problem, 3 not checked\n"
        "             (no worker could start: no Vulkan device?)\n",
        (unsigned long long)MAX_SEED, DEFAULT_DEADLINE_MS, MAX_DEADLINE_MS);
}

/*
 * --check-exercise DIR: the exercise whose folder DIR is, loaded from disk
 * (a definition that does not load is named by file and field), then
 * checked on a worker as the built-in exercise of its id, which must be
 * the same definition (the workers grade what the build embedded, and the
 * reference is compiled in). Returns the exit status: EXIT_WRONG for a
 * problem found, EXIT_OTHER when no worker could grade (no device?).
 */
static int check_exercise(const struct pool_options *po, const char *dir)
{
    char where[512], lerr[EXERCISE_CHECK_MESSAGE_MAX];
    snprintf(where, sizeof where, "%s", dir);
    for (size_t n = strlen(where); n > 1 && where[n - 1] == '/'; n--)
        where[n - 1] = '\0';
    struct exercise *disk = exercise_dir_load(where, lerr, sizeof lerr);
    if (!disk) {
        fprintf(stderr, "%s\n", lerr);
        return EXIT_WRONG;
    }
    const struct exercise *e = exercise_find(disk->id);
    const char *differs = e ? exercise_differs(disk, e) : NULL;
    if (!e || differs) {
        if (!e)
            fprintf(stderr, "butterfly-grade: %s: no exercise '%s' is built in: add %s to "
                    "exercises/LIST and run ninja\n", where, disk->id, disk->id);
        else
            fprintf(stderr, "butterfly-grade: %s: %s differ from the exercise built in: run "
                    "ninja, then check again\n", where, differs);
        exercise_load_free(disk);
        return EXIT_WRONG;
    }
    exercise_load_free(disk);
    char err[256];
    struct pool *pool = pool_new(po, err, sizeof err);
    if (!pool) {
        fprintf(stderr, "butterfly-grade: %s\n", err);
        return EXIT_OTHER;
    }
    struct exercise_check chk;
    bool ok = pool_check_exercise(pool, e, where, po->start_timeout_ms, &chk);
    pool_free(pool, 0);
    if (!ok) {
        fprintf(stderr, "butterfly-grade: out of memory\n");
        exercise_check_clear(&chk);
        return EXIT_OTHER;
    }
    for (size_t i = 0; i < chk.nproblems; i++)
        fprintf(stderr, "%s\n", chk.problems[i]);
    if (chk.nproblems == 0) {
        char line[EXERCISE_CHECK_MESSAGE_MAX];
        exercise_check_summary(e, where, &chk, line, sizeof line);
        printf("%s\n", line);
    }
    /* could not check is not a problem found: the build tells them apart
     * (scripts/check_exercise.py: no device, a warning) */
    int rc = chk.not_checked ? EXIT_OTHER : chk.nproblems ? EXIT_WRONG : EXIT_ACCEPTED;
    exercise_check_clear(&chk);
    return rc;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "json", no_argument, NULL, 'j' },
        { "exercise", required_argument, NULL, 'e' },
        { "check-exercise", required_argument, NULL, 'c' },
        { "device", required_argument, NULL, 'd' },
        { "seed", required_argument, NULL, 's' },
        { "deadline-ms", required_argument, NULL, 't' },
        { "list-devices", no_argument, NULL, 'l' },
        { "worker", required_argument, NULL, 'w' },
        { "version", no_argument, NULL, 'V' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    /* Student code runs in a worker process, never in this one. */
    struct pool_options po;
    bool json = false, seed_given = false, list_devices = false;
    const char *exercise_id = NULL, *check_dir = NULL;
    uint64_t x;
    int c;

    pool_options_init(&po);
    po.workers = 1;
    po.queue_length = 1;
    po.device = getenv("BUTTERFLY_DEVICE");
    while ((c = getopt_long(argc, argv, "jd:s:t:lw:Vh", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'e': exercise_id = optarg; break;
        case 'c': check_dir = optarg; break;
        case 'd': po.device = optarg; break;
        case 'w': po.worker_path = optarg; break;
        case 's':
            seed_given = true;
            if (!parse_u64(optarg, MAX_SEED, &po.seed)) {
                fprintf(stderr, "butterfly-grade: bad --seed '%s'\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 't':
            if (!parse_u64(optarg, MAX_DEADLINE_MS, &x) || x == 0) {
                fprintf(stderr, "butterfly-grade: bad --deadline-ms '%s' (1..%u)\n", optarg,
                        MAX_DEADLINE_MS);
                return EXIT_USAGE;
            }
            po.deadline_ms = (uint32_t)x;
            break;
        case 'l': list_devices = true; break;
        case 'V': printf("butterfly-grade %s\n", BUTTERFLY_VERSION); return 0;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (argc - optind > (check_dir ? 0 : 1)) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (list_devices) {
        /* Only the worker links Vulkan: it lists the devices itself (after
         * the whole command line, so that --worker counts wherever it is). */
        char path[512], err[256];
        if (!pool_find_worker(po.worker_path, path, sizeof path, err, sizeof err)) {
            fprintf(stderr, "butterfly-grade: %s\n", err);
            return EXIT_OTHER;
        }
        fflush(stdout);
        execl(path, path, "--list-devices", (char *)NULL);
        fprintf(stderr, "butterfly-grade: cannot run %s: %s\n", path, strerror(errno));
        return EXIT_OTHER;
    }
    const struct exercise *ex = exercise_default();
    if (exercise_id && !(ex = exercise_find(exercise_id))) {
        fprintf(stderr, "butterfly-grade: no exercise '%s' is built in: add it to "
                "exercises/LIST and run ninja\n", exercise_id);
        return EXIT_USAGE;
    }
    /* a fresh seed unless --seed says which: nobody can know the hidden
     * spectra in advance */
    if (!seed_given && !seed_fresh(&po.seed)) {
        fprintf(stderr, "butterfly-grade: cannot draw a seed from the operating system; "
                "give one with --seed\n");
        return EXIT_OTHER;
    }
    if (check_dir)
        return check_exercise(&po, check_dir);
    const char *path = optind < argc ? argv[optind] : "-";
    char err[256];
    size_t len;
    char *body = read_input(path, TASK_MAX_SOURCE + 1, &len, err, sizeof err);
    if (!body) {
        fprintf(stderr, "butterfly-grade: %s\n", err);
        return EXIT_OTHER;
    }
    struct pool *pool = pool_new(&po, err, sizeof err);
    if (!pool || !pool_wait_ready(pool, 1, po.start_timeout_ms, err, sizeof err)) {
        fprintf(stderr, "butterfly-grade: %s\n", err);
        pool_free(pool, 0);
        free(body);
        return EXIT_OTHER;
    }
    struct pool_result res;
    pool_grade_exercise(pool, ex, body, len, &res);
    free(body);
    pool_free(pool, 0);
    if (!res.verdict) {
        fprintf(stderr, "butterfly-grade: out of memory\n");
        return EXIT_OTHER;
    }
    int rc = exit_code(res.head.status);
    if (json) {
        /* the worker's bytes, only laid out for a reader */
        json_t *j = json_loadb(res.verdict, res.verdict_len, 0, NULL);
        if (!j || json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9)) < 0)
            fprintf(stderr, "butterfly-grade: cannot write the verdict as JSON\n");
        fputc('\n', stdout);
        json_decref(j);
    } else {
        struct verdict *v = verdict_from_bytes(res.verdict, res.verdict_len);
        if (v)
            report_write(stdout, v);
        else
            fprintf(stderr, "butterfly-grade: the verdict could not be read\n");
        verdict_free(v);
    }
    pool_result_clear(&res);
    return rc;
}
