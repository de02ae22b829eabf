/*
 * spirv_cost.h - what a compiled kernel would cost a device, bounded
 * before any device sees it.
 *
 * A verdict must mean the same on lavapipe and on a GPU. Two kinds of
 * kernel would otherwise get a verdict that depends on the device: huge
 * per-thread arrays (lavapipe's LLVM runs out of memory, a GPU spills to
 * memory and runs), and programs that grow huge once every call is
 * inlined, as every driver does (a CPU driver compiles for seconds, a GPU
 * driver may not). Both are refused here, from the module alone.
 */
#ifndef BUTTERFLY_SPIRV_COST_H
#define BUTTERFLY_SPIRV_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/defaults.h"

/* Bytes of Function and Private variables one thread may declare, all
 * functions together. The butterfly needs a few dozen. */
#define SPIRV_COST_MAX_PRIVATE_BYTES (16u * 1024u)

/* Cost units of the entry point once every call is inlined (defaults.h:
 * an instruction is 1, a transcendental function more). A correct
 * butterfly is about 350; past this bound the driver's compile could take
 * a slow machine past the deadline, and the verdict would then depend on
 * the machine. */
#define SPIRV_COST_MAX_INLINED MAX_KERNEL_COST_UNITS

/* Cost units one thread may execute: an instruction inside a loop counts
 * once for every iteration the largest loop budget allows (MAX_LOOP_BUDGET + 1),
 * for all loops together. Past it the run, not the compile, could take a
 * slow machine past the deadline. */
#define SPIRV_COST_MAX_RUN MAX_RUN_COST_UNITS

/*
 * The cost units of a module's entry point once every call is inlined
 * (*inlined) and the units one thread may execute (*run), both
 * saturating far above the bounds. False when the module cannot be read
 * or memory runs out. For tests and measurements.
 */
bool spirv_cost_measure(const uint32_t *words, size_t nwords, uint64_t *inlined, uint64_t *run);

/*
 * Checks a module that spirv_check's structural passes accepted. True when
 * it is within both limits; else false with one sentence for the student
 * in msg.
 */
bool spirv_cost_check(const uint32_t *words, size_t nwords, char *msg, size_t msgsz);

#endif
