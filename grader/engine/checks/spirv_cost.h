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

/* Bytes of Function and Private variables one thread may declare, all
 * functions together. The butterfly needs a few dozen. */
#define SPIRV_COST_MAX_PRIVATE_BYTES (16u * 1024u)

/* Instructions of the entry point once every call is inlined. The
 * harness alone is about 150; see docs/RELIABILITY.md for the measured
 * compile time at the limit. */
#define SPIRV_COST_MAX_INLINED 60000u

/*
 * Checks a module that spirv_check's structural passes accepted. True when
 * it is within both limits; else false with one sentence for the student
 * in msg.
 */
bool spirv_cost_check(const uint32_t *words, size_t nwords, char *msg, size_t msgsz);

#endif
