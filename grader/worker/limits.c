/* limits.c - rlimits and prctl settings for worker processes. */
#include "worker/limits.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "common/defaults.h"

void limits_init(struct worker_limits *l)
{
    l->cpu_memory_mb = DEFAULT_CPU_MEMORY_MB;
    l->max_open_files = 256;
}

static bool set_limit(int resource, rlim_t value, const char *name, char *err, size_t errsz)
{
    struct rlimit rl = { value, value };
    struct rlimit cur;
    /* never ask for more than the hard limit we already have */
    if (getrlimit(resource, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && cur.rlim_max < value)
        rl.rlim_cur = rl.rlim_max = cur.rlim_max;
    if (setrlimit(resource, &rl) != 0) {
        snprintf(err, errsz, "setrlimit(%s): %s", name, strerror(errno));
        return false;
    }
    return true;
}

bool limits_apply_common(const struct worker_limits *l, char *err, size_t errsz)
{
    /* a worker must never outlive its supervisor */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
        snprintf(err, errsz, "prctl(PR_SET_PDEATHSIG): %s", strerror(errno));
        return false;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(err, errsz, "prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(errno));
        return false;
    }
    /* a crash must not write gigabytes of core to disk */
    return set_limit(RLIMIT_CORE, 0, "RLIMIT_CORE", err, errsz) &&
           set_limit(RLIMIT_NOFILE, l->max_open_files, "RLIMIT_NOFILE", err, errsz);
}

bool limits_apply_for_device(const struct gpu_device_info *dev, void *arg,
                             char *err, size_t errsz)
{
    const struct worker_limits *l = arg;
#ifdef __SANITIZE_ADDRESS__
    /* AddressSanitizer reserves terabytes of shadow address space: under
     * it (in CI's sanitizer build) an address-space cap would stop every
     * worker from starting. */
    (void)dev;
    (void)l;
    return true;
#endif
    /* A macro bomb makes the compiler take gigabytes, and a kernel's local
     * arrays live in the worker's memory on lavapipe: cap them so that
     * they fail inside this worker instead of starving the machine. */
    if (dev->type == DEVICE_CPU && l->cpu_memory_mb > 0)
        return set_limit(RLIMIT_AS, (rlim_t)l->cpu_memory_mb << 20, "RLIMIT_AS", err, errsz);
    return true;
}
