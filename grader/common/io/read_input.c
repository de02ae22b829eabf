/* read_input.c - bounded whole-file reads. */
#include "common/io/read_input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *read_input(const char *path, size_t max, size_t *len, char *err, size_t errsz)
{
    bool is_stdin = !strcmp(path, "-");
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(err, errsz, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(max + 1);
    size_t n = 0;
    if (buf) {
        while (n < max) {
            size_t got = fread(buf + n, 1, max - n, f);
            if (got == 0)
                break;
            n += got;
        }
    }
    bool failed = !buf || ferror(f);
    if (failed)
        snprintf(err, errsz, "cannot read %s: %s", path, buf ? strerror(errno) : "out of memory");
    if (!is_stdin)
        fclose(f);
    if (failed) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}
