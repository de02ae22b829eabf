/*
 * worker_loss.h - what a job's verdict is when its worker is lost.
 *
 * A Runtime Error is a claim about the student's code, so it is given only
 * for what that code did: the compiler or the driver crashing on it.
 * Everything else (the deadline passing, which only a machine too slow or
 * too busy reaches since the cost bounds refuse what could take that long;
 * a worker stopped from outside, killed by the system, out of memory in
 * the grader's own code, breaking the protocol) is the grader's fault:
 * Internal Error, and the pool grades the job again on a fresh worker.
 * Time Limit Exceeded is the loop budget's alone, decided in the worker.
 */
#ifndef BUTTERFLY_WORKER_LOSS_H
#define BUTTERFLY_WORKER_LOSS_H

#include <stdbool.h>

#include "common/io/frame.h"
#include "common/verdict.h"

enum worker_loss {
    LOSS_DEADLINE,   /* the supervisor killed it: its job passed the deadline */
    LOSS_STOPPED,    /* found stopped (SIGSTOP, a debugger) or not taking a job */
    LOSS_PROTOCOL,   /* it sent a bad frame, one over the limit, or one out of turn */
    LOSS_EXITED,     /* it ended by itself; its wait status may be known */
};

/* "deadline", "stopped", ...; never NULL. */
const char *worker_loss_to_str(enum worker_loss cause);

/*
 * The verdict for a job whose worker was lost for `cause` while at `stage`
 * (STAGE_NONE before the worker said), with its wait status
 * when have_status. *grader_fault tells whether the grader, not the code,
 * is to blame: the verdict is then an Internal Error to give only if a
 * retry fails too. NULL only when out of memory.
 */
struct verdict *worker_loss_verdict(enum worker_loss cause, enum grade_stage stage,
                                    bool have_status, int status, unsigned deadline_ms,
                                    bool *grader_fault);

#endif
