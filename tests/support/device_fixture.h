/*
 * device_fixture.h - what a test on a Vulkan device grades with: the
 * grader's compiler and a device context, or a whole grader (tests/vulkan).
 */
#ifndef BUTTERFLY_TEST_DEVICE_FIXTURE_H
#define BUTTERFLY_TEST_DEVICE_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>

struct compiler;
struct gpu_context;
struct grader;
struct exercise;
struct verdict;

struct device_fixture {
    struct compiler *compiler;
    struct gpu_context *gpu;
};

/* Opens both, on the device BUTTERFLY_DEVICE names (else the grader's
 * default). False, with the reason on stderr, when either cannot be made;
 * what was made is freed then. */
bool device_fixture_open(struct device_fixture *f);

/* Frees what device_fixture_open made. Accepts a zeroed fixture. */
void device_fixture_close(struct device_fixture *f);

/* A grader with default options on the device BUTTERFLY_DEVICE names
 * (else the grader's default), for grader_free; NULL, with the reason on
 * stderr, when it cannot be made. */
struct grader *device_fixture_grader(void);

/* An exercise_grade_fn (common/exercise/exercise_check.h) grading on the
 * grader `arg` (a struct grader), in process: what the device tests give
 * exercise_check_run. */
struct verdict *device_fixture_grade(void *arg, const struct exercise *e, const char *body,
                                     size_t len);

#endif
