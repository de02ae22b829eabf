#ifndef GRADER_SPIRV_ROBUST_H
#define GRADER_SPIRV_ROBUST_H

/*
 * Bounds every index in a compiled module before it runs.
 *
 * A body may index spectrum (or, through the harness, a buffer) with any
 * value; on a real GPU an out-of-range index reads or writes memory the
 * kernel does not own. Every index of every access chain is clamped into
 * range, with the semantics of SPIRV-Tools' graphics robust-access pass:
 * with our own pass over the word stream (spirv_clamp.c), and for a shape
 * ours leaves alone with SPIRV-Tools' pass, which builds its whole IR and
 * costs several times more. Our pass reads any words safely, so the input
 * is not validated here (SPIRV-Tools' pass assumes a valid module, so its
 * input is): the caller validates the module it hands the driver, after
 * every rewrite, once (grade.c). Implemented in C++ over
 * SPIRV-Tools; callable from C, and no C++ exception crosses this API.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Clamps every index in the module. On success *out (malloc'd, caller
 * frees) and *out_nwords are set and true is returned; on failure false,
 * *out and *out_nwords are left alone, and msg says why (always
 * NUL-terminated when msgsz > 0; empty on success). The Vulkan target
 * environment is chosen from the module's SPIR-V version (1.0: Vulkan 1.0).
 */
bool spirv_robust_apply(const uint32_t *words, size_t nwords, uint32_t **out,
                        size_t *out_nwords, char *msg, size_t msgsz);

/*
 * As spirv_robust_apply, but always with SPIRV-Tools' pass, never ours:
 * the reference the tests compare our pass against (same contract).
 */
bool spirv_robust_apply_tools(const uint32_t *words, size_t nwords, uint32_t **out,
                              size_t *out_nwords, char *msg, size_t msgsz);

/*
 * Runs SPIRV-Tools' validator on a module, for the Vulkan environment of
 * its SPIR-V version. True when it is valid; else false with the first
 * error in msg (always NUL-terminated when msgsz > 0). Grading runs it on
 * the module the driver is handed, after every rewrite.
 */
bool spirv_robust_validate(const uint32_t *words, size_t nwords, char *msg, size_t msgsz);

#ifdef __cplusplus
}
#endif

#endif
