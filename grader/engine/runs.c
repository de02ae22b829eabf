/* runs.c - the runs of one grading. */
#include "engine/runs.h"

#include <string.h>

void runs_fill(uint64_t seed, struct gpu_run runs[TASK_RUNS])
{
    for (int h = 0; h < TASK_NHALVES; h++) {
        for (int s = 0; s <= TASK_HIDDEN; s++) {
            struct gpu_run *r = &runs[h * (1 + TASK_HIDDEN) + s];
            float spec[TASK_PLANES][TASK_N];
            if (s == 0)
                memcpy(spec, task_butterfly.visible, sizeof spec);
            else
                task_hidden_spectrum(seed, (unsigned)(h * TASK_HIDDEN + s - 1), spec);
            r->half = task_butterfly.halves[h];
            memcpy(r->spec, spec, sizeof spec);
        }
    }
}
