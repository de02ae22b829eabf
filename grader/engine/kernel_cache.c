/* kernel_cache.c - a small LRU of compiled kernels with two exact keys. */
#include "engine/kernel_cache.h"

#include <stdlib.h>
#include <string.h>

#include "common/hash.h"

struct kernel_cache {
    struct gpu_context *gpu;
    struct kernel_entry entries[KERNEL_CACHE_ENTRIES];
    size_t n;
    uint64_t clock;
    uint64_t dropped;            /* see kernel_cache_take_dropped */
};

/* Releases what an entry owns and zeroes it. */
static void clear_entry(struct kernel_cache *c, struct kernel_entry *e)
{
    if (e->text)
        c->dropped = e->text_hash;
    gpu_kernel_free(c->gpu, e->kernel);
    free(e->text);
    free(e->module);
    free(e->loop_lines);
    diagnostics_free(e->warnings, e->nwarnings);
    memset(e, 0, sizeof *e);
}

struct kernel_cache *kernel_cache_new(struct gpu_context *gpu)
{
    struct kernel_cache *c = calloc(1, sizeof *c);
    if (c)
        c->gpu = gpu;
    return c;
}

void kernel_cache_clear(struct kernel_cache *c)
{
    for (size_t i = 0; i < c->n; i++)
        clear_entry(c, &c->entries[i]);
    c->n = 0;
}

void kernel_cache_free(struct kernel_cache *c)
{
    if (!c)
        return;
    kernel_cache_clear(c);
    free(c);
}

struct kernel_entry *kernel_cache_by_text(struct kernel_cache *c, const struct exercise *ex,
                                          const char *text, size_t len)
{
    uint64_t h = hash_fnv1a64(text, len);
    for (size_t i = 0; i < c->n; i++) {
        struct kernel_entry *e = &c->entries[i];
        if (e->exercise == ex && e->text_hash == h && e->text_len == len &&
            !memcmp(e->text, text, len)) {
            e->last_used = ++c->clock;
            return e;
        }
    }
    return NULL;
}

struct kernel_entry *kernel_cache_by_module(struct kernel_cache *c, const struct exercise *ex,
                                            const uint32_t *words, size_t nwords)
{
    uint64_t h = hash_fnv1a64(words, nwords * sizeof *words);
    for (size_t i = 0; i < c->n; i++) {
        struct kernel_entry *e = &c->entries[i];
        if (e->exercise == ex && e->module_hash == h && e->module_words == nwords &&
            !memcmp(e->module, words, nwords * sizeof *words)) {
            e->last_used = ++c->clock;
            return e;
        }
    }
    return NULL;
}

static void *copy_of(const void *p, size_t bytes)
{
    void *q = malloc(bytes ? bytes : 1);
    if (q && bytes)
        memcpy(q, p, bytes);
    return q;
}

uint64_t kernel_cache_take_dropped(struct kernel_cache *c)
{
    uint64_t d = c->dropped;
    c->dropped = 0;
    return d;
}

bool kernel_cache_retext(struct kernel_cache *c, struct kernel_entry *e, const char *text,
                         size_t len,
                         const int *loop_lines, size_t nloops,
                         const struct diagnostic *warnings, size_t nwarnings)
{
    char *t = copy_of(text, len);
    int *lines = copy_of(loop_lines, nloops * sizeof *loop_lines);
    struct diagnostic *w = diagnostics_copy(warnings, nwarnings);
    if (!t || !lines || !w) {
        free(t);
        free(lines);
        if (w)
            diagnostics_free(w, nwarnings);
        return false;
    }
    if (e->text)
        c->dropped = e->text_hash;
    free(e->text);
    free(e->loop_lines);
    diagnostics_free(e->warnings, e->nwarnings);
    e->text = t;
    e->text_len = len;
    e->text_hash = hash_fnv1a64(text, len);
    e->loop_lines = lines;
    e->nloops = nloops;
    e->warnings = w;
    e->nwarnings = nwarnings;
    return true;
}

struct kernel_entry *kernel_cache_add(struct kernel_cache *c, const struct exercise *ex,
                                      struct gpu_kernel *kernel,
                                      const uint32_t *module, size_t module_words,
                                      const char *text, size_t len, const int *loop_lines,
                                      size_t nloops, const struct diagnostic *warnings,
                                      size_t nwarnings)
{
    struct kernel_entry *e;
    if (c->n < KERNEL_CACHE_ENTRIES) {
        e = &c->entries[c->n++];
    } else {
        e = &c->entries[0];
        for (size_t i = 1; i < c->n; i++)
            if (c->entries[i].last_used < e->last_used)
                e = &c->entries[i];
        clear_entry(c, e);
    }
    e->exercise = ex;
    e->kernel = kernel;
    e->module = copy_of(module, module_words * sizeof *module);
    e->module_words = module_words;
    e->module_hash = hash_fnv1a64(module, module_words * sizeof *module);
    e->last_used = ++c->clock;
    if (!e->module || !kernel_cache_retext(c, e, text, len, loop_lines, nloops, warnings, nwarnings)) {
        clear_entry(c, e);
        /* keep the array dense: the cleared slot takes the last entry */
        *e = c->entries[--c->n];
        memset(&c->entries[c->n], 0, sizeof c->entries[c->n]);
        return NULL;
    }
    return e;
}
