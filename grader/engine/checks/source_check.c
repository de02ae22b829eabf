/* source_check.c - refuse bodies that must never reach glslang. */
#include "engine/checks/source_check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/defaults.h"
#include "common/task.h"
#include "engine/checks/directive_scan.h"
#include "engine/checks/macro_cost.h"

/* Length of the valid UTF-8 sequence at s, or 0 when it is not valid:
 * no overlong forms, no surrogates, nothing above U+10FFFF. */
static size_t utf8_sequence(const unsigned char *s, size_t left)
{
    unsigned char c = s[0];
    size_t n;
    uint32_t cp;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (left < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    return n;
}

static bool is_blank(const char *s, size_t len)
{
    /* memchr, not strchr: strchr finds the terminator for a NUL byte, and
     * a body of NUL bytes would be called empty */
    for (size_t i = 0; i < len; i++)
        if (!memchr(" \t\r\n\v\f", s[i], 6))
            return false;
    return true;
}

/*
 * Directives the harness owns. A body could otherwise pick another GLSL
 * version, enable extensions (buffer references read raw memory), read
 * files from the server (#include), or move the line numbers the
 * diagnostics are mapped by (#line).
 */
static const char *const forbidden_directives[] = {
    "version", "extension", "include", "line", "pragma", NULL,
};

static const char *forbidden_reason(const char *name)
{
    if (!strcmp(name, "version"))
        return "the harness sets the GLSL version; remove the #version line";
    if (!strcmp(name, "extension"))
        return "extensions are not available in this exercise; remove the #extension line";
    if (!strcmp(name, "include"))
        return "#include is not available: the body must stand on its own";
    if (!strcmp(name, "line"))
        return "#line would move the line numbers of your diagnostics; remove it";
    return "#pragma is not available in this exercise; remove it";
}

struct directive_hit {
    int line;
    char name[DIRECTIVE_NAME_MAX + 1];
};

/* Stops the scan at the first forbidden directive. */
static bool forbidden_found(const char *name, int line, void *arg)
{
    struct directive_hit *hit = arg;
    for (const char *const *f = forbidden_directives; *f; f++) {
        if (!strcmp(name, *f)) {
            hit->line = line;
            snprintf(hit->name, sizeof hit->name, "%s", name);
            return false;
        }
    }
    return true;
}

/*
 * Looks for the directives the harness owns the way glslang's preprocessor
 * finds directives (directive_scan.h): behind comments, line
 * continuations and every newline form, and never inside a string, so
 * that '#define S "/ *"' hides nothing on the next line.
 */
static bool check_directives(const char *s, size_t len, int *line_out,
                             char *msg, size_t msgsz)
{
    struct directive_hit hit = { 0, "" };
    directive_scan(s, len, forbidden_found, &hit);
    if (hit.line == 0)
        return true;
    *line_out = hit.line;
    snprintf(msg, msgsz, "line %d: #%s is not allowed: %s.", hit.line, hit.name,
             forbidden_reason(hit.name));
    return false;
}

/*
 * Refuses a body whose macros would make the compiler read more than
 * MAX_PREPROCESSED_TOKENS tokens (a macro bomb: a few hundred bytes that
 * glslang takes minutes over), counted before it runs, so the verdict is
 * the same on a fast machine and a slow one.
 */
static bool check_expansion(const char *s, size_t len, int *line_out, char *msg, size_t msgsz)
{
    struct macro_cost mc;
    if (macro_cost_count(s, len, MAX_PREPROCESSED_TOKENS, &mc))
        return true;
    *line_out = mc.line;
    if (mc.no_memory)
        snprintf(msg, msgsz, "The grader ran out of memory counting the macros of this body.");
    else if (mc.long_expression)
        snprintf(msg, msgsz, "line %d: one statement has more than %u operators once its macros "
                 "are expanded: the compiler's tree would be as deep as the chain; split it into "
                 "statements or use a loop.", mc.line, MAX_EXPRESSION_OPERATORS);
    else if (mc.too_deep)
        snprintf(msg, msgsz, "line %d: macro calls are nested more than %d deep in each other's "
                 "arguments; write the code out or use a loop.", mc.line, MACRO_COST_MAX_DEPTH);
    else
        snprintf(msg, msgsz, "line %d: your macros expand to more than %u tokens for the "
                 "compiler (the limit on a body's code after its macros are expanded): macros "
                 "that expand to huge code would take the compiler longer than any deadline; "
                 "use a loop instead.", mc.line, MAX_PREPROCESSED_TOKENS);
    return false;
}

bool source_check(const char *body, size_t len, int *line,
                  char *msg, size_t msgsz)
{
    *line = 0;
    if (len > TASK_MAX_SOURCE) {
        snprintf(msg, msgsz, "The body is over the limit of %d bytes (64 KiB).",
                 TASK_MAX_SOURCE);
        return false;
    }
    if (len == 0 || is_blank(body, len)) {
        snprintf(msg, msgsz, "The body is empty: write the statements of the kernel, ending in a return.");
        return false;
    }
    int cur = 1, control_line = 0;
    size_t control_at = 0;
    for (size_t i = 0; i < len;) {
        if (body[i] == '\0') {
            *line = cur;
            snprintf(msg, msgsz, "line %d: the body contains a NUL byte; is this a binary file?", cur);
            return false;
        }
        size_t n = utf8_sequence((const unsigned char *)body + i, len - i);
        if (n == 0) {
            *line = cur;
            snprintf(msg, msgsz, "line %d: the body is not valid UTF-8 (byte %zu); save the file as UTF-8 text.",
                     cur, i + 1);
            return false;
        }
        /* A control character has no place in GLSL text, and glslang
         * echoes stray bytes into its messages: a body of ESC bytes made
         * a verdict too large to deliver, and drives a terminal that shows
         * the text report. Whitespace controls are GLSL's own. A NUL or
         * bad UTF-8 later on says more about the file, so it wins. */
        unsigned char c = (unsigned char)body[i];
        if (!control_line && ((c < 0x20 && !strchr("\t\n\v\f\r", c)) || c == 0x7f)) {
            control_line = cur;
            control_at = i;
        }
        if (body[i] == '\n')
            cur++;
        i += n;
    }
    if (control_line) {
        *line = control_line;
        snprintf(msg, msgsz, "line %d: the body contains a control character (byte 0x%02x, "
                 "byte %zu of the body); remove it: GLSL code is plain text.", control_line,
                 (unsigned char)body[control_at], control_at + 1);
        return false;
    }
    if (!check_directives(body, len, line, msg, msgsz))
        return false;
    return check_expansion(body, len, line, msg, msgsz);
}
