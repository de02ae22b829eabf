/* report.h - the readable report of a verdict, for terminals and curl. */
#ifndef BUTTERFLY_REPORT_H
#define BUTTERFLY_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "common/verdict.h"

/*
 * Writes the report: the verdict and its message, the named mistake or
 * where it fails, the worked cell, the diagnostics (with the compiler's
 * own words where they were rewritten), and per half the 8x2 grid of cells
 * (ok / XX) with expected against got for every failing cell, then the
 * hidden spectra and the timings.
 */
void report_write(FILE *out, const struct verdict *v);

/*
 * One half's visible cells as the report shows them: the 8x2 grid of ok /
 * XX, then under "failing cells:" the line "i=K real: expected E,
 * got G" for each failing cell.
 */
void report_cells(FILE *out, const struct half_result *h);

/* How many of one half's visible cells failed. */
int report_wrong_cells(const struct half_result *h);

/* A cell's value as the reports write it: NaN, Infinity and -Infinity by
 * name (the harness writes every cell, so that is what the kernel
 * returned), else %.6g. Writes into buf and returns it. */
const char *report_value(double x, char *buf, size_t size);

/* The same report in a malloc'd string the caller frees; NULL on OOM. */
char *report_to_string(const struct verdict *v);

#endif
