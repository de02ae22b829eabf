/*
 * fuzz_source_check - the checks a body passes before the compiler, and
 * the harness it is spliced into.
 *
 * Besides memory errors, three properties are checked:
 *  - source_check keeps its contract: msg NUL-terminated on refusal, the line
 *    0 or one of the body's lines, and nothing over 64 KiB, empty, or with
 *    a NUL byte ever accepted;
 *  - harness_assemble puts the body verbatim right after "#line 1";
 *  - no forbidden directive gets past the check: every accepted body is
 *    run through glslang's own preprocessor (shaderc, preprocess only) and
 *    the output may hold no directive but the harness's own. This is the
 *    oracle that found the lone-CR and double-continuation bypasses.
 */
#include <shaderc/shaderc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "source_check.h"
#include "task.h"

static shaderc_compiler_t sc;
static shaderc_compile_options_t opts;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sc = shaderc_compiler_initialize();
    opts = shaderc_compile_options_initialize();
    return 0;
}

/* The directives glslang's preprocessed text may hold: the harness's. */
static bool allowed_directive(const char *line, size_t n)
{
    static const char *const ok[] = { "#version 450", "#line 1", "#line 1 1", NULL };
    for (const char *const *a = ok; *a; a++)
        if (strlen(*a) == n && !memcmp(line, *a, n))
            return true;
    return false;
}

static void preprocessor_oracle(const char *src, size_t len, const uint8_t *body, size_t size)
{
    /* A macro can never make a directive, and a macro bomb would only
     * make this slow: bodies with #define are left to the other checks. */
    if (memmem(body, size, "define", 6))
        return;
    shaderc_compilation_result_t r = shaderc_compile_into_preprocessed_text(
        sc, src, len, shaderc_glsl_compute_shader, "body", "main", opts);
    if (!r)
        return;
    if (shaderc_result_get_compilation_status(r) == shaderc_compilation_status_success) {
        const char *out = shaderc_result_get_bytes(r);
        size_t n = shaderc_result_get_length(r);
        for (size_t i = 0; i < n;) {
            const char *nl = memchr(out + i, '\n', n - i);
            size_t end = nl ? (size_t)(nl - out) : n;
            size_t b = i;
            while (b < end && (out[b] == ' ' || out[b] == '\t'))
                b++;
            if (b < end && out[b] == '#' && !allowed_directive(out + b, end - b)) {
                fprintf(stderr, "directive got past source_check: %.*s\n",
                        (int)(end - b), out + b);
                abort();
            }
            i = end + 1;
        }
    } else {
        /* glslang names a directive it acted on in quotes: '#extension' */
        const char *log = shaderc_result_get_error_message(r);
        static const char *const names[] = { "'#extension'", "'#version'", "'#line'",
                                             "'#pragma'", "'#include'", NULL };
        for (const char *const *nm = names; log && *nm; nm++) {
            if (strstr(log, *nm)) {
                fprintf(stderr, "directive got past source_check: %s\n", log);
                abort();
            }
        }
    }
    shaderc_result_release(r);
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
    preprocessor_oracle(src, n, data, size);
    free(src);
    return 0;
}
