/* glslang_oracle.c - glslang's preprocessor, asked about a body. */
#include "tests/support/glslang_oracle.h"

#include <shaderc/shaderc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/harness.h"

static shaderc_compiler_t sc;
static shaderc_compile_options_t opts;

/* The directives glslang's preprocessed text may hold: the harness's. */
static bool allowed_directive(const char *line, size_t n)
{
    static const char *const ok[] = { "#version 450", "#line 1", "#line 1 1", NULL };
    for (const char *const *a = ok; *a; a++)
        if (strlen(*a) == n && !memcmp(line, *a, n))
            return true;
    return false;
}

/*
 * Whether a message of glslang's log is about one of the directives:
 * glslang starts such a message with the directive in quotes, as in
 * "body:3: error: '#extension' : extension not supported". (The text of
 * an #error is in its message too, so the name must come first.)
 */
static bool log_names_directive(const char *log, char *what, size_t whatsz)
{
    static const char *const names[] = { "'#extension'", "'#version'", "'#line'",
                                         "'#pragma'", "'#include'", NULL };
    for (const char *p = log; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        for (const char *kind = "error: "; kind; kind = *kind == 'e' ? "warning: " : NULL) {
            const char *m = memmem(p, n, kind, strlen(kind));
            for (const char *const *nm = names; m && *nm; nm++) {
                if (!strncmp(m + strlen(kind), *nm, strlen(*nm))) {
                    if (what)
                        snprintf(what, whatsz, "%.*s", (int)n, p);
                    return true;
                }
            }
        }
        p = nl ? nl + 1 : NULL;
    }
    return false;
}

bool glslang_acts_on_directive(const char *body, size_t len, char *what, size_t whatsz)
{
    if (!sc) {
        sc = shaderc_compiler_initialize();
        opts = shaderc_compile_options_initialize();
    }
    size_t n;
    char *src = harness_assemble(exercise_default(), body, len, &n);
    if (!src)
        return false;
    shaderc_compilation_result_t r = shaderc_compile_into_preprocessed_text(
        sc, src, n, shaderc_glsl_compute_shader, "body", "main", opts);
    free(src);
    if (!r)
        return false;
    bool acted = false;
    if (shaderc_result_get_compilation_status(r) == shaderc_compilation_status_success) {
        const char *out = shaderc_result_get_bytes(r);
        size_t len_out = shaderc_result_get_length(r);
        for (size_t i = 0; i < len_out && !acted;) {
            const char *nl = memchr(out + i, '\n', len_out - i);
            size_t end = nl ? (size_t)(nl - out) : len_out;
            size_t b = i;
            while (b < end && (out[b] == ' ' || out[b] == '\t'))
                b++;
            if (b < end && out[b] == '#' && !allowed_directive(out + b, end - b)) {
                acted = true;
                if (what)
                    snprintf(what, whatsz, "%.*s", (int)(end - b), out + b);
            }
            i = end + 1;
        }
    } else {
        acted = log_names_directive(shaderc_result_get_error_message(r), what, whatsz);
    }
    shaderc_result_release(r);
    return acted;
}

void glslang_oracle_done(void)
{
    if (opts)
        shaderc_compile_options_release(opts);
    if (sc)
        shaderc_compiler_release(sc);
    sc = NULL;
    opts = NULL;
}
