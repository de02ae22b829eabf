/* reference.c - the butterfly pass the student's kernel is graded against,
 * in double, cell by cell the way the kernel must: each output cell works
 * out its own pair and twiddle. The mistakes students make are computed by
 * the butterfly's diagnosis, not here: the reference stays the page's
 * formula and nothing else. */
#include "exercises/exercise_reference.h"

#include <math.h>

#define N 8

void exercise_reference(int half, const float *in, double *out)
{
    for (int i = 0; i < N; i++) {
        int j = (i / half) % 2;     /* 0: lower member, 1: upper */
        int base = i - j * half;    /* the lower member of my pair */
        int r = i % half;           /* my place inside the half-block */
        double ar = in[base], ai = in[N + base];
        double br = in[base + half], bi = in[N + base + half];
        double angle = -M_PI * (double)r / (double)half;
        double wr = cos(angle), wi = sin(angle);
        double tr = wr * br - wi * bi;
        double ti = wr * bi + wi * br;
        out[i] = j == 0 ? ar + tr : ar - tr;
        out[N + i] = j == 0 ? ai + ti : ai - ti;
    }
}
