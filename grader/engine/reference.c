/* reference.c - the butterfly pass the student's kernel is graded against,
 * and its common mistakes, through one code path. */
#include "reference.h"

#include <math.h>
#include <stddef.h>

/* Element k of plane p, with k clamped the way the device clamps it. */
static double element(const float in[TASK_PLANES][TASK_N], int p, int k)
{
    if (k < 0)
        k = 0;
    if (k > TASK_N - 1)
        k = TASK_N - 1;
    return in[p][k];
}

void reference_pass(const float in[TASK_PLANES][TASK_N], int half,
                    double out[TASK_PLANES][TASK_N])
{
    reference_pass_variant(in, half, NULL, out);
}

void reference_pass_variant(const float in[TASK_PLANES][TASK_N], int half,
                            const struct butterfly_variant *v,
                            double out[TASK_PLANES][TASK_N])
{
    static const struct butterfly_variant correct;
    if (!v)
        v = &correct;
    for (int i = 0; i < TASK_N; i++) {
        /* 0: lower member, 1: upper */
        int j = v->j_from_parity ? i % 2 : (i / half) % 2;
        int base = i - j * half;    /* the lower member of my pair */
        int r = i % half;           /* my place inside the half-block */
        int second = v->partner_next ? base + 1 : base + half;
        double ar = element(in, 0, base), ai = element(in, 1, base);
        double br = element(in, 0, second), bi = element(in, 1, second);

        int step = v->angle_from_i ? i : r;
        int size = v->angle_over_size ? TASK_N : half;
        /* as GLSL float(r / half): an int quotient, 0 whenever r < half */
        double fraction = v->angle_int_division ? (double)(step / size)
                                                : (double)step / (double)size;
        double angle = (v->angle_positive ? 1 : -1) * (v->angle_two_pi ? 2 : 1)
                       * M_PI * fraction;
        double wr = cos(angle), wi = sin(angle);
        if (v->no_twiddle) {
            wr = 1;
            wi = 0;
        }
        double tr, ti;
        if (v->componentwise_multiply) {
            tr = wr * br;
            ti = wi * bi;
        } else if (v->conjugate_multiply) {
            tr = wr * br + wi * bi;
            ti = wr * bi - wi * br;
        } else {
            tr = wr * br - wi * bi;
            ti = wr * bi + wi * br;
        }

        bool plus;
        switch (v->ending) {
        case ENDING_BOTH_PLUS:
            plus = true;
            break;
        case ENDING_ROLES_SWAPPED:
            plus = j == 1;
            break;
        default:
            plus = j == 0;
            break;
        }
        double re = plus ? ar + tr : ar - tr;
        double im = plus ? ai + ti : ai - ti;
        double scale = v->scaled_half ? 0.5 : 1.0;
        out[v->planes_swapped ? 1 : 0][i] = scale * re;
        out[v->planes_swapped ? 0 : 1][i] = scale * im;
    }
}
