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
 * One half's visible cells (of verdict v, whose grid it is) as the report
 * shows them: the grid of ok / XX (for the butterfly 8 x 2), then under
 * "failing cells:" the line "i=K real: expected E, got G" for each
 * failing cell.
 */
void report_cells(FILE *out, const struct verdict *v, const struct half_result *h);

/* How many of one half's visible cells (of verdict v's grid) failed. */
int report_wrong_cells(const struct verdict *v, const struct half_result *h);

/* The name the reports give plane y of v's grid: "real" and "imag" for a
 * complex (two-plane) grid, else "p0", "p1", ... A static string. */
const char *report_plane_name(const struct verdict *v, int y);

/* A cell's value as the reports write it: NaN, Infinity and -Infinity by
 * name (the harness writes every cell, so that is what the kernel
 * returned), else %.6g. Writes into buf and returns it. */
const char *report_value(double x, char *buf, size_t size);

/* The same report in a malloc'd string the caller frees; NULL on OOM. */
char *report_to_string(const struct verdict *v);

#endif
