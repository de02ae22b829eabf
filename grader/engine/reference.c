/* reference.c - the butterfly pass the student's kernel is graded against. */
#include "engine/reference.h"

#include <math.h>

void reference_pass(const float in[TASK_PLANES][TASK_N], int half,
                    double out[TASK_PLANES][TASK_N])
{
    for (int i = 0; i < TASK_N; i++) {
        int j = (i / half) % 2;     /* 0: lower member, 1: upper */
        int base = i - j * half;    /* the lower member of my pair */
        int r = i % half;           /* my place inside the half-block */
        double ar = in[0][base], ai = in[1][base];
        double br = in[0][base + half], bi = in[1][base + half];
        double angle = -M_PI * (double)r / (double)half;
        double wr = cos(angle), wi = sin(angle);
        double tr = wr * br - wi * bi;
        double ti = wr * bi + wi * br;
        out[0][i] = j == 0 ? ar + tr : ar - tr;
        out[1][i] = j == 0 ? ai + ti : ai - ti;
    }
}
