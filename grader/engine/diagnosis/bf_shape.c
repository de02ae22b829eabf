/* bf_shape.c - whether an exercise is the butterfly's shape. */
#include "engine/diagnosis/bf_shape.h"

#include <stdio.h>
#include <string.h>

#include "common/verdict.h"

_Static_assert(WORKED_CELLS == BF_NHALVES * BF_CELLS,
               "the verdict's worked cells are every visible cell of every half");

/* The diagnosis name an exercise.json gives to ask for this diagnosis. */
#define BF_DIAGNOSIS "butterfly"

bool bf_shape_fits(const struct exercise *e, char *why, size_t whysz)
{
    static const int halves[BF_NHALVES] = { 1, 2, 4 };
    char none[1];
    if (!why) {
        why = none;
        whysz = sizeof none;
    }
    snprintf(why, whysz, "%s", "");
    if (!e->diagnosis || strcmp(e->diagnosis, BF_DIAGNOSIS) != 0)
        return false;
    bool fits = e->in_n == BF_N && e->out_n == BF_N && e->in_planes == BF_PLANES &&
                e->out_planes == BF_PLANES && e->nsweep == BF_NHALVES &&
                e->hidden == BF_HIDDEN;
    for (size_t h = 0; fits && h < BF_NHALVES; h++)
        fits = e->sweep[h] == halves[h];
    if (!fits)
        snprintf(why, whysz, "the \"%s\" diagnosis needs the butterfly's shape: input and "
                 "output %d x %d, the parameter 1, 2, 4, %d hidden inputs each",
                 BF_DIAGNOSIS, BF_PLANES, BF_N, BF_HIDDEN);
    return fits;
}
