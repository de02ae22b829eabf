/*
 * batch_gradebook.h - gradebook.csv read back: the batch's check of what it
 * wrote. The layout and its writer are gradebook/default_layout.h's.
 */
#ifndef BUTTERFLY_BATCH_GRADEBOOK_H
#define BUTTERFLY_BATCH_GRADEBOOK_H

#include <stdio.h>

#include "gradebook/default_layout.h"

/*
 * Reads a gradebook back from f and counts its rows after the header.
 * Returns -1 when it does not parse as this gradebook (a row with another
 * number of columns, a header that differs).
 */
long batch_gradebook_count_rows(FILE *f);

#endif
