/* bench_util.h - distinct submissions and order statistics for benchmarks. */
#ifndef BUTTERFLY_BENCH_UTIL_H
#define BUTTERFLY_BENCH_UTIL_H

#include <stddef.h>

/*
 * Writes submission number k into buf: the correct body for even k and a
 * wrong one (twiddle sign) for odd k, each with its own constant so no two
 * are alike and no cache anywhere can serve one from another. Returns the
 * length.
 */
size_t bench_submission(unsigned k, char *buf, size_t bufsz);

/*
 * As bench_submission, but a correct body whose twiddle angle is counted
 * up in a loop (r iterations per thread): what the loop budget's counting
 * costs shows on it. Returns the length.
 */
size_t bench_submission_loop(unsigned k, char *buf, size_t bufsz);

/* Sorts xs (n values) and returns the q-quantile (0..1), nearest rank. */
double bench_quantile(double *xs, size_t n, double q);

#endif
