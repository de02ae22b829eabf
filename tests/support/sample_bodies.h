/*
 * sample_bodies.h - kernel bodies for the tests that compare the two
 * robust-access passes (tests/unit/test_spirv_clamp.c on the modules,
 * tests/vulkan/test_clamp_device.c on a device).
 */
#ifndef BUTTERFLY_TEST_SAMPLE_BODIES_H
#define BUTTERFLY_TEST_SAMPLE_BODIES_H

#include <stdbool.h>
#include <stddef.h>

/* Bodies that index everything a body can (spectrum, local arrays and
 * arrays of arrays, vectors, matrices, a struct's members, an array of
 * one) with wild values, and one that leaves a function uncalled. */
extern const char *const index_bodies[];
extern const size_t index_bodies_count;

/*
 * Calls fn(arg, file name, body) for every `*.glsl` file in dir (bodies of
 * at most 16 KiB), in the folder's order; returns how many calls returned
 * true. A folder that cannot be opened counts none.
 */
size_t sample_bodies_each(const char *dir,
                          bool (*fn)(void *arg, const char *name, const char *body),
                          void *arg);

#endif
