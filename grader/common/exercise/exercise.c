/* exercise.c - the exercises built in.
 *
 * For now the one exercise is the butterfly, described from task.c's
 * table; the loader of exercises/ID/exercise.json replaces this table
 * (issue 33), and nothing that calls these functions changes then.
 */
#include "common/exercise/exercise.h"

#include <string.h>

#include "common/task.h"

/* exercises/butterfly/reference.c, under its built-in name */
void exercise_reference_butterfly(int param, const float *in, double *out);

static struct exercise butterfly;
static bool loaded;

static void load(void)
{
    if (loaded)
        return;
    const struct task *t = &task_butterfly;
    struct exercise *e = &butterfly;
    e->id = t->id;
    e->title = t->title;
    e->subtitle = t->subtitle;
    e->course = "The FFT on the GPU";
    e->order = 2;
    e->starter = t->starter;
    e->function = "butterfly";
    e->signature = t->signature;
    for (const struct task_api_name *a = t->api; a->name && e->napi < EX_MAX_API; a++)
        e->api[e->napi++] = (struct exercise_api_name){ a->name, a->type, a->meaning };
    e->input = "spectrum";
    e->in_n = e->out_n = TASK_N;
    e->in_planes = e->out_planes = TASK_PLANES;
    e->hidden_lo = -128;
    e->hidden_hi = 128;
    e->hidden_grid = 64;
    for (int p = 0; p < TASK_PLANES; p++)
        for (int k = 0; k < TASK_N; k++)
            e->visible[p][k] = t->visible[p][k];
    e->param = "half";
    for (int h = 0; h < TASK_NHALVES; h++)
        e->sweep[e->nsweep++] = t->halves[h];
    e->hidden = TASK_HIDDEN;
    e->atol = t->atol;
    e->rtol = t->rtol;
    e->loop_budget = t->loop_budget;
    e->diagnosis = "butterfly";
    e->reference = exercise_reference_butterfly;
    loaded = true;
}

size_t exercise_count(void)
{
    return 1;
}

const struct exercise *exercise_at(size_t i)
{
    load();
    return i == 0 ? &butterfly : NULL;
}

const struct exercise *exercise_find(const char *id)
{
    load();
    return id && strcmp(id, butterfly.id) == 0 ? &butterfly : NULL;
}

const struct exercise *exercise_default(void)
{
    load();
    return &butterfly;
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
