/* limits.h - what a worker process may use, set before its device exists. */
#ifndef BUTTERFLY_LIMITS_H
#define BUTTERFLY_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/gpu.h"

struct worker_limits {
    /* Address-space cap in MiB for a CPU device (lavapipe), 0 for none.
     * GPU drivers reserve large address ranges up front (for unified
     * memory, say), so a GPU device gets no address-space cap: there the
     * deadline and the machine's own limits bound a runaway. */
    size_t cpu_memory_mb;
    unsigned max_open_files;
};

/* Fills *l with the defaults. */
void limits_init(struct worker_limits *l);

/*
 * Limits that hold whatever the device: no core dumps, no new privileges,
 * few open files, death with the parent. Returns false with err set when
 * one cannot be applied.
 */
bool limits_apply_common(const struct worker_limits *l, char *err, size_t errsz);

/*
 * The limits that depend on the device type; fits gpu_before_device_fn
 * with arg a const struct worker_limits *.
 */
bool limits_apply_for_device(const struct gpu_device_info *dev, void *arg,
                             char *err, size_t errsz);

#endif
