/* spirv_strip.h - a module without its debug information. */
#ifndef BUTTERFLY_SPIRV_STRIP_H
#define BUTTERFLY_SPIRV_STRIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Copies `words` without the instructions that only describe the source:
 * OpSource, OpSourceContinued, OpSourceExtension, OpString, OpName,
 * OpMemberName, OpLine, OpNoLine and OpModuleProcessed. What remains means
 * what the module computes, so two bodies that differ only in comments,
 * whitespace, line breaks or names strip to the same words. On success
 * *out is malloc'd (the caller frees it) and *out_nwords set; false on a
 * malformed length or when out of memory. The id bound is kept.
 */
bool spirv_strip_debug(const uint32_t *words, size_t nwords, uint32_t **out,
                       size_t *out_nwords);

/*
 * Drops, in place, the copy of the source text that glslang puts in a
 * module compiled with debug information (OpSource's source operand and
 * every OpSourceContinued), keeping the lines (OpString, OpLine) and names
 * the grader reads. The text is about half the words of a module, and
 * every later stage (the checks, the validator, the passes) would read it
 * for nothing. Returns the new length; `nwords` unchanged when the module
 * is malformed (the checks that follow refuse it).
 */
size_t spirv_strip_source_text(uint32_t *words, size_t nwords);

#endif
