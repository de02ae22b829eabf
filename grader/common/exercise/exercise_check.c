/* exercise_check.c - the check on load: the reference probed, then every
 * solution and named mistake graded against what its file says. */
#include "common/exercise/exercise_check.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/defaults.h"
#include "common/task.h"

/* What the probing child tells its parent, in one write (below PIPE_BUF,
 * so it arrives whole or not at all). */
struct probe_answer {
    int status;                          /* enum exercise_probe */
    char msg[EXERCISE_CHECK_MESSAGE_MAX];
};

const char *exercise_check_where(const struct exercise *e, const char *where, char *buf,
                                 size_t n)
{
    if (where)
        return where;
    snprintf(buf, n, "exercises/%s", e->id ? e->id : "?");
    return buf;
}

/* Input number k of sweep value s: 0 the visible one, then the hidden ones
 * (numbered s * hidden + k - 1, as the runs of a grading number them). */
static void probe_input(const struct exercise *e, uint64_t seed, size_t s, int k, float *in)
{
    if (k == 0) {
        for (int p = 0; p < e->in_planes; p++)
            for (int i = 0; i < e->in_n; i++)
                in[p * e->in_n + i] = e->visible[p][i];
    } else {
        exercise_hidden_input(e, seed, (unsigned)(s * (size_t)e->hidden + (size_t)k - 1), in);
    }
}

static void run_name(const struct exercise *e, size_t s, int k, char *buf, size_t n)
{
    if (k == 0)
        snprintf(buf, n, "%s = %d, the visible input", e->param ? e->param : "PARAM", e->sweep[s]);
    else
        snprintf(buf, n, "%s = %d, hidden input %d", e->param ? e->param : "PARAM", e->sweep[s], k);
}

/* The child's side: every run twice, nothing shared with the parent but
 * the answer written to fd. */
static void probe_child(const struct exercise *e, uint64_t seed, uint32_t bound_ms, int fd)
{
    /* the fault as the kernel gives it, not as a sanitizer's or the
     * server's handler would word it, and no core file for it */
    static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM };
    for (size_t f = 0; f < sizeof faults / sizeof faults[0]; f++)
        signal(faults[f], SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
    /* a backstop for when the parent is gone and cannot kill a loop */
    alarm(bound_ms / 1000u + 2u);
    struct probe_answer a = { .status = PROBE_OK };
    float in[EX_MAX_CELLS];
    double first[EX_MAX_CELLS], second[EX_MAX_CELLS];
    int cells = exercise_out_cells(e);
    char run[96];
    for (size_t s = 0; s < e->nsweep && a.status == PROBE_OK; s++) {
        for (int k = 0; k <= e->hidden && a.status == PROBE_OK; k++) {
            probe_input(e, seed, s, k, in);
            /* a cell the reference leaves unwritten reads as NaN, not as
             * whatever the stack held */
            for (int c = 0; c < cells; c++)
                first[c] = second[c] = NAN;
            e->reference(e->sweep[s], in, first);
            e->reference(e->sweep[s], in, second);
            for (int c = 0; c < cells; c++) {
                int p = c / e->out_n, i = c % e->out_n;
                run_name(e, s, k, run, sizeof run);
                if (!isfinite(first[c])) {
                    a.status = PROBE_NOT_FINITE;
                    snprintf(a.msg, sizeof a.msg, "the reference gives %g (%s, plane %d, "
                             "index %d): every output must be a finite number", first[c], run,
                             p, i);
                    break;
                }
                if (memcmp(&first[c], &second[c], sizeof first[c]) != 0) {
                    a.status = PROBE_NONDETERMINISTIC;
                    snprintf(a.msg, sizeof a.msg, "the reference gives different outputs for "
                             "the same input twice (%s, plane %d, index %d: %.17g, then %.17g)",
                             run, p, i, first[c], second[c]);
                    break;
                }
            }
        }
    }
    ssize_t w = write(fd, &a, sizeof a);
    _exit(w == (ssize_t)sizeof a ? 0 : 1);
}

/* Reads the child's answer for at most until_ms (a monotonic time): true
 * when it came whole; false on end of file (the child died) or timeout
 * (*timed_out set). */
static bool read_answer(int fd, double until_ms, struct probe_answer *a, bool *timed_out)
{
    size_t got = 0;
    *timed_out = false;
    while (got < sizeof *a) {
        double left = until_ms - clock_now_ms();
        if (left <= 0) {
            *timed_out = true;
            return false;
        }
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, (int)left + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            continue;   /* the loop's clock decides */
        if (r < 0)
            return false;
        ssize_t n = read(fd, (char *)a + got, sizeof *a - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        got += (size_t)n;
    }
    return true;
}

enum exercise_probe exercise_reference_probe(const struct exercise *e, const char *where,
                                             uint64_t seed, uint32_t bound_ms,
                                             char *msg, size_t msgsz)
{
    char fb[64];
    const char *dir = exercise_check_where(e, where, fb, sizeof fb);
    if (!e->reference) {
        snprintf(msg, msgsz, "%s/reference.c: not built in: add %s to exercises/LIST and run "
                 "ninja", dir, e->id ? e->id : "its id");
        return PROBE_FAILED;
    }
    if (e->in_n < 1 || e->in_n > EX_MAX_N || e->in_planes < 1 || e->in_planes > EX_MAX_PLANES ||
        e->out_n < 1 || e->out_n > EX_MAX_N || e->out_planes < 1 ||
        e->out_planes > EX_MAX_PLANES || e->nsweep < 1 || e->nsweep > EX_MAX_SWEEP ||
        e->hidden < 0 || e->hidden > EX_MAX_HIDDEN || e->hidden_grid < 1 ||
        e->hidden_hi < e->hidden_lo) {
        snprintf(msg, msgsz, "%s/exercise.json: sizes out of bounds: the reference cannot be "
                 "run", dir);
        return PROBE_FAILED;
    }
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(msg, msgsz, "%s/reference.c: cannot probe the reference: pipe: %s", dir,
                 strerror(errno));
        return PROBE_FAILED;
    }
    /* what stdio holds would be written twice, once by the child */
    fflush(NULL);
    double until = clock_now_ms() + bound_ms;
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(msg, msgsz, "%s/reference.c: cannot probe the reference: fork: %s", dir,
                 strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return PROBE_FAILED;
    }
    if (pid == 0) {
        close(fds[0]);
        probe_child(e, seed, bound_ms, fds[1]);
    }
    close(fds[1]);
    struct probe_answer a;
    bool timed_out;
    bool answered = read_answer(fds[0], until, &a, &timed_out);
    close(fds[0]);
    if (!answered)
        kill(pid, SIGKILL);   /* a loop, or a child that died: killing the dead is harmless */
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (answered && a.status != PROBE_OK) {
        a.msg[sizeof a.msg - 1] = '\0';
        snprintf(msg, msgsz, "%s/reference.c: %s", dir, a.msg);
        return a.status >= PROBE_OK && a.status <= PROBE_FAILED ? (enum exercise_probe)a.status
                                                                : PROBE_FAILED;
    }
    if (answered)
        return PROBE_OK;
    if (timed_out) {
        snprintf(msg, msgsz, "%s/reference.c: the reference did not return within %u ms "
                 "(it was stopped)", dir, bound_ms);
        return PROBE_TIMEOUT;
    }
    if (WIFSIGNALED(ws)) {
        int sig = WTERMSIG(ws);
        snprintf(msg, msgsz, "%s/reference.c: the reference crashed (signal %d, %s)", dir, sig,
                 sig == SIGALRM ? "its time ran out" : strsignal(sig));
        return PROBE_CRASHED;
    }
    snprintf(msg, msgsz, "%s/reference.c: the reference ended its process (exit status %d)",
             dir, WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
    return PROBE_CRASHED;
}

bool exercise_check_add(struct exercise_check *c, const char *fmt, ...)
{
    char buf[EXERCISE_CHECK_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **grown = realloc(c->problems, (c->nproblems + 1) * sizeof *grown);
    if (!grown)
        return false;
    c->problems = grown;
    if (!(grown[c->nproblems] = strdup(buf)))
        return false;
    c->nproblems++;
    return true;
}

/* What a verdict got, as the messages say it: "Accepted", "Wrong Answer
 * (twiddle_sign)", "Compilation Error: line 3: ...". */
static void got_text(const struct verdict *v, char *buf, size_t n)
{
    const char *st = verdict_status_to_str(v->status);
    if (v->status == VERDICT_ACCEPTED)
        snprintf(buf, n, "%s", st);
    else if (v->status == VERDICT_WRONG_ANSWER)
        snprintf(buf, n, "%s (%s)", st,
                 v->diagnosis && v->diagnosis->id ? v->diagnosis->id : "no diagnosis");
    else
        snprintf(buf, n, "%s: %.200s", st, v->message ? v->message : "no message");
}

static const char *diagnosis_id(const struct verdict *v)
{
    return v->status == VERDICT_WRONG_ANSWER && v->diagnosis ? v->diagnosis->id : NULL;
}

/* One solution against its expect line; false only when out of memory. */
static bool check_solution(struct exercise_check *c, const char *dir,
                           const struct exercise_solution *s, const struct verdict *v)
{
    char got[320];
    got_text(v, got, sizeof got);
    const char *id = diagnosis_id(v);
    bool ok;
    if (v->status == VERDICT_INTERNAL_ERROR)
        /* the grader's fault, not the file's: still no start on it */
        ok = false;
    else if (s->expect == EXPECT_ACCEPTED)
        ok = v->status == VERDICT_ACCEPTED;
    else if (s->mistake)
        ok = id && strcmp(id, s->mistake) == 0;
    else
        ok = v->status != VERDICT_ACCEPTED;
    if (ok) {
        c->solutions_ok++;
        return true;
    }
    return exercise_check_add(c, "%s/%s: expected %s%s%s, got %s", dir, s->file,
                              s->expect == EXPECT_ACCEPTED ? "accepted" : "wrong",
                              s->mistake ? " " : "", s->mistake ? s->mistake : "", got);
}

/* Mistake m must be diagnosed as itself: diagnosed as an earlier one, the
 * two gave equal outputs on every run. False only when out of memory. */
static bool check_mistake(struct exercise_check *c, const struct exercise *e, const char *dir,
                          size_t m, const struct verdict *v)
{
    const struct exercise_mistake *mk = &e->mistakes[m];
    const char *id = diagnosis_id(v);
    if (id && strcmp(id, mk->id) == 0) {
        c->mistakes_ok++;
        return true;
    }
    for (size_t j = 0; id && j < e->nmistakes; j++)
        if (j != m && strcmp(id, e->mistakes[j].id) == 0)
            return exercise_check_add(c, "%s/mistakes/%s.glsl and %s/mistakes/%s.glsl give "
                                      "equal outputs on every run: no input tells them "
                                      "apart", dir, e->mistakes[j].id, dir, mk->id);
    char got[320];
    got_text(v, got, sizeof got);
    if (v->status == VERDICT_ACCEPTED)
        return exercise_check_add(c, "%s/mistakes/%s.glsl: expected Wrong Answer (%s), got "
                                  "Accepted: a mistake must give wrong outputs", dir, mk->id,
                                  mk->id);
    return exercise_check_add(c, "%s/mistakes/%s.glsl: expected Wrong Answer (%s), got %s",
                              dir, mk->id, mk->id, got);
}

bool exercise_check_run(const struct exercise *e, const char *where, exercise_grade_fn grade,
                        void *arg, struct exercise_check *out)
{
    char fb[64], msg[EXERCISE_CHECK_MESSAGE_MAX];
    const char *dir = exercise_check_where(e, where, fb, sizeof fb);
    *out = (struct exercise_check){ 0 };

    enum exercise_probe pr = exercise_reference_probe(e, dir, TASK_DEFAULT_SEED,
                                                      EXERCISE_REFERENCE_PROBE_MS,
                                                      msg, sizeof msg);
    if (pr != PROBE_OK)
        /* grading runs the reference in the grader's process: one that
         * crashes or loops would take the grader with it */
        return exercise_check_add(out, "%s (its solutions were not graded)", msg);
    out->reference_ok = true;

    for (size_t i = 0; i < e->nsolutions; i++) {
        const struct exercise_solution *s = &e->solutions[i];
        struct verdict *v = grade(arg, e, s->body, s->len);
        bool ok = v && check_solution(out, dir, s, v);
        verdict_free(v);
        if (!ok)
            return false;
    }
    /* a built-in search names its own mistakes; the files are the
     * diagnosis only where there is none */
    if (e->diagnosis)
        return true;
    for (size_t m = 0; m < e->nmistakes; m++) {
        struct verdict *v = grade(arg, e, e->mistakes[m].body, e->mistakes[m].len);
        bool ok = v && check_mistake(out, e, dir, m, v);
        verdict_free(v);
        if (!ok)
            return false;
    }
    return true;
}

void exercise_check_summary(const struct exercise *e, const char *where,
                            const struct exercise_check *c, char *buf, size_t bufsz)
{
    char fb[64];
    snprintf(buf, bufsz, "%s: %zu solution%s as expected, %zu mistake%s, reference %s",
             exercise_check_where(e, where, fb, sizeof fb), c->solutions_ok,
             c->solutions_ok == 1 ? "" : "s",
             c->mistakes_ok, c->mistakes_ok == 1 ? "" : "s",
             c->reference_ok ? "deterministic" : "not checked");
}

void exercise_check_clear(struct exercise_check *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nproblems; i++)
        free(c->problems[i]);
    free(c->problems);
    *c = (struct exercise_check){ 0 };
}

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

const char *exercise_differs(const struct exercise *a, const struct exercise *b)
{
    if (!same_text(a->function, b->function) || !same_text(a->input, b->input) ||
        !same_text(a->param, b->param) || !same_text(a->signature, b->signature))
        return "the kernel's names";
    if (a->in_n != b->in_n || a->in_planes != b->in_planes || a->out_n != b->out_n ||
        a->out_planes != b->out_planes)
        return "the sizes";
    if (a->nsweep != b->nsweep || memcmp(a->sweep, b->sweep, sizeof a->sweep) ||
        a->hidden != b->hidden)
        return "the parameter's values";
    if (a->hidden_lo != b->hidden_lo || a->hidden_hi != b->hidden_hi ||
        a->hidden_grid != b->hidden_grid || memcmp(a->visible, b->visible, sizeof a->visible))
        return "the inputs";
    if (a->atol != b->atol || a->rtol != b->rtol)
        return "the tolerance";
    if (a->loop_budget != b->loop_budget)
        return "the loop budget";
    if (!same_text(a->diagnosis, b->diagnosis))
        return "the diagnosis";
    if (a->nsolutions != b->nsolutions)
        return "the solutions";
    for (size_t i = 0; i < a->nsolutions; i++)
        if (a->solutions[i].len != b->solutions[i].len ||
            memcmp(a->solutions[i].body, b->solutions[i].body, a->solutions[i].len))
            return "the solutions";
    if (a->nmistakes != b->nmistakes)
        return "the mistakes";
    for (size_t i = 0; i < a->nmistakes; i++)
        if (a->mistakes[i].len != b->mistakes[i].len ||
            memcmp(a->mistakes[i].body, b->mistakes[i].body, a->mistakes[i].len) ||
            !same_text(a->mistakes[i].title, b->mistakes[i].title) ||
            !same_text(a->mistakes[i].explanation, b->mistakes[i].explanation))
            return "the mistakes";
    return NULL;
}
