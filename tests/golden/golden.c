/*
 * golden: the verdict of every known body, as a line of hashes, so that a
 * change that moves the engine (issue 33 made the butterfly data) can show
 * it changed no verdict by a single byte.
 *
 * usage: golden [--device SEL] [--mutants] FILE...
 *
 * For each FILE, one line `fnv1a64(verdict) NAME`; with --mutants, each
 * FILE's single-token mutants too (tests/support/mutants.h), one line each
 * `fnv1a64(verdict) mutant:fnv1a64(code)`. The verdict is the bytes every
 * program answers (verdict_to_bytes) graded at the fixed seed
 * TASK_DEFAULT_SEED, with what depends on the machine cleared first: the
 * timings and the device. Each FILE is graded in a child process of its
 * own, since a hostile body may crash the compiler; the mutants of the
 * correct samples are graded in one. A verdict that is Internal Error is
 * the grader's limit, not the code's (a busy machine past the deadline):
 * it is printed as `internal NAME`, which tests/golden/test_golden.py
 * reports and does not compare.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/hash.h"
#include "common/io/read_input.h"
#include "common/task.h"
#include "engine/grade.h"
#include "tests/support/mutants.h"

/* Far past any body's grading on a loaded machine: the golden verdicts are
 * about what the code gets, never about how fast the machine is. */
#define GOLDEN_DEADLINE_MS 120000u

static void print_verdict(FILE *out, struct verdict *v, const char *name)
{
    if (v->status == VERDICT_INTERNAL_ERROR) {
        fprintf(out, "internal %s\n", name);
        return;
    }
    v->timings = (struct verdict_timings){ 0 };
    v->has_device = false;
    size_t len;
    char *bytes = verdict_to_bytes(v, &len);
    if (!bytes) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    fprintf(out, "%016llx %s\n", (unsigned long long)hash_fnv1a64(bytes, len), name);
    free(bytes);
}

static struct grader *new_grader(const struct grader_options *o)
{
    char err[256];
    struct grader *g = grader_new(o, err, sizeof err);
    if (!g) {
        fprintf(stderr, "no grader: %s\n", err);
        exit(1);
    }
    return g;
}

/* Grades each of the mutants of `files` in this process. */
static int grade_mutants(const struct grader_options *o, char **files, int nfiles)
{
    struct mutants m = { 0 };
    for (int f = 0; f < nfiles; f++) {
        char err[256];
        size_t len;
        char *body = read_input(files[f], TASK_MAX_SOURCE, &len, err, sizeof err);
        if (!body) {
            fprintf(stderr, "%s: %s\n", files[f], err);
            return 1;
        }
        mutants_add(&m, body, len);
        free(body);
    }
    struct grader *g = new_grader(o);
    for (size_t k = 0; k < m.n; k++) {
        struct verdict *v = grader_grade(g, m.texts[k], strlen(m.texts[k]));
        if (!v) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        char name[64];
        snprintf(name, sizeof name, "mutant:%016llx",
                 (unsigned long long)hash_fnv1a64(m.keys[k], strlen(m.keys[k])));
        print_verdict(stdout, v, name);
        verdict_free(v);
        if (!grader_usable(g)) {
            grader_free(g);
            g = new_grader(o);
        }
    }
    grader_free(g);
    mutants_free(&m);
    return 0;
}

/* Grades one file in a child, so that a crash is that file's line alone. */
static void grade_file(const struct grader_options *o, const char *path)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "fork: %s\n", strerror(errno));
        exit(1);
    }
    if (pid == 0) {
        char err[256];
        size_t len;
        /* One byte past the bound, as butterfly-grade reads: a longer body
         * is then refused as too long, not cut and graded as another. */
        char *body = read_input(path, TASK_MAX_SOURCE + 1, &len, err, sizeof err);
        if (!body) {
            printf("unreadable %s\n", path);
            _exit(0);
        }
        struct grader *g = new_grader(o);
        struct verdict *v = grader_grade(g, body, len);
        if (!v)
            _exit(1);
        print_verdict(stdout, v, path);
        fflush(stdout);
        _exit(0);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        printf("crashed %s\n", path);
}

int main(int argc, char **argv)
{
    struct grader_options o;
    grader_options_init(&o);
    o.device = getenv("BUTTERFLY_DEVICE");
    o.seed = TASK_DEFAULT_SEED;
    o.deadline_ms = GOLDEN_DEADLINE_MS;
    bool mutants = false;
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (!strcmp(argv[a], "--device") && a + 1 < argc)
            o.device = argv[++a];
        else if (!strcmp(argv[a], "--mutants"))
            mutants = true;
        else
            break;
    }
    if (a == argc || argv[a][0] == '-') {
        fprintf(stderr, "usage: golden [--device SEL] [--mutants] FILE...\n");
        return 64;
    }
    if (mutants)
        return grade_mutants(&o, argv + a, argc - a);
    for (; a < argc; a++)
        grade_file(&o, argv[a]);
    return 0;
}
