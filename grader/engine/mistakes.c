/* mistakes.c - whether a submission's outputs are a named mistake's. */
#include "engine/mistakes.h"

#include "engine/compare.h"

bool mistakes_equal(const struct exercise *e, size_t nruns, const float *got, const float *due)
{
    if (!due || nruns == 0)
        return false;
    size_t cells = nruns * (size_t)exercise_out_cells(e);
    for (size_t c = 0; c < cells; c++)
        if (!compare_cell(due[c], got[c], e->atol, e->rtol))
            return false;
    return true;
}

int mistakes_match(const struct exercise *e, size_t nruns, const float *got,
                   const float *const *due)
{
    for (size_t m = 0; m < e->nmistakes; m++)
        if (mistakes_equal(e, nruns, got, due[m]))
            return (int)m;
    return -1;
}

struct diagnosis *mistakes_diagnosis(const struct exercise_mistake *m)
{
    return diagnosis_new(m->id, m->title, m->explanation, m->hint);
}
