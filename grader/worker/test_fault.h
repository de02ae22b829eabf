/*
 * test_fault.h - a fault of the grader's own, on demand, for the tests
 * that prove such faults are retried and never blamed on the code.
 *
 * Only in a test build (any buildtype but release: BUTTERFLY_TEST_HOOKS),
 * so no deployed worker honours it. With BUTTERFLY_TEST_WORKER_FAULT set
 * to "KILL:PATH" or "STOP:PATH", the worker whose job reaches the run
 * while the file PATH exists removes it (one worker wins) and sends itself
 * SIGKILL or SIGSTOP, as an operator or the out-of-memory killer would:
 * on any device, without a kernel slow enough to be caught running.
 * "SLEEP_COMPILE:PATH" and "SLEEP_RUN:PATH" make the worker that reaches
 * that stage sleep TEST_FAULT_SLEEP_S instead, as a machine too slow for
 * the deadline would: the deadline's verdict on any machine's speed.
 */
#define TEST_FAULT_SLEEP_S 60u

#ifndef BUTTERFLY_TEST_FAULT_H
#define BUTTERFLY_TEST_FAULT_H

#include "common/verdict.h"

/* Called as a job reaches `stage`. Does nothing in a release build, when
 * the variable is unset or malformed, or when PATH is not there. */
void test_fault_at(enum grade_stage stage);

/*
 * A job that keeps its worker busy for as long as a test says, the same on
 * every machine: with BUTTERFLY_TEST_SLOW_BODIES=1 in a test build, a body
 * holding the line TEST_SLOW_MARK followed by N sleeps N ms (at most
 * 600000) when it reaches the run, and is then graded as it is. (Before
 * issue 29 tests used kernels that were slow on lavapipe; the cost bounds
 * now refuse every such kernel, and on a GPU they were never slow.) Call
 * with each job's body before grading it.
 */
#define TEST_SLOW_MARK "// butterfly-test-sleep-ms "
void test_fault_body(const char *body, size_t len);

#endif
