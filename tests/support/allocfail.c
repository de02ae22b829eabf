/*
 * allocfail.c - an LD_PRELOAD shim that makes malloc, calloc, realloc and
 * the aligned allocators fail on demand, for tests/http/test_allocfail.py
 * (issue 30: every allocation checked, over the server's start and each
 * route). glibc's own strdup, asprintf, fopen ... call the public malloc,
 * so they fail through it too.
 *
 * Only the process whose program name is ALLOCFAIL_PROG fails (the
 * server, not the workers it spawns, which inherit the environment).
 *
 *   ALLOCFAIL_NTH=N          fail the Nth allocation counted from start
 *                            (1-based), once; a sweep over start
 *   ALLOCFAIL_PERMILLE=P     once armed, fail each allocation with
 *                            probability P/1000 (a seeded generator:
 *                            ALLOCFAIL_SEED)
 *   SIGUSR2                  toggles that armed state (off at start), so
 *                            start-up runs clean and the routes don't
 *
 * On a failure it sets errno to ENOMEM and returns NULL, as glibc does.
 * ALLOCFAIL_REPORT=path: at exit, the number of allocations counted, of
 * failures injected, and the count at the first SIGUSR2 are written there
 * (a clean run signalled once it listens: the start's length).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *(*real_malloc)(size_t);
static void (*real_free)(void *);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);

static atomic_int state;          /* 0 unset, 1 resolving, 2 ready */
static int active;                /* this is the process to fail */
static unsigned long long nth;
static unsigned permille;
static atomic_int armed;
static atomic_ullong counted, failed;
static atomic_ullong rng;
static const char *report;

/* dlsym may allocate (calloc for its error buffer) before the real
 * allocators are known: those few come from this static arena. */
static char arena[8192];
static atomic_size_t arena_used;

static void *arena_take(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    size_t at = atomic_fetch_add(&arena_used, n);
    if (at + n > sizeof arena)
        return NULL;
    return arena + at;
}

static int in_arena(const void *p)
{
    return (const char *)p >= arena && (const char *)p < arena + sizeof arena;
}

static atomic_ullong marked;      /* the count at the first SIGUSR2 */

static void toggle(int sig)
{
    (void)sig;
    unsigned long long zero = 0;
    atomic_compare_exchange_strong(&marked, &zero, atomic_load(&counted));
    atomic_store(&armed, !atomic_load(&armed));
}

static void resolve(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&state, &expect, 1)) {
        while (atomic_load(&state) != 2)
            ;
        return;
    }
    real_malloc = dlsym(RTLD_NEXT, "malloc");
    real_calloc = dlsym(RTLD_NEXT, "calloc");
    real_free = dlsym(RTLD_NEXT, "free");
    real_realloc = dlsym(RTLD_NEXT, "realloc");
    real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    real_memalign = dlsym(RTLD_NEXT, "memalign");
    const char *prog = getenv("ALLOCFAIL_PROG");
    active = prog && strcmp(program_invocation_short_name, prog) == 0;
    const char *v = getenv("ALLOCFAIL_NTH");
    nth = v ? strtoull(v, NULL, 10) : 0;
    v = getenv("ALLOCFAIL_PERMILLE");
    permille = v ? (unsigned)strtoul(v, NULL, 10) : 0;
    v = getenv("ALLOCFAIL_SEED");
    atomic_store(&rng, (v ? strtoull(v, NULL, 10) : 1) * 2654435761u + 1);
    report = getenv("ALLOCFAIL_REPORT");
    atomic_store(&state, 2);
    if (active) {
        struct sigaction sa = { 0 };
        sa.sa_handler = toggle;
        sa.sa_flags = SA_RESTART;
        sigaction(SIGUSR2, &sa, NULL);
    }
}

/* true when this allocation is to fail */
static int should_fail(void)
{
    if (!active)
        return 0;
    unsigned long long c = atomic_fetch_add(&counted, 1) + 1;
    if (nth && c == nth) {
        atomic_fetch_add(&failed, 1);
        return 1;
    }
    if (permille && atomic_load(&armed)) {
        /* xorshift64*, shared: which thread draws which number is the
         * scheduler's, the rate is not */
        unsigned long long x = atomic_load(&rng), y;
        do {
            y = x;
            y ^= y >> 12;
            y ^= y << 25;
            y ^= y >> 27;
        } while (!atomic_compare_exchange_weak(&rng, &x, y));
        if ((y * 2685821657736338717ull >> 33) % 1000 < permille) {
            atomic_fetch_add(&failed, 1);
            return 1;
        }
    }
    return 0;
}

static void *refuse(void)
{
    errno = ENOMEM;
    return NULL;
}

void *malloc(size_t n)
{
    if (atomic_load(&state) != 2) {
        if (atomic_load(&state) == 1)
            return arena_take(n);
        resolve();
    }
    return should_fail() ? refuse() : real_malloc(n);
}

void *calloc(size_t k, size_t n)
{
    if (atomic_load(&state) != 2) {
        if (atomic_load(&state) == 1) {
            void *p = arena_take(k * n);   /* the arena is zeroed */
            return p;
        }
        resolve();
    }
    return should_fail() ? refuse() : real_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
    if (atomic_load(&state) != 2)
        resolve();
    if (in_arena(p)) {
        void *q = real_malloc(n);
        if (q)
            memcpy(q, p, n < 64 ? n : 64);   /* arena blocks are tiny */
        return q;
    }
    /* realloc(p, 0) frees: never refused */
    if (n && should_fail())
        return refuse();
    return real_realloc(p, n);
}

void free(void *p)
{
    if (!p || in_arena(p))
        return;
    if (atomic_load(&state) != 2) {
        if (atomic_load(&state) == 1)
            return;   /* dlsym's own, while resolving: kept */
        resolve();
    }
    real_free(p);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    if (atomic_load(&state) != 2)
        resolve();
    if (should_fail())
        return ENOMEM;
    return real_posix_memalign(out, align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
    if (atomic_load(&state) != 2)
        resolve();
    return should_fail() ? refuse() : real_aligned_alloc(align, n);
}

/* glibc's old aligned allocation (malloc.h), which some libraries still call. */
void *memalign(size_t align, size_t n);
void *memalign(size_t align, size_t n)
{
    if (atomic_load(&state) != 2)
        resolve();
    return should_fail() ? refuse() : real_memalign(align, n);
}

/* the counts, for the sweep's bound: written with write(2), no stdio */
__attribute__((destructor)) static void allocfail_report(void)
{
    if (!active || !report)
        return;
    int fd = open(report, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return;
    char line[64];
    int n = snprintf(line, sizeof line, "%llu %llu %llu\n",
                     (unsigned long long)atomic_load(&counted),
                     (unsigned long long)atomic_load(&failed),
                     (unsigned long long)atomic_load(&marked));
    if (n > 0)
        (void)!write(fd, line, (size_t)n);
    close(fd);
}
