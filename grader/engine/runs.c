/* runs.c - the runs of one grading. */
#include "engine/runs.h"

#include <string.h>

void runs_visible_input(const struct exercise *e, float in[EX_MAX_CELLS])
{
    memset(in, 0, EX_MAX_CELLS * sizeof *in);
    for (int p = 0; p < e->in_planes; p++)
        memcpy(in + p * e->in_n, e->visible[p], (size_t)e->in_n * sizeof *in);
}

void runs_fill(const struct exercise *e, uint64_t seed, struct gpu_run *runs)
{
    int per = 1 + e->hidden;
    for (size_t h = 0; h < e->nsweep; h++) {
        for (int s = 0; s < per; s++) {
            struct gpu_run *r = &runs[h * (size_t)per + (size_t)s];
            memset(r, 0, sizeof *r);
            r->half = e->sweep[h];
            if (s == 0)
                runs_visible_input(e, r->spec);
            else
                exercise_hidden_input(e, seed, (unsigned)(h * (size_t)e->hidden) + (unsigned)s - 1u,
                                      r->spec);
        }
    }
}
