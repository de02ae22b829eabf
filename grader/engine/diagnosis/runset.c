/* runset.c - the runs of one grading, grouped by half. */
#include "engine/diagnosis/runset.h"

#include <string.h>

#include "engine/compare.h"

bool runset_init(struct runset *rs, const struct exercise *t, const struct gpu_run *runs,
                 size_t nruns)
{
    memset(rs, 0, sizeof *rs);
    if (nruns == 0 || nruns > BF_RUNS)
        return false;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t r = 0; r < nruns; r++) {
            bool visible = compare_run_is_visible(t, &runs[r]);
            if (visible != (pass == 0))
                continue;
            for (int h = 0; h < BF_NHALVES; h++) {
                if (t->sweep[h] != runs[r].half)
                    continue;
                rs->run[h][rs->n[h]++] = (int)r;
                rs->nvisible[h] += visible;
            }
        }
    }
    for (int h = 0; h < BF_NHALVES; h++) {
        int rank = 0;
        for (int g = 0; g < BF_NHALVES; g++)
            rank += t->sweep[g] > t->sweep[h] || (t->sweep[g] == t->sweep[h] && g < h);
        rs->order[rank] = h;
    }
    return true;
}

const float (*runset_input(const struct gpu_run *run))[BF_N]
{
    return (const float (*)[BF_N])run->spec;
}
