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

#endif
