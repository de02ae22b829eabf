/*
 * csv_dump - prints what the batch's CSV reader reads, for the
 * differential test against Python's csv module (test_csv_differential.py).
 *
 * usage: csv_dump DELIMITER FILE...
 * For each file a line "I", then one line per record: "R" (or "U" when a
 * quoted field runs to the end of the input), then one line per field:
 * "F" and its bytes in hex.
 */
#include <stdio.h>
#include <string.h>

#include "batch/input/csv.h"

static int dump(FILE *in, char delimiter)
{
    struct csv_reader *r = csv_reader_new(in, delimiter, 1 << 20, 4096);
    if (!r)
        return 1;
    const struct csv_field *f;
    size_t n;
    unsigned long line;
    bool dropped;
    enum csv_status st;
    printf("I\n");
    while ((st = csv_reader_next(r, &f, &n, &line, &dropped)) == CSV_RECORD ||
           st == CSV_UNCLOSED) {
        printf("%s\n", st == CSV_RECORD ? "R" : "U");
        for (size_t i = 0; i < n; i++) {
            printf("F ");
            for (size_t k = 0; k < f[i].len; k++)
                printf("%02x", (unsigned char)f[i].data[k]);
            printf("\n");
        }
    }
    csv_reader_free(r);
    return st == CSV_EOF ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 3 || strlen(argv[1]) != 1) {
        fprintf(stderr, "usage: csv_dump DELIMITER FILE...\n");
        return 64;
    }
    int rc = 0;
    for (int i = 2; i < argc && rc == 0; i++) {
        FILE *in = fopen(argv[i], "rb");
        if (!in) {
            perror(argv[i]);
            return 1;
        }
        rc = dump(in, argv[1][0]);
        fclose(in);
    }
    return rc;
}
