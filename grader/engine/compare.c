/* compare.c - the one comparison every cell goes through. */
#include "engine/compare.h"

#include <math.h>

bool compare_cell(double expected, double got, double atol, double rtol)
{
    if (!isfinite(got) || !isfinite(expected))
        return false;
    /* written so that a NaN anywhere makes the test false, not true */
    return fabs(got - expected) <= atol + rtol * fabs(expected);
}
