/* compare.h - whether one output cell is right. */
#ifndef BUTTERFLY_COMPARE_H
#define BUTTERFLY_COMPARE_H

#include <stdbool.h>

/*
 * True when `got` is within atol + rtol * |expected| of `expected`.
 * A NaN or an infinity in `got` never passes (the output buffer is filled
 * with NaN before the run, so a cell the kernel did not write fails), and
 * -0.0 equals +0.0. `expected` must be finite.
 */
bool compare_cell(double expected, double got, double atol, double rtol);

#endif
