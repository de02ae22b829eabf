/* report.h - the readable report of a verdict, for terminals and curl. */
#ifndef BUTTERFLY_REPORT_H
#define BUTTERFLY_REPORT_H

#include <stdio.h>

#include "verdict.h"

/*
 * Writes the report: the verdict and its message, the named mistake or
 * where it fails, the worked cell, the diagnostics (with the compiler's
 * own words where they were rewritten), and per half the 8x2 grid of cells
 * (ok / XX) with expected against got for every failing cell, then the
 * hidden spectra and the timings.
 */
void report_write(FILE *out, const struct verdict *v);

/* The same report in a malloc'd string the caller frees; NULL on OOM. */
char *report_to_string(const struct verdict *v);

#endif
