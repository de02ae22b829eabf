/*
 * fuzz_compile_log - the parser of glslang's log into diagnostics. The log
 * echoes the body's own text (#error, identifiers), so it is as hostile
 * as the body. Checked: every diagnostic's line is 1..body_lines + 1, its
 * message is a NUL-terminated string, and no more than max come back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/compile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int body_lines = 1 + data[0] % 100;
    char *log = malloc(size);
    if (!log)
        return 0;
    memcpy(log, data + 1, size - 1);
    log[size - 1] = '\0';
    struct diagnostic diags[COMPILE_MAX_DIAGNOSTICS];
    size_t max = 1 + size % COMPILE_MAX_DIAGNOSTICS;
    size_t n = compile_parse_log(log, body_lines, diags, max);
    if (n > max)
        abort();
    for (size_t i = 0; i < n; i++) {
        if (diags[i].line < 1 || diags[i].line > body_lines + 1 || !diags[i].message)
            abort();
        if (strlen(diags[i].message) >= size)
            abort();
        free(diags[i].message);
    }
    free(log);
    return 0;
}
