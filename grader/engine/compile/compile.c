/* compile.c - shaderc in-process: one compiler per process, no includer. */
#include "engine/compile/compile.h"

#include <shaderc/shaderc.h>
#include <stdlib.h>
#include <string.h>

#include "engine/checks/spirv_strip.h"
#include "engine/compile/compile_messages.h"
#include "engine/compile/compile_text.h"
#include "engine/harness.h"

#define BODY_NAME "body"

struct compiler {
    shaderc_compiler_t sc;
    shaderc_compile_options_t opts;
};

struct compiler *compiler_new(void)
{
    struct compiler *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->sc = shaderc_compiler_initialize();
    c->opts = shaderc_compile_options_initialize();
    if (!c->sc || !c->opts) {
        compiler_free(c);
        return NULL;
    }
    shaderc_compile_options_set_target_env(c->opts, shaderc_target_env_vulkan,
                                           shaderc_env_version_vulkan_1_0);
    /* The driver optimises anyway; shaderc's optimiser would only add time. */
    shaderc_compile_options_set_optimization_level(c->opts,
                                                   shaderc_optimization_level_zero);
    /* Debug information gives every instruction its source line: the loop
     * budget names the loop that ran over, and refusals of the compiled
     * code name the line that caused them. It is stripped before the
     * driver sees the module (spirv_strip.c). */
    shaderc_compile_options_set_generate_debug_info(c->opts);
    /* No include callback is set, so #include can never read a file. */
    return c;
}

void compiler_free(struct compiler *c)
{
    if (!c)
        return;
    if (c->opts)
        shaderc_compile_options_release(c->opts);
    if (c->sc)
        shaderc_compiler_release(c->sc);
    free(c);
}

void compile_result_clear(struct compile_result *r)
{
    if (!r)
        return;
    free(r->spirv);
    diagnostics_free(r->diags, r->ndiags);
    free(r->log);
    memset(r, 0, sizeof *r);
}

static int count_lines(const char *s, size_t len)
{
    int n = 1;
    for (size_t i = 0; i < len; i++)
        n += s[i] == '\n';
    /* a final newline does not start a line of its own */
    if (len > 0 && s[len - 1] == '\n')
        n--;
    return n;
}

/* Parses "NAME:LINE: SEVERITY: MESSAGE" from one log line. */
static bool parse_diag_line(const char *s, size_t n, int body_lines,
                            struct diagnostic *d)
{
    const char *end = s + n;
    const char *colon = memchr(s, ':', n);
    if (!colon)
        return false;
    bool in_body = (size_t)(colon - s) == strlen(BODY_NAME) &&
                   !memcmp(s, BODY_NAME, strlen(BODY_NAME));
    bool in_tail = colon - s == 1 && s[0] == '1';
    if (!in_body && !in_tail)
        return false;
    const char *p = colon + 1;
    long line = 0;
    bool have_line = false;
    while (p < end && *p >= '0' && *p <= '9') {
        if (line < 1000000)
            line = line * 10 + (*p - '0');
        p++;
        have_line = true;
    }
    if (!have_line || p >= end || *p != ':')
        return false;
    p++;
    while (p < end && *p == ' ')
        p++;
    if ((size_t)(end - p) >= 6 && !memcmp(p, "error:", 6)) {
        d->severity = DIAG_ERROR;
        p += 6;
    } else if ((size_t)(end - p) >= 8 && !memcmp(p, "warning:", 8)) {
        d->severity = DIAG_WARNING;
        p += 8;
    } else {
        return false;
    }
    while (p < end && *p == ' ')
        p++;
    /* Faults that surface after the body (an unclosed brace, say) belong to
     * the line just after it, where the editor shows the closing brace. */
    if (in_tail || line > body_lines || line < 1)
        line = body_lines + 1;
    d->line = (int)line;
    d->column = 0;
    d->original = NULL;
    d->message = strndup(p, (size_t)(end - p));
    return d->message != NULL;
}

size_t compile_parse_log(const char *log, int body_lines,
                         struct diagnostic *diags, size_t max)
{
    size_t count = 0;
    const char *s = log;
    while (s && *s && count < max) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        if (parse_diag_line(s, n, body_lines, &diags[count]))
            count++;
        s = nl ? nl + 1 : NULL;
    }
    return count;
}

/* One text of a diagnostic made visible and cut; false on OOM (the text
 * is then left as it was). */
static bool bound_text(char **text, size_t *used)
{
    if (!*text)
        return true;
    char *v = compile_text_visible(*text, strlen(*text), COMPILE_MAX_MESSAGE_BYTES, false, NULL);
    if (!v)
        return false;
    free(*text);
    *text = v;
    *used += strlen(v);
    return true;
}

/* Bounds every diagnostic's texts, and all of them together: those past
 * COMPILE_MAX_DIAG_BYTES are dropped. False on OOM. */
static bool bound_diagnostics(struct diagnostic *diags, size_t *n)
{
    size_t used = 0, k = 0;
    for (; k < *n; k++) {
        size_t before = used;
        if (!bound_text(&diags[k].message, &used) || !bound_text(&diags[k].original, &used))
            return false;
        if (used > COMPILE_MAX_DIAG_BYTES && k > 0) {
            used = before;
            break;
        }
    }
    for (size_t j = k; j < *n; j++) {
        free(diags[j].message);
        free(diags[j].original);
    }
    *n = k;
    return true;
}

bool compiler_compile(struct compiler *c, const char *body, size_t len,
                      struct compile_result *out)
{
    return compiler_compile_exercise(c, exercise_default(), body, len, out);
}

bool compiler_compile_exercise(struct compiler *c, const struct exercise *e, const char *body,
                               size_t len, struct compile_result *out)
{
    memset(out, 0, sizeof *out);
    size_t src_len;
    char *src = harness_assemble(e, body, len, &src_len);
    if (!src)
        return false;

    shaderc_compilation_result_t res = shaderc_compile_into_spv(
        c->sc, src, src_len, shaderc_glsl_compute_shader, BODY_NAME, "main", c->opts);
    free(src);
    if (!res)
        return false;

    bool ok = false;
    const char *log = shaderc_result_get_error_message(res);
    if (log && *log) {
        out->log = compile_text_visible(log, strlen(log), COMPILE_MAX_LOG, true,
                                        &out->log_truncated);
        out->diags = calloc(COMPILE_MAX_DIAGNOSTICS, sizeof *out->diags);
        if (!out->log || !out->diags)
            goto out;
        int lines = count_lines(body, len);
        out->ndiags = compile_parse_log(log, lines, out->diags, COMPILE_MAX_DIAGNOSTICS);
        /* the student reads plain words; glslang's text stays beside them */
        compile_messages_apply(e, out->diags, &out->ndiags, body, len, lines);
        if (!bound_diagnostics(out->diags, &out->ndiags))
            goto out;
    }
    if (shaderc_result_get_compilation_status(res) == shaderc_compilation_status_success) {
        size_t bytes = shaderc_result_get_length(res);
        out->spirv = malloc(bytes ? bytes : 1);
        if (!out->spirv)
            goto out;
        memcpy(out->spirv, shaderc_result_get_bytes(res), bytes);
        /* the lines stay; the copy of the source text goes before any
         * stage reads the module */
        out->nwords = spirv_strip_source_text(out->spirv, bytes / 4);
        out->ok = true;
    }
    ok = true;
out:
    shaderc_result_release(res);
    if (!ok)
        compile_result_clear(out);
    return ok;
}
