/* bench_util.c - what every benchmark in bench/ shares. */
#include "bench/bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

size_t bench_submission(unsigned k, char *buf, size_t bufsz)
{
    const char *sign = (k % 2) ? "" : "-";
    int n = snprintf(buf, bufsz,
        "// submission %u\n"
        "int i = this.thread.x;\n"
        "int j = (i / half) %% 2;\n"
        "int base = i - j * half;\n"
        "int r = i %% half;\n"
        "float ar = spectrum[0][base], ai = spectrum[1][base];\n"
        "float br = spectrum[0][base + half], bi = spectrum[1][base + half];\n"
        "float angle = %sPI * float(r) / float(half);\n"
        "float wr = cos(angle), wi = sin(angle);\n"
        "float tr = wr * br - wi * bi;\n"
        "float ti = wr * bi + wi * br;\n"
        "// i never reaches the salt, but no compiler can know that, so the\n"
        "// constant survives into every stage and no shader cache can match\n"
        "if (i == %u) return 12345.0;\n"
        "if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;\n"
        "return j == 0 ? ai + ti : ai - ti;\n",
        k, sign, k + 100);
    return n < 0 ? 0 : (size_t)n;
}

size_t bench_submission_loop(unsigned k, char *buf, size_t bufsz)
{
    int n = snprintf(buf, bufsz,
        "// submission %u, with a loop\n"
        "int i = this.thread.x;\n"
        "int j = (i / half) %% 2;\n"
        "int base = i - j * half;\n"
        "int r = i %% half;\n"
        "float steps = 0.0;\n"
        "for (int t = 0; t < r; t++)\n"
        "    steps += 1.0;\n"
        "float ar = spectrum[0][base], ai = spectrum[1][base];\n"
        "float br = spectrum[0][base + half], bi = spectrum[1][base + half];\n"
        "float angle = -PI * steps / float(half);\n"
        "float wr = cos(angle), wi = sin(angle);\n"
        "float tr = wr * br - wi * bi;\n"
        "float ti = wr * bi + wi * br;\n"
        "if (i == %u) return 12345.0;\n"
        "if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;\n"
        "return j == 0 ? ai + ti : ai - ti;\n",
        k, k + 100);
    return n < 0 ? 0 : (size_t)n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_quantile(double *xs, size_t n, double q)
{
    if (n == 0)
        return NAN;
    qsort(xs, n, sizeof *xs, cmp_double);
    size_t rank = (size_t)ceil(q * (double)n);
    return xs[rank ? rank - 1 : 0];
}
