/* compile_messages.c - glslang's messages in plain words for an exercise.
 *
 * glslang speaks of token names (FLOAT, RIGHT_BRACE), storage qualifiers
 * ("temp highp int") and the harness's own names (bf_half, bf_this): true,
 * but not what a student of this exercise needs. Each rule below
 * recognises one message by glslang's wording and says it in the words of
 * the exercise's page, with its own names (the input, the parameter) and
 * sizes; the original stays beside it. Every text a student reads is
 * written in this file. */
#include "engine/compile/compile_messages.h"

#include "engine/compile/compile_column.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char compile_missing_semicolon[] = "missing ';' at the end of this line?";

static const char msg_undeclared[] =
    "'%s' is not declared: declare it with its type before its first use "
    "(int %s = ...; or float %s = ...;), and check its spelling";
static const char msg_js_declaration[] =
    "'%s' is JavaScript: GLSL declares a variable with its type, "
    "int j = ...; or float wr = ...;";
static const char msg_js_math[] =
    "Math is JavaScript: in GLSL the functions stand alone (floor(x), cos(x), "
    "sin(x), mod(x, y)) and PI is already declared";
static const char msg_return_type[] =
    "the body must return one float, the value of this cell: convert with "
    "float(...), or pick one component of a vector with .x or .y";
static const char msg_float_to_int[] =
    "a float cannot be stored in an int: GLSL does not drop the fraction by "
    "itself; declare the variable float, or write int(...) to truncate";
static const char msg_plane_as_number[] =
    "%s[p] is a whole plane of %d numbers: read one number with two "
    "indices, %s[p][k]";
static const char msg_cannot_convert[] =
    "a %s cannot be stored in a %s: convert it (float(...), int(...)) or "
    "change the variable's type";
static const char msg_mod_float[] =
    "%% works on ints only: write i %% %s with int operands, or mod(x, y) "
    "for floats";
static const char msg_operands[] =
    "'%s' cannot combine a %s and a %s: convert one side, with float(...) or "
    "int(...), so that both sides have the same type";
static const char msg_no_return[] =
    "the body can reach its end without returning: every way through it "
    "must end in return with this cell's float";
static const char msg_return_value[] =
    "return needs a value here: the float of this cell";
static const char msg_param_read_only[] =
    "%s is read-only: copy it into a variable of your own (int h = %s;) "
    "to change it";
static const char msg_this_read_only[] =
    "this.thread is read-only: copy it into a variable of your own "
    "(int i = this.thread.x;) to change it";
static const char msg_input_read_only[] =
    "%s is read-only: a thread returns its own cell's value and never "
    "writes into %s";
static const char msg_const_read_only[] =
    "a constant cannot change (PI, or a name declared const): use a variable "
    "of your own";
static const char msg_index_range[] =
    "index %s is outside the array: %s[p][k] takes p from 0 to %d and "
    "k from 0 to %d";
static const char msg_index_range_one_plane[] =
    "index %s is outside the array: %s[p][k] takes p = 0 (one plane) and "
    "k from 0 to %d";
static const char msg_index_int[] =
    "an index must be an int: %s[p][k] with int p and k (int(x) "
    "converts a float)";
static const char msg_too_many_indices[] =
    "too many indices: %s takes exactly two, %s[p][k], and a "
    "single number takes none";
/* The course's two-plane data are complex numbers (harness.c says so in
 * the harness's comment too). */
static const char msg_thread_xy[] =
    "this.thread has x (your index i, 0 to %d) and y (your plane, 0 real, "
    "1 imaginary), nothing else";
static const char msg_thread_xy_one_plane[] =
    "this.thread has x (your index i, 0 to %d) and y (always 0: one plane), "
    "nothing else";
static const char msg_param_redefined[] =
    "%s is the kernel's own parameter: give your variable another name";
static const char msg_redefinition[] =
    "'%s' is declared twice: declare it once, and later assign it without "
    "the type (%s = ...;)";
static const char msg_no_function[] =
    "no function '%s' takes these arguments: check its name, and the number "
    "and types of its arguments (cos(x) and sin(x) take one float)";
static const char msg_js_equality[] =
    "=== and !== are JavaScript: GLSL compares with == and !=";
static const char msg_js_const[] =
    "a declaration needs its type: const int j = ...; or int j = ...; "
    "(const alone is JavaScript)";
static const char msg_needs_extension[] =
    "%s needs a GLSL extension, and a body cannot enable one: the %s "
    "needs only this.thread, %s and %s";
static const char msg_unclosed_brace[] =
    "a '{' is never closed: add the missing '}'";

/* ---- reading glslang's message ---- */

/* glslang writes "'TOKEN' : TEXT": the token into tok, *rest at TEXT. */
static bool split_raw(const char *raw, char *tok, size_t toksize, const char **rest)
{
    if (raw[0] != '\'')
        return false;
    const char *end = strstr(raw + 1, "' :");
    if (!end || (size_t)(end - raw - 1) >= toksize)
        return false;
    memcpy(tok, raw + 1, (size_t)(end - raw - 1));
    tok[end - raw - 1] = '\0';
    *rest = end + 3;
    while (**rest == ' ')
        (*rest)++;
    return true;
}

static bool starts_with(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* The text between the quotes that follow `after` in s, into out. */
static bool quoted_after(const char *s, const char *after, char *out, size_t size)
{
    const char *p = strstr(s, after);
    if (!p)
        return false;
    p += strlen(after);
    const char *q = strchr(p, '\'');
    if (!q || (size_t)(q - p) >= size)
        return false;
    memcpy(out, p, (size_t)(q - p));
    out[q - p] = '\0';
    return true;
}

/* A glslang type (" temp highp float", "... 8-element array of highp
 * float") as a student names it: "float", "int", "array". */
static const char *plain_type(const char *type)
{
    if (strstr(type, "array of"))
        return "array";
    const char *last = strrchr(type, ' ');
    last = last ? last + 1 : type;
    static const char *const known[] = { "float", "int", "uint", "bool", "vec2", "vec3",
                                         "vec4", "ivec2", "ivec3", "ivec4", "double" };
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (!strcmp(last, known[k]))
            return known[k];
    return NULL;
}

static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *format(const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

/* "const NAME =" at the start of the line: JavaScript's declaration. */
static bool js_const_line(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (!starts_with(line, "const ") && !starts_with(line, "let ") && !starts_with(line, "var "))
        return false;
    line = strchr(line, ' ');
    while (*line == ' ')
        line++;
    while (isalnum((unsigned char)*line) || *line == '_')
        line++;
    while (*line == ' ')
        line++;
    return *line == '=';
}

char *compile_message_rewrite(const struct exercise *e, const char *raw, const char *line_text)
{
    char tok[128], a[160], b[160];
    const char *rest;
    const char *line = line_text ? line_text : "";
    if (!raw || !split_raw(raw, tok, sizeof tok, &rest))
        return NULL;

    if (!strcmp(rest, "undeclared identifier")) {
        if (!strcmp(tok, "let") || !strcmp(tok, "var"))
            return format(msg_js_declaration, tok);
        if (!strcmp(tok, "Math"))
            return strdup(msg_js_math);
        return format(msg_undeclared, tok, tok, tok);
    }
    if (starts_with(rest, "syntax error")) {
        if (strstr(line, "===") || strstr(line, "!=="))
            return strdup(msg_js_equality);
        if (js_const_line(line))
            return strdup(msg_js_const);
        return NULL;
    }
    if (!strcmp(tok, "return") &&
        (starts_with(rest, "cannot convert return value to function return type") ||
         starts_with(rest, "type does not match, or is not convertible to")))
        return strdup(msg_return_type);
    if (!strcmp(tok, "return") && starts_with(rest, "non-void function must return a value"))
        return strdup(msg_return_value);
    if (starts_with(rest, "function does not return a value"))
        return strdup(msg_no_return);
    if (starts_with(rest, "cannot convert from '") && quoted_after(rest, "from '", a, sizeof a) &&
        quoted_after(rest, "' to '", b, sizeof b)) {
        const char *from = plain_type(a), *to = plain_type(b);
        if (!from || !to)
            return NULL;
        if (!strcmp(from, "float") && !strcmp(to, "int"))
            return strdup(msg_float_to_int);
        if (!strcmp(from, "array") && strcmp(to, "array"))
            return format(msg_plane_as_number, e->input, e->in_n, e->input);
        return format(msg_cannot_convert, from, to);
    }
    if (starts_with(rest, "wrong operand types") &&
        quoted_after(rest, "left-hand operand of type '", a, sizeof a) &&
        quoted_after(rest, "right operand of type '", b, sizeof b)) {
        const char *left = plain_type(a), *right = plain_type(b);
        if (!left || !right)
            return NULL;
        if (!strcmp(tok, "%"))
            return format(msg_mod_float, e->param);
        return format(msg_operands, tok, left, right);
    }
    if (starts_with(rest, "l-value required")) {
        if (strstr(rest, "\"bf_half\""))
            return format(msg_param_read_only, e->param, e->param);
        if (strstr(rest, "\"bf_this\""))
            return strdup(msg_this_read_only);
        /* the input is "(bf_in.spec)", in the harness's read-only block */
        if (strstr(rest, "\"bf_in_block\"") || strstr(rest, "\"bf_in\""))
            return format(msg_input_read_only, e->input, e->input);
        if (strstr(rest, "can't modify a const"))
            return strdup(msg_const_read_only);
        return NULL;
    }
    if (!strcmp(tok, "[") &&
        (starts_with(rest, "array index out of range '") || starts_with(rest, "index out of range '")) &&
        quoted_after(rest, "range '", a, sizeof a))
        return e->in_planes == 1
                   ? format(msg_index_range_one_plane, a, e->input, e->in_n - 1)
                   : format(msg_index_range, a, e->input, e->in_planes - 1, e->in_n - 1);
    if (!strcmp(tok, "[]") && starts_with(rest, "scalar integer expression required"))
        return format(msg_index_int, e->input);
    if (strstr(rest, "left of '[' is not of type array, matrix, or vector"))
        return format(msg_too_many_indices, e->input, e->input);
    if (starts_with(rest, "vector swizzle selection out of range") && strstr(line, "this.thread"))
        return format(e->out_planes == 1 ? msg_thread_xy_one_plane : msg_thread_xy,
                      e->out_n - 1);
    if (!strcmp(rest, "redefinition")) {
        if (!strcmp(tok, "bf_half"))
            return format(msg_param_redefined, e->param);
        if (starts_with(tok, "bf_"))
            return NULL;
        return format(msg_redefinition, tok, tok);
    }
    if (!strcmp(rest, "no matching overloaded function found") && tok[0])
        return format(msg_no_function, tok);
    if (starts_with(rest, "not allowed in nested scope"))
        return strdup(msg_unclosed_brace);
    /* gl_SubgroupSize and the like: the harness enables no extension */
    if (starts_with(rest, "required extension not requested") && starts_with(tok, "gl_"))
        return format(msg_needs_extension, tok, e->function, e->param, e->input);
    return NULL;
}

/* ---- the body's lines, comments removed ---- */

/*
 * A copy of the body with every comment turned into spaces, newlines kept,
 * so that line n of the copy is the code of line n. NULL on OOM.
 */
static char *strip_comments(const char *body, size_t len)
{
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    enum { CODE, LINE_COMMENT, BLOCK_COMMENT } state = CODE;
    for (size_t k = 0; k < len; k++) {
        if (state == CODE) {
            /* code up to the next '/' is copied as it is, at memchr's speed */
            const char *slash = memchr(body + k, '/', len - k);
            size_t run = slash ? (size_t)(slash - (body + k)) : len - k;
            memcpy(s + k, body + k, run);
            k += run;
            if (k == len)
                break;
        }
        char c = body[k], next = k + 1 < len ? body[k + 1] : '\0';
        s[k] = c;
        switch (state) {
        case CODE:
            if (c == '/' && next == '/')
                state = LINE_COMMENT;
            else if (c == '/' && next == '*')
                state = BLOCK_COMMENT;
            else
                break;
            s[k] = ' ';
            break;
        case LINE_COMMENT:
            if (c == '\n' && !(k > 0 && body[k - 1] == '\\'))
                state = CODE;
            else
                s[k] = ' ';
            break;
        case BLOCK_COMMENT:
            if (c == '*' && next == '/') {
                s[k] = ' ';
                s[++k] = ' ';
                state = CODE;
            } else if (c != '\n') {
                s[k] = ' ';
            }
            break;
        }
    }
    s[len] = '\0';
    return s;
}

/* Line n (1-based) of code, without its newline, into buf; false past the end. */
static bool line_of(const char *code, int n, char *buf, size_t size)
{
    const char *p = code;
    for (int k = 1; k < n; k++) {
        p = strchr(p, '\n');
        if (!p)
            return false;
        p++;
    }
    size_t len = strcspn(p, "\n");
    if (len > 0 && p[len - 1] == '\r')
        len--;
    if (len >= size)
        len = size - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return true;
}

static bool blank(const char *s)
{
    for (; *s; s++)
        if (!isspace((unsigned char)*s))
            return false;
    return true;
}

/* glslang's name for the token that starts `s` (its grammar's names);
 * `input` is the exercise's input, the harness's macro "(bf_in.spec)". */
static const char *token_name(const char *s, const char *input)
{
    static const struct { const char *word, *name; } keywords[] = {
        { "float", "FLOAT" }, { "int", "INT" }, { "uint", "UINT" }, { "bool", "BOOL" },
        { "vec2", "VEC2" }, { "vec3", "VEC3" }, { "vec4", "VEC4" }, { "ivec2", "IVEC2" },
        { "return", "RETURN" }, { "if", "IF" }, { "else", "ELSE" }, { "for", "FOR" },
        { "while", "WHILE" }, { "do", "DO" }, { "const", "CONST" }, { "break", "BREAK" },
        { "continue", "CONTINUE" }, { "switch", "SWITCH" }, { "true", "BOOLCONSTANT" },
        { "false", "BOOLCONSTANT" },
    };
    static const struct { const char *punct, *name; } puncts[] = {
        { "++", "INC_OP" }, { "--", "DEC_OP" }, { "}", "RIGHT_BRACE" }, { "{", "LEFT_BRACE" },
        { "(", "LEFT_PAREN" }, { "-", "DASH" }, { "+", "PLUS" }, { "!", "BANG" },
        { "~", "TILDE" },
    };
    while (isspace((unsigned char)*s))
        s++;
    if (isalpha((unsigned char)*s) || *s == '_') {
        size_t n = 0;
        while (isalnum((unsigned char)s[n]) || s[n] == '_')
            n++;
        if (strlen(input) == n && !strncmp(s, input, n))
            return "LEFT_PAREN";
        for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
            if (strlen(keywords[k].word) == n && !strncmp(s, keywords[k].word, n))
                return keywords[k].name;
        return "IDENTIFIER";
    }
    if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
        size_t n = strspn(s, "0123456789abcdefABCDEFxX.uU+-");
        if (memchr(s, 'u', n) || memchr(s, 'U', n))
            return "UINTCONSTANT";
        return memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n) ? "FLOATCONSTANT"
                                                                             : "INTCONSTANT";
    }
    for (size_t k = 0; k < sizeof puncts / sizeof puncts[0]; k++)
        if (starts_with(s, puncts[k].punct))
            return puncts[k].name;
    return NULL;
}

/* The last character of a line of code that is not a space, or '\0'. */
static char last_char(const char *s)
{
    char c = '\0';
    for (; *s; s++)
        if (!isspace((unsigned char)*s))
            c = *s;
    return c;
}

/*
 * For a syntax error on line `line` ("unexpected NAME"), the line that
 * lacks its ';', or 0 when the rule does not apply: NAME must be the first
 * token of the line, and the code line before it must end in something
 * that cannot end a statement's text otherwise. Line body_lines + 1 is the
 * harness's closing brace.
 */
static int semicolon_line(const struct exercise *e, const char *raw, int line, const char *code,
                          int body_lines)
{
    const char *u = strstr(raw, "syntax error, unexpected ");
    if (!u || strncmp(raw, "'' :", 4))
        return 0;
    u += strlen("syntax error, unexpected ");
    char name[32];
    size_t n = strcspn(u, ", ");
    if (n == 0 || n >= sizeof name)
        return 0;
    memcpy(name, u, n);
    name[n] = '\0';

    char text[512];
    const char *first;
    if (line == body_lines + 1)
        first = "RIGHT_BRACE";
    else if (line >= 1 && line <= body_lines && line_of(code, line, text, sizeof text))
        first = token_name(text, e->input);
    else
        return 0;
    if (!first || strcmp(first, name))
        return 0;
    for (int prev = line - 1; prev >= 1; prev--) {
        if (!line_of(code, prev, text, sizeof text))
            return 0;
        if (blank(text))
            continue;
        const char *t = text + strspn(text, " \t");
        /* a directive is complete without ';' */
        if (*t == '#')
            return 0;
        /* ; { } , end a statement or a list; an operator or an opening
         * bracket means the statement goes on (glslang then complains
         * about the next token, not about a missing ';') */
        if (strchr(";{},+-*/%=<>&|^!?:([.~", last_char(text)))
            return 0;
        return prev;
    }
    return 0;
}

/* True for a rewrite whose line usually carries follow-on errors. */
static bool swallows_line(const char *raw)
{
    return !strcmp(raw, "'Math' : undeclared identifier") ||
           !strcmp(raw, "'let' : undeclared identifier") ||
           !strcmp(raw, "'var' : undeclared identifier") ||
           strstr(raw, "not allowed in nested scope");
}

/*
 * glslang types an undeclared name as a float, so the same line goes on to
 * report the conversion or the operator that float breaks ("a float
 * cannot be stored in an int" after `int k = y;`): no mistake of the
 * student's, and false of the code. True for such a raw message.
 */
static bool follows_undeclared(const char *raw)
{
    return strstr(raw, "cannot convert from") || strstr(raw, "wrong operand types");
}

static void drop(struct diagnostic *diags, size_t *n, size_t k)
{
    free(diags[k].message);
    free(diags[k].original);
    memmove(&diags[k], &diags[k + 1], (*n - k - 1) * sizeof *diags);
    (*n)--;
}

void compile_messages_apply(const struct exercise *e, struct diagnostic *diags, size_t *n,
                            const char *body, size_t len, int body_lines)
{
    char *code = strip_comments(body, len);
    if (!code)
        return;
    bool columns = compile_columns_trusted(code, body, len);
    int swallowing = 0;     /* the line whose follow-on errors are dropped */
    int undeclared = 0;     /* the line of the last undeclared name */
    for (size_t k = 0; k < *n;) {
        struct diagnostic *d = &diags[k];
        if ((swallowing && d->line == swallowing) ||
            (undeclared && d->line == undeclared && follows_undeclared(d->message))) {
            drop(diags, n, k);
            continue;
        }
        if (strstr(d->message, "' : undeclared identifier"))
            undeclared = d->line;
        char text[512];
        const char *line_text =
            d->line <= body_lines && line_of(code, d->line, text, sizeof text) ? text : NULL;
        int moved = semicolon_line(e, d->message, d->line, code, body_lines);
        if (columns && !moved && d->line <= body_lines)
            d->column = compile_column_of_token(d->message, e->param, code, body, len, d->line);
        char *words = moved ? strdup(compile_missing_semicolon)
                            : compile_message_rewrite(e, d->message, line_text);
        if (words) {
            swallowing = swallows_line(d->message) ? d->line : 0;
            d->original = d->message;
            d->message = words;
            if (moved) {
                d->line = moved;
                d->column = columns ? compile_column_after_code(code, body, len, moved) : 0;
            }
        }
        /* glslang repeats itself ("unknown swizzle selection" twice) */
        if (k > 0 && diags[k - 1].line == d->line && !strcmp(diags[k - 1].message, d->message)) {
            drop(diags, n, k);
            continue;
        }
        k++;
    }
    free(code);
}
