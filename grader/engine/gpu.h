/* gpu.h - one Vulkan device per process, and the dispatch of a kernel. */
#ifndef BUTTERFLY_GPU_H
#define BUTTERFLY_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "task.h"

/* The input of one z-slice of the dispatch; matches bf_run_t in std430. */
struct gpu_run {
    int32_t half;
    float spec[TASK_CELLS];   /* re[0..7] then im[0..7] */
};

struct gpu_device_info {
    char name[256];
    const char *type;         /* "discrete", "integrated", "virtual", "cpu", "other" */
    char driver[256];         /* driver name and version info */
    uint32_t index;           /* in vkEnumeratePhysicalDevices order */
};

enum gpu_status {
    GPU_OK,
    GPU_TIMEOUT,       /* the fence did not signal in time: the context is now unusable */
    GPU_DEVICE_LOST,   /* the context is unusable */
    GPU_ERROR,         /* this kernel failed (pipeline creation, say); the context is fine */
};

struct gpu_timings {
    double pipeline_ms;       /* pipeline creation through the end of the dispatch */
    double run_ms;            /* device time of the dispatch; < 0 when unknown */
};

struct gpu_context;

/*
 * Lists the Vulkan devices, one line each, to `out`. Returns the number
 * listed, or -1 with a reason in err when Vulkan itself is unavailable.
 */
int gpu_list_devices(FILE *out, char *err, size_t errsz);

/* Called once the device is chosen and before it is created (a worker sets
 * its limits there, which depend on the device type). False aborts. */
typedef bool (*gpu_before_device_fn)(const struct gpu_device_info *dev, void *arg,
                                     char *err, size_t errsz);

/*
 * Creates the instance and the device. `selector` names a device by index
 * or by a case-insensitive substring of its name; NULL or "" picks the best:
 * a discrete GPU, else an integrated one, else a CPU device such as
 * lavapipe. `before_device` (may be NULL) runs between the choice and the
 * creation. Returns NULL with a reason in err on failure.
 */
struct gpu_context *gpu_context_new(const char *selector, gpu_before_device_fn before_device,
                                    void *arg, char *err, size_t errsz);

/*
 * Frees the context. Accepts NULL. After GPU_TIMEOUT the device is left
 * alive on purpose: destroying it would block until the runaway dispatch
 * ends. Such a process should exit soon.
 */
void gpu_context_free(struct gpu_context *g);

/* The chosen device. Never NULL for a live context. */
const struct gpu_device_info *gpu_context_device(const struct gpu_context *g);

/*
 * Runs `spirv` over `nruns` runs (at most TASK_RUNS) as one dispatch, one
 * z-slice per run, and copies the TASK_CELLS outputs per run into `out`.
 * Every output starts as NaN. Waits at most timeout_ms for the device.
 * On GPU_ERROR, err says why.
 */
enum gpu_status gpu_run(struct gpu_context *g, const uint32_t *spirv, size_t nwords,
                        const struct gpu_run *runs, size_t nruns, float *out,
                        uint32_t timeout_ms, struct gpu_timings *t,
                        char *err, size_t errsz);

#endif
