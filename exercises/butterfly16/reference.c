/* reference.c - one butterfly pass over a 16-point spectrum, in double,
 * cell by cell as the kernel must: each output cell works out its own
 * pair and twiddle. `half` is a power of two, so its bit in i says which
 * member of the pair i is, and the bits below it say where i sits inside
 * its half-block. */
#include "exercises/exercise_reference.h"

#include <complex.h>
#include <math.h>

#define N 16

void exercise_reference(int half, const float *in, double *out)
{
    for (int i = 0; i < N; i++) {
        int lower = i & ~half, upper = i | half;    /* my pair */
        int r = i & (half - 1);
        double complex a = in[lower] + in[N + lower] * I;
        double complex b = in[upper] + in[N + upper] * I;
        double complex t = cexp(-I * M_PI * (double)r / (double)half) * b;
        double complex y = (i & half) ? a - t : a + t;
        out[i] = creal(y);
        out[N + i] = cimag(y);
    }
}
