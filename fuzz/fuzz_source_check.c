/*
 * fuzz_source_check - the checks a body passes before the compiler, and
 * the harness it is spliced into.
 *
 * Besides memory errors, three properties are checked:
 *  - source_check keeps its contract: msg NUL-terminated on refusal, the line
 *    0 or one of the body's lines, and nothing over 64 KiB, empty, or with
 *    a NUL byte ever accepted;
 *  - harness_assemble puts the body verbatim right after "#line 1";
 *  - no forbidden directive gets past the check: every accepted body with
 *    at most two #defines is run through glslang's own preprocessor
 *    (tests/support/glslang_oracle.c) and glslang may act on no directive
 *    but the harness's own. This oracle found the lone-CR and
 *    double-continuation bypasses; fuzz/source_check.dict feeds it
 *    quotes, apostrophes, escapes and comment openers.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/task.h"
#include "engine/checks/source_check.h"
#include "engine/harness.h"
#include "tests/support/glslang_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* How many #defines a body may hold before the oracle skips it: a macro
 * bomb needs many, and would only make the oracle slow. Strings in macro
 * bodies are where scanners disagree, so some must get through. */
static size_t count(const uint8_t *data, size_t size, const char *word)
{
    size_t n = 0, w = strlen(word);
    for (const uint8_t *p = data; (p = memmem(p, size - (size_t)(p - data), word, w)); p += w)
        n++;
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char msg[256];
    int line = -1;
    memset(msg, 'x', sizeof msg);
    bool ok = source_check((const char *)data, size, &line, msg, sizeof msg);
    if (!ok && !memchr(msg, '\0', sizeof msg))   /* msg is written on refusal only */
        abort();
    int lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (line < 0 || line > lines)
        abort();
    if (!ok)
        return 0;
    if (size == 0 || size > TASK_MAX_SOURCE || memchr(data, '\0', size))
        abort();

    size_t n;
    char *src = harness_assemble((const char *)data, size, &n);
    if (!src)
        abort();
    const char *mark = strstr(src, "#line 1\n");
    if (!mark || memcmp(mark + 8, data, size) != 0 || mark[8 + size] != '\n' || strlen(src) != n)
        abort();
    free(src);
    char what[512];
    if (count(data, size, "define") <= 2 &&
        glslang_acts_on_directive((const char *)data, size, what, sizeof what)) {
        fprintf(stderr, "directive got past source_check: %s\n", what);
        abort();
    }
    return 0;
}
