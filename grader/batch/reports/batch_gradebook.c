/* batch_gradebook.c - reading gradebook.csv back (its rows: gradebook/default_layout.c). */
#include "batch/reports/batch_gradebook.h"

#include <stdlib.h>
#include <string.h>

#include "batch/input/csv.h"

long batch_gradebook_count_rows(FILE *f)
{
    struct csv_reader *r = csv_reader_new(f, ',', 1024 * 1024, GRADEBOOK_DEFAULT_COLUMNS + 1);
    if (!r)
        return -1;
    const struct csv_field *fields;
    size_t n;
    unsigned long line;
    bool dropped;
    long rows = -1;
    enum csv_status st = csv_reader_next(r, &fields, &n, &line, &dropped);
    if (st == CSV_RECORD && n == GRADEBOOK_DEFAULT_COLUMNS) {
        rows = 0;
        for (size_t i = 0; i < n && rows == 0; i++)
            if (strcmp(fields[i].data, gradebook_default_column(i)))
                rows = -1;
    }
    while (rows >= 0 && (st = csv_reader_next(r, &fields, &n, &line, &dropped)) != CSV_EOF) {
        if (st != CSV_RECORD || n != GRADEBOOK_DEFAULT_COLUMNS)
            rows = -1;
        else
            rows++;
    }
    csv_reader_free(r);
    return rows;
}
