/* test_fault.c - a fault of the grader's own, on demand (test builds). */
#include "worker/test_fault.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The sleep the job being graded asked for (test_fault_body), in ms. */
static unsigned long body_sleep_ms;

void test_fault_body(const char *body, size_t len)
{
    body_sleep_ms = 0;
#ifdef BUTTERFLY_TEST_HOOKS
    const char *on = getenv("BUTTERFLY_TEST_SLOW_BODIES");
    size_t m = strlen(TEST_SLOW_MARK);
    if (!on || strcmp(on, "1"))
        return;
    const char *p = memmem(body, len, TEST_SLOW_MARK, m);
    if (!p)
        return;
    unsigned long ms = 0;
    for (p += m; p < body + len && *p >= '0' && *p <= '9' && ms <= 600000; p++)
        ms = ms * 10 + (unsigned long)(*p - '0');
    body_sleep_ms = ms <= 600000 ? ms : 600000;
#else
    (void)body;
    (void)len;
#endif
}

void test_fault_at(enum grade_stage stage)
{
#ifdef BUTTERFLY_TEST_HOOKS
    if (stage == STAGE_RUN && body_sleep_ms > 0) {
        struct timespec ts = { (time_t)(body_sleep_ms / 1000),
                               (long)(body_sleep_ms % 1000) * 1000000L };
        body_sleep_ms = 0;
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    const char *spec = getenv("BUTTERFLY_TEST_WORKER_FAULT");
    if (!spec)
        return;
    /* a worker as slow as a machine that cannot keep the deadline: it
     * sleeps past any deadline a test sets, and the supervisor kills it */
    /* the compiler crashing on a body, as glslang did on bodies the
     * checks now refuse before it runs: the supervisor's answer to a
     * compiler that dies, tested without a body that crashes it */
    if (stage == STAGE_COMPILE && !strncmp(spec, "SEGV_COMPILE:", 13)) {
        if (spec[13] && unlink(spec + 13) == 0)
            kill(getpid(), SIGSEGV);
        return;
    }
    const char *slow = stage == STAGE_COMPILE ? "SLEEP_COMPILE:" : "SLEEP_RUN:";
    if (stage != STAGE_NONE && !strncmp(spec, slow, strlen(slow))) {
        if (spec[strlen(slow)] && unlink(spec + strlen(slow)) == 0)
            sleep(TEST_FAULT_SLEEP_S);
        return;
    }
    if (stage != STAGE_RUN)
        return;
    int sig = !strncmp(spec, "KILL:", 5) ? SIGKILL : !strncmp(spec, "STOP:", 5) ? SIGSTOP : 0;
    /* unlink is the token: of workers racing for it, one succeeds */
    if (sig && spec[5] && unlink(spec + 5) == 0)
        kill(getpid(), sig);
#else
    (void)stage;
#endif
}
