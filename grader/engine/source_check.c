/* source_check.c - refuse bodies that must never reach glslang. */
#include "source_check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "task.h"

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
    for (size_t i = 0; i < len; i++)
        if (!strchr(" \t\r\n\v\f", s[i]))
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

/*
 * Newlines as glslang's scanner reads them: "\r\n", "\n" and a lone "\r"
 * each end a line (so a lone CR starts a line on which a directive
 * counts), but only "\n" moves the line number. Returns the length of the
 * newline at s[i], 0 when there is none.
 */
static size_t newline_at(const char *s, size_t len, size_t i)
{
    if (i >= len)
        return 0;
    if (s[i] == '\n')
        return 1;
    if (s[i] == '\r')
        return i + 1 < len && s[i + 1] == '\n' ? 2 : 1;
    return 0;
}

/* Length of a line continuation (a backslash, then a newline) at s[i], or 0. */
static size_t continuation_at(const char *s, size_t len, size_t i)
{
    size_t n;
    if (i < len && s[i] == '\\' && (n = newline_at(s, len, i + 1)) > 0)
        return 1 + n;
    return 0;
}

/* Skips the newline or continuation of length n at s[*i], counting its line. */
static void skip_break(const char *s, size_t *i, size_t n, int *line)
{
    *line += s[*i + n - 1] == '\n';
    *i += n;
}

static bool is_blank_char(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

/*
 * Scans for directives the way the preprocessor sees them: line
 * continuations joined and comments turned into blanks first, because
 * "/ * x * / #version" and "#\<newline>version" are both directives, and
 * so is "x;<CR>#extension": glslang ends a line at a lone CR too.
 */
static bool check_directives(const char *s, size_t len, int *line_out,
                             char *msg, size_t msgsz)
{
    int line = 1;
    bool at_line_start = true;  /* only blanks and comments so far */
    size_t i = 0;
    size_t n;

    while (i < len) {
        char c = s[i];
        if ((n = continuation_at(s, len, i))) {
            skip_break(s, &i, n, &line);
            continue;
        }
        if (c == '/' && i + 1 < len && s[i + 1] == '/') {
            /* a line comment runs to the newline (continuations extend it) */
            i += 2;
            while (i < len && !newline_at(s, len, i)) {
                if ((n = continuation_at(s, len, i)))
                    skip_break(s, &i, n, &line);
                else
                    i++;
            }
            continue;
        }
        if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            i += 2;
            while (i < len && !(s[i] == '*' && i + 1 < len && s[i + 1] == '/')) {
                if (s[i] == '\n')
                    line++;
                i++;
            }
            i += 2;
            continue;
        }
        if ((n = newline_at(s, len, i))) {
            skip_break(s, &i, n, &line);
            at_line_start = true;
            continue;
        }
        if (is_blank_char(c)) {
            i++;
            continue;
        }
        if (c == '#' && at_line_start) {
            int directive_line = line;
            char name[16];
            size_t k = 0;
            i++;
            /* blanks, comments and continuations may sit between # and the name */
            for (;;) {
                if (i < len && is_blank_char(s[i])) {
                    i++;
                } else if ((n = continuation_at(s, len, i))) {
                    skip_break(s, &i, n, &line);
                } else if (i + 1 < len && s[i] == '/' && s[i + 1] == '*') {
                    i += 2;
                    while (i < len && !(s[i] == '*' && i + 1 < len && s[i + 1] == '/'))
                        line += s[i++] == '\n';
                    i += 2;
                } else {
                    break;
                }
            }
            while (i < len && k + 1 < sizeof name &&
                   ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                    (s[i] >= '0' && s[i] <= '9') || s[i] == '_')) {
                name[k++] = s[i++];
                /* continuations, any number of them, can split the name itself */
                while ((n = continuation_at(s, len, i)))
                    skip_break(s, &i, n, &line);
            }
            name[k] = '\0';
            for (const char *const *f = forbidden_directives; *f; f++) {
                if (!strcmp(name, *f)) {
                    *line_out = directive_line;
                    snprintf(msg, msgsz, "line %d: #%s is not allowed: %s.",
                             directive_line, name, forbidden_reason(name));
                    return false;
                }
            }
            at_line_start = false;
            continue;
        }
        at_line_start = false;
        i++;
    }
    return true;
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
    int cur = 1;
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
        if (body[i] == '\n')
            cur++;
        i += n;
    }
    return check_directives(body, len, line, msg, msgsz);
}
