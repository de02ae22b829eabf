/*
 * kernel_cache.h - the compiled kernels a worker keeps, so that an
 * identical resubmission (students press Run again on unchanged code, and
 * many submit the starter) costs a dispatch, not a compile.
 *
 * An entry is found by the body's exact text, or by the module glslang
 * made from it with its debug information stripped (spirv_strip.h), so an
 * edit to comments, whitespace or names still finds it. Both keys are
 * compared whole, never by hash alone: a crafted hash collision must not
 * hand one student another's kernel. Only the compile is reused; every
 * grading runs the kernel afresh on fresh hidden spectra. An entry is its
 * exercise's: the same text is another kernel in another exercise's
 * harness (and loop budget). Least recently used entries go first.
 */
#ifndef BUTTERFLY_KERNEL_CACHE_H
#define BUTTERFLY_KERNEL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/defaults.h"
#include "common/verdict.h"
#include "engine/gpu.h"

/* KERNEL_CACHE_ENTRIES kernels kept per worker (common/defaults.h): a
 * class's distinct kernels of the last minutes. */

struct kernel_entry {
    const struct exercise *exercise;   /* whose harness it was built in */
    char *text;                  /* the body it was last found by */
    size_t text_len;
    uint32_t *module;            /* glslang's module, debug information stripped */
    size_t module_words;
    struct gpu_kernel *kernel;   /* the pipeline, checked and instrumented */
    int *loop_lines;             /* loop k (from 1) is on line loop_lines[k - 1] of text */
    size_t nloops;
    struct diagnostic *warnings; /* what compiling text said */
    size_t nwarnings;
    uint64_t text_hash, module_hash, last_used;
};

struct kernel_cache;

/* A new empty cache whose kernels belong to gpu; NULL when out of memory. */
struct kernel_cache *kernel_cache_new(struct gpu_context *gpu);

/* Frees every kernel in the cache, leaving it empty. */
void kernel_cache_clear(struct kernel_cache *c);

/* Frees the cache and every kernel in it. Accepts NULL. */
void kernel_cache_free(struct kernel_cache *c);

/* The entry of exercise ex last found by exactly this text, or NULL.
 * Marks it used. */
struct kernel_entry *kernel_cache_by_text(struct kernel_cache *c, const struct exercise *ex,
                                          const char *text, size_t len);

/* The entry of exercise ex of exactly this stripped module, or NULL. Marks
 * it used. */
struct kernel_entry *kernel_cache_by_module(struct kernel_cache *c, const struct exercise *ex,
                                            const uint32_t *words, size_t nwords);

/*
 * Makes text (with its loop lines and warnings) the entry's text key. The
 * arrays are copied. False when out of memory (the entry keeps its old key).
 */
bool kernel_cache_retext(struct kernel_cache *c, struct kernel_entry *e, const char *text,
                         size_t len,
                         const int *loop_lines, size_t nloops,
                         const struct diagnostic *warnings, size_t nwarnings);

/*
 * hash_fnv1a64 of the last text that stopped being a key (its entry was
 * evicted or found by another text) since the last call, or 0; then 0. The
 * worker tells the supervisor, whose record of what it holds follows.
 */
uint64_t kernel_cache_take_dropped(struct kernel_cache *c);

/*
 * Adds an entry for a new kernel of exercise ex, evicting the least recently used when
 * full. The cache takes the kernel (and frees it on failure); everything
 * else is copied. Returns the entry, or NULL when out of memory.
 */
struct kernel_entry *kernel_cache_add(struct kernel_cache *c, const struct exercise *ex,
                                      struct gpu_kernel *kernel,
                                      const uint32_t *module, size_t module_words,
                                      const char *text, size_t len, const int *loop_lines,
                                      size_t nloops, const struct diagnostic *warnings,
                                      size_t nwarnings);

#endif
