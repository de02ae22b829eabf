/* test_fault.c - a fault of the grader's own, on demand (test builds). */
#include "worker/test_fault.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void test_fault_at(enum grade_stage stage)
{
#ifdef BUTTERFLY_TEST_HOOKS
    const char *spec = getenv("BUTTERFLY_TEST_WORKER_FAULT");
    if (!spec)
        return;
    /* a worker as slow as a machine that cannot keep the deadline: it
     * sleeps past any deadline a test sets, and the supervisor kills it */
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
