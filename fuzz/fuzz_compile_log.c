/*
 * fuzz_compile_log - the parser of glslang's log into diagnostics. The log
 * echoes the body's own text (#error, identifiers), so it is as hostile
 * as the body. Checked: every diagnostic's line is 1..body_lines + 1, its
 * message is a NUL-terminated string, and no more than max come back; and
 * the log made visible (compile_text.h) is within its bound, holds no
 * control character but newlines, and is UTF-8.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/compile/compile.h"
#include "engine/compile/compile_text.h"

/* Whether s is UTF-8 with no control character but '\n'. */
static bool visible_utf8(const unsigned char *s)
{
    while (*s) {
        size_t n = *s < 0x80 ? 1 : (*s & 0xe0) == 0xc0 ? 2 : (*s & 0xf0) == 0xe0 ? 3
                 : (*s & 0xf8) == 0xf0 ? 4 : 0;
        if (n == 0 || (n == 1 && ((*s < 0x20 && *s != '\n') || *s == 0x7f)))
            return false;
        for (size_t k = 1; k < n; k++)
            if ((s[k] & 0xc0) != 0x80)
                return false;
        s += n;
    }
    return true;
}

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
    size_t bound = 16 + data[0] * 8u;
    bool cut = false;
    char *shown = compile_text_visible(log, strlen(log), bound, true, &cut);
    if (shown && (strlen(shown) > bound || !visible_utf8((const unsigned char *)shown)))
        abort();
    free(shown);
    free(log);
    return 0;
}
