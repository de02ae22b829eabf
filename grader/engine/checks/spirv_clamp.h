/*
 * spirv_clamp.h - our own bounds clamp for the access chains of a
 * validated module, over its word stream.
 *
 * It does what SPIRV-Tools' graphics robust-access pass does for the
 * modules the grader lets through (spirv_check), and only those: the same
 * clamp on every index, so that every verdict stays the same, at a small
 * part of the pass's cost (the pass builds SPIRV-Tools' whole IR, then
 * writes it back out). For anything it is not sure of it changes nothing
 * and says so, and the caller runs SPIRV-Tools' pass instead
 * (spirv_robust.cc): a clamp missed is an out-of-bounds read of the
 * worker's memory.
 */
#ifndef BUTTERFLY_SPIRV_CLAMP_H
#define BUTTERFLY_SPIRV_CLAMP_H

#include <stddef.h>
#include <stdint.h>

enum spirv_clamp_result {
    SPIRV_CLAMP_DONE,          /* *out holds the clamped module */
    SPIRV_CLAMP_NOT_HANDLED,   /* a shape this pass leaves to SPIRV-Tools */
    SPIRV_CLAMP_NO_MEMORY,
};

/*
 * Clamps every index of every OpAccessChain / OpInBoundsAccessChain in the
 * functions reachable from an entry point, as SPIRV-Tools'
 * GraphicsRobustAccessPass does: a struct member index is left as it is;
 * into a vector, matrix or array of N elements (N an OpConstant), a
 * constant index in [0, N-1] is left, a negative one (as signed 32 bits)
 * becomes 0 of the index's type, a larger one N-1 as a signed 32-bit
 * constant (an OpConstantNull index counts as the constant 0), N == 1 makes any index 0 of its type, and any other index
 * becomes GLSL.std.450 SClamp(index, 0, min(N-1, INT32_MAX)) with signed
 * 32-bit bounds, placed just before its access chain. Existing ids keep
 * their meaning; new ones are taken from the bound up.
 *
 * `words` may be any words: they are read safely whatever they hold (the
 * fuzzer checks), and from a module SPIRV-Tools' validator accepts the
 * output is one it accepts too; grading validates the output, not the
 * input (grade.c). On
 * SPIRV_CLAMP_DONE, *out (malloc'd, caller frees) and *out_nwords are set;
 * otherwise they are left alone. SPIRV_CLAMP_NOT_HANDLED, for a shape
 * outside what spirv_check admits or not worth handling here (a runtime
 * array, a specialisation-constant length, an index that is not 32 bits
 * or is a specialisation constant, no GLSL.std.450
 * import, no signed 32-bit int type, addressing other than Logical,
 * variable pointers, OpPtrAccessChain in a function): run SPIRV-Tools'
 * pass instead.
 */
enum spirv_clamp_result spirv_clamp_indices(const uint32_t *words, size_t nwords,
                                            uint32_t **out, size_t *out_nwords);

#endif
