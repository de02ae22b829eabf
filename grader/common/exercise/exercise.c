/* exercise.c - the exercises built in: exercises/LIST's folders, embedded
 * by the build (scripts/embed_exercises.py) and loaded here once, the
 * first time any of these functions is called, under pthread_once: the
 * server's threads may ask first at the same time. The build has loaded
 * every one of them already (exercise_validate), so a load that fails
 * here is a build that skipped its check: the exercise is left out and
 * said so on stderr, never half served.
 */
#include "common/exercise/exercise.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/exercise/exercise_embedded.h"
#include "common/exercise/exercise_load.h"

/* The id every older route and record means (issue 33). */
#define DEFAULT_EXERCISE "butterfly"

static pthread_once_t once = PTHREAD_ONCE_INIT;
/* in LIST's order; never freed: they live as long as the program */
static struct exercise **loaded;
static size_t nloaded;

static void load(void)
{
    loaded = calloc(exercise_embedded_count ? exercise_embedded_count : 1, sizeof *loaded);
    if (!loaded) {
        fprintf(stderr, "exercises: out of memory\n");
        return;
    }
    for (size_t i = 0; i < exercise_embedded_count; i++) {
        const struct exercise_embedded *x = &exercise_embedded[i];
        char err[EX_LOAD_MAX_ERROR];
        struct exercise *e = exercise_load(x->dir, x->json, x->json_len, x->files, x->nfiles,
                                           err, sizeof err);
        if (!e) {
            fprintf(stderr, "%s\n", err);
            continue;
        }
        bool twice = false;
        for (size_t j = 0; j < nloaded; j++)
            twice = twice || strcmp(loaded[j]->id, e->id) == 0;
        if (twice) {
            /* the first keeps the id: records already name it */
            fprintf(stderr, "exercises/LIST: %s: listed twice, the second left out\n", e->id);
            exercise_load_free(e);
            continue;
        }
        e->reference = x->reference;
        loaded[nloaded++] = e;
    }
}

size_t exercise_count(void)
{
    pthread_once(&once, load);
    return nloaded;
}

const struct exercise *exercise_at(size_t i)
{
    pthread_once(&once, load);
    return i < nloaded ? loaded[i] : NULL;
}

const struct exercise *exercise_find(const char *id)
{
    pthread_once(&once, load);
    for (size_t i = 0; id && i < nloaded; i++)
        if (strcmp(loaded[i]->id, id) == 0)
            return loaded[i];
    return NULL;
}

const struct exercise *exercise_default(void)
{
    return exercise_find(DEFAULT_EXERCISE);
}

/* splitmix64: tiny, well mixed, and the same everywhere. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void exercise_hidden_input(const struct exercise *e, uint64_t seed, unsigned index, float *in)
{
    uint64_t state = seed ^ (0x5851f42d4c957f2dull * (index + 1u));
    uint64_t span = (uint64_t)(e->hidden_hi - e->hidden_lo) + 1u;
    for (int c = 0; c < e->in_planes * e->in_n; c++) {
        int k = e->hidden_lo + (int)(splitmix64(&state) % span);
        in[c] = (float)k / (float)e->hidden_grid;
    }
}

const char *exercise_hidden_word(const struct exercise *e)
{
    return strcmp(e->input, "spectrum") ? "inputs" : "spectra";
}
