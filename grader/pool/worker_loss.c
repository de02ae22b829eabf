/* worker_loss.c - a lost worker's job gets a verdict that tells the truth. */
#include "pool/worker_loss.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

const char *worker_loss_to_str(enum worker_loss cause)
{
    switch (cause) {
    case LOSS_DEADLINE: return "deadline";
    case LOSS_STOPPED: return "stopped";
    case LOSS_PROTOCOL: return "protocol";
    case LOSS_EXITED: return "exited";
    }
    return "unknown";
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGXCPU: return "SIGXCPU";
    case SIGILL: return "SIGILL";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
    }
}

static enum verdict_status signal_status(int sig)
{
    switch (sig) {
    case SIGSEGV: return VERDICT_RUNTIME_SIGSEGV;
    case SIGXFSZ: return VERDICT_RUNTIME_SIGXFSZ;
    case SIGFPE: return VERDICT_RUNTIME_SIGFPE;
    case SIGABRT: return VERDICT_RUNTIME_SIGABRT;
    default: return VERDICT_RUNTIME_OTHER;
    }
}

static struct verdict *internal(const char *why)
{
    struct verdict *v = verdict_new(VERDICT_INTERNAL_ERROR, NULL);
    if (v)
        verdict_set_message(v, "The grader failed on its own while grading this (%s); this is "
                            "not a fault of your code. Submit again.", why);
    return v;
}

/* A crash of the compiler or the driver on the student's code. */
static struct verdict *runtime_error(enum verdict_status st, enum grade_stage stage,
                                     const char *how)
{
    struct verdict *v = verdict_new(st, NULL);
    if (!v)
        return NULL;
    if (stage == STAGE_COMPILE)
        verdict_set_message(v, "The compiler crashed on this body: its process %s. Very long "
                            "expressions, very deep nesting or huge macro expansions do this; "
                            "simplify the code.", how);
    else
        verdict_set_message(v, "The process running your kernel %s while it ran.", how);
    return v;
}

struct verdict *worker_loss_verdict(enum worker_loss cause, enum grade_stage stage,
                                    bool have_status, int status, unsigned deadline_ms,
                                    bool *grader_fault)
{
    bool in_code = stage == STAGE_COMPILE || stage == STAGE_RUN;
    char how[96];
    *grader_fault = true;
    switch (cause) {
    case LOSS_DEADLINE: {
        /* the grader's limit, not the code's (verdict_deadline_hit): a
         * fault of the grader's, graded again once on a fresh worker */
        struct verdict *v = verdict_new(VERDICT_INTERNAL_ERROR, NULL);
        if (v)
            verdict_deadline_hit(v, deadline_ms, stage == STAGE_COMPILE);
        return v;
    }
    case LOSS_STOPPED:
        return internal("its worker process was stopped or stopped answering");
    case LOSS_PROTOCOL:
        return internal("its worker process sent a malformed or oversized answer");
    case LOSS_EXITED:
        break;
    }
    if (!have_status)
        return internal("its worker process ended without an exit status");
    if (WIFEXITED(status)) {
        int code = WEXITSTATUS(status);
        if (code == WORKER_EXIT_INTERNAL || !in_code) {
            snprintf(how, sizeof how, "its worker process failed with status %d", code);
            return internal(how);
        }
        *grader_fault = false;
        snprintf(how, sizeof how, "exited with status %d", code);
        return runtime_error(VERDICT_RUNTIME_NZEC, stage, how);
    }
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    /* SIGKILL that the supervisor did not send comes from the system (the
     * out-of-memory killer) or an operator, never from the code itself */
    if (sig == 0 || sig == SIGKILL || !in_code) {
        snprintf(how, sizeof how, "its worker process was killed by %s", signal_name(sig));
        return internal(how);
    }
    *grader_fault = false;
    snprintf(how, sizeof how, "was killed by %s (signal %d)", signal_name(sig), sig);
    return runtime_error(signal_status(sig), stage, how);
}
