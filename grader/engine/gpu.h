/* gpu.h - one Vulkan device per process, and the dispatch of a kernel. */
#ifndef BUTTERFLY_GPU_H
#define BUTTERFLY_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/exercise/exercise.h"
#include "common/verdict.h"

/*
 * The input of one run: its leading bytes are bf_in_block in std430 (the
 * parameter, then in_planes * in_n floats, plane-major: spec[p * in_n + k]).
 * The names are the butterfly's (half, spectrum) for every exercise.
 */
struct gpu_run {
    int32_t half;              /* the sweep value */
    float spec[EX_MAX_CELLS];  /* its exercise's in_planes * in_n first */
};

struct gpu_device_info {
    char name[256];
    enum device_type type;
    char driver[256];         /* driver name and version info */
    uint32_t index;           /* in vkEnumeratePhysicalDevices order */
};

enum gpu_status {
    GPU_OK,
    GPU_TIMEOUT,       /* the fence did not signal in time: the context is now unusable */
    GPU_DEVICE_LOST,   /* the context is unusable */
    GPU_ERROR,         /* this kernel failed (pipeline creation, say); the context is fine */
};

/* "ok", "timeout", "device lost" or "error"; never NULL. */
const char *gpu_status_to_str(enum gpu_status s);

struct gpu_timings {
    double pipeline_ms;       /* wall time of the runs, plus building the pipeline in gpu_run */
    double run_ms;            /* device time of the runs; < 0 when unknown */
};

struct gpu_context;

/* A compiled compute pipeline, reusable for any number of runs. */
struct gpu_kernel;

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
 * ends. Such a process should exit soon. Kernels must be freed first.
 */
void gpu_context_free(struct gpu_context *g);

/* The chosen device. Never NULL for a live context. */
const struct gpu_device_info *gpu_context_device(const struct gpu_context *g);

/*
 * Builds the pipeline of `spirv`, the harness of exercise e (its interface:
 * binding 0 one run's input, binding 1 its outputs, sized by e). On GPU_OK *out is a new kernel the
 * caller frees with gpu_kernel_free; otherwise *out is NULL and err says
 * why. A CPU driver may compile the code only at its first run.
 */
enum gpu_status gpu_kernel_new(struct gpu_context *g, const struct exercise *e,
                               const uint32_t *spirv, size_t nwords, struct gpu_kernel **out,
                               char *err, size_t errsz);

/* Frees a kernel of context g. Accepts NULL. */
void gpu_kernel_free(struct gpu_context *g, struct gpu_kernel *k);

/*
 * Runs kernel k over `nruns` runs (at most EX_MAX_RUNS), each a dispatch of
 * its own that sees only its own input: the input and output bindings are
 * dynamic, and each dispatch binds exactly its run's slice, of k's
 * exercise's sizes. Copies the exercise's out_planes * out_n outputs per
 * run into `out` (run, then plane, then index: compact) and,
 * when `loops` is not NULL, each cell's loop-budget mark (0: none) into
 * `loops`. Every output starts as NaN. Waits at most timeout_ms for the
 * device. On GPU_ERROR or GPU_DEVICE_LOST err says why.
 */
enum gpu_status gpu_kernel_run(struct gpu_context *g, struct gpu_kernel *k,
                               const struct gpu_run *runs, size_t nruns, float *out,
                               uint32_t *loops, uint32_t timeout_ms, struct gpu_timings *t,
                               char *err, size_t errsz);

/*
 * gpu_kernel_new, gpu_kernel_run and gpu_kernel_free in one call, for a
 * kernel that runs once; t->pipeline_ms then includes building it.
 */
enum gpu_status gpu_run(struct gpu_context *g, const struct exercise *e, const uint32_t *spirv,
                        size_t nwords, const struct gpu_run *runs, size_t nruns, float *out,
                        uint32_t *loops, uint32_t timeout_ms, struct gpu_timings *t,
                        char *err, size_t errsz);

#endif
