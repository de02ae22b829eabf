/* Harness assembly and shaderc: diagnostics land on the student's lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/test_bodies.h"

#include "engine/compile/compile.h"
#include "engine/answer_bound.h"
#include "engine/compile/compile_messages.h"
#include "engine/compile/compile_text.h"
#include "engine/harness.h"

#define correct test_correct_body

static int setup(void **state)
{
    *state = compiler_new();
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    compiler_free(*state);
    return 0;
}

static void test_harness_wraps_body(void **state)
{
    size_t len;
    char *src = harness_assemble(exercise_default(), "return 1.0;", 11, &len);
    assert_non_null(src);
    assert_int_equal(strlen(src), len);
    const char *line1 = strstr(src, "#line 1\nreturn 1.0;\n}");
    assert_non_null(line1);
    /* the output buffer is declared only after the body */
    assert_true(strstr(src, "bf_out_block") > line1);
    assert_null(strstr(src, "@BODY@"));
    free(src);
}

static void test_correct_body_compiles(void **state)
{
    struct compile_result r;
    assert_true(compiler_compile(*state, correct, strlen(correct), &r));
    assert_true(r.ok);
    assert_true(r.nwords > 5);
    assert_int_equal(r.spirv[0], 0x07230203u);
    assert_int_equal(r.ndiags, 0);
    compile_result_clear(&r);
}

static void test_syntax_error_on_line_3(void **state)
{
    const char *body = "int i = this.thread.x;\nfloat x = 1.0;\nfloat y = x +* 2.0;\nreturn y;\n";
    struct compile_result r;
    assert_true(compiler_compile(*state, body, strlen(body), &r));
    assert_false(r.ok);
    assert_null(r.spirv);
    assert_true(r.ndiags >= 1);
    assert_int_equal(r.diags[0].line, 3);
    assert_int_equal(r.diags[0].severity, DIAG_ERROR);
    assert_int_equal(r.diags[0].column, 0);
    assert_non_null(strstr(r.diags[0].message, "syntax error"));
    assert_non_null(r.log);
    compile_result_clear(&r);
}

static void test_course_names_work(void **state)
{
    /* this, half, spectrum and PI under the course's names */
    const char *body = "return spectrum[this.thread.y][this.thread.x] * float(half) * PI;";
    struct compile_result r;
    assert_true(compiler_compile(*state, body, strlen(body), &r));
    assert_true(r.ok);
    compile_result_clear(&r);
}

static void test_body_cannot_reach_harness_buffers(void **state)
{
    const char *body = "bf_out[0] = 1.0;\nreturn 0.0;";
    struct compile_result r;
    assert_true(compiler_compile(*state, body, strlen(body), &r));
    assert_false(r.ok);
    assert_int_equal(r.diags[0].line, 1);
    assert_non_null(strstr(r.diags[0].message, "bf_out"));
    compile_result_clear(&r);
}

static void test_macros_cannot_bend_main(void **state)
{
    /* The harness #undefs every name it uses after the body, so these
     * would break main() (and fail to compile) if they reached it. */
    const char *body = "#define float int\n#define bf_out bf_in\nreturn 1.0;";
    struct compile_result r;
    assert_true(compiler_compile(*state, body, strlen(body), &r));
    assert_true(r.ok);
    compile_result_clear(&r);
    body = "#define bf_cell 0u\n#define main not_main\nreturn 1.0;";
    assert_true(compiler_compile(*state, body, strlen(body), &r));
    assert_true(r.ok);
    compile_result_clear(&r);
}

static void test_unclosed_brace_lands_after_body(void **state)
{
    const char *body = "if (half == 1) {\nreturn 0.0;\n";
    struct compile_result r;
    assert_true(compiler_compile(*state, body, strlen(body), &r));
    assert_false(r.ok);
    assert_true(r.ndiags >= 1);
    for (size_t i = 0; i < r.ndiags; i++)
        assert_int_equal(r.diags[i].line, 3);   /* 2 body lines + 1 */
    compile_result_clear(&r);
}

static void test_parse_log(void **state)
{
    struct diagnostic d[4];
    const char *log = "body:2: error: 'x' : undeclared identifier\n"
                      "body:9: warning: something\n"
                      "1:4: error: 'main' : bad\n"
                      "3 errors generated.\n";
    size_t n = compile_parse_log(log, 5, d, 4);
    assert_int_equal(n, 3);
    assert_int_equal(d[0].line, 2);
    assert_string_equal(d[0].message, "'x' : undeclared identifier");
    assert_int_equal(d[1].severity, DIAG_WARNING);
    assert_int_equal(d[1].line, 6);   /* past the body: after it */
    assert_int_equal(d[2].line, 6);   /* the harness after the body */
    for (size_t i = 0; i < n; i++) {
        assert_null(d[i].original);
        free(d[i].message);
    }
}

static void test_log_is_capped(void **state)
{
    /* thousands of failing lines: the diagnostics and the log stay bounded */
    size_t n = 4000, len = 0;
    char *body = malloc(n * 16 + 16);
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(body + len, "x%zu = 1;\n", i);
    struct compile_result r;
    assert_true(compiler_compile(*state, body, len, &r));
    assert_false(r.ok);
    assert_true(r.ndiags <= COMPILE_MAX_DIAGNOSTICS);
    assert_true(strlen(r.log) <= COMPILE_MAX_LOG);
    compile_result_clear(&r);
    free(body);
}

/* Compiler text for a student: every control character a visible escape,
 * cut at a character boundary with a mark. */
static void test_compiler_text_is_made_visible(void **state)
{
    (void)state;
    static const struct { const char *in, *out; bool keep_newlines; } cases[] = {
        { "plain text", "plain text", false },
        { "a\x1b[31mred", "a\\x1b[31mred", false },
        { "tab\there\nnext", "tab\\x09here\\x0anext", false },
        { "line\nnext\r", "line\nnext\\x0d", true },
        { "del\x7f", "del\\x7f", false },
        { "c1 \xc2\x9b", "c1 \\u009b", false },
        { "bidi \xe2\x80\xae evil \xe2\x81\xa6", "bidi \\u202e evil \\u2066", false },
        { "half \xe2\x80", "half \\xe2\\x80", false },
        { "lone \xed\xa0\x80", "lone \\xed\\xa0\\x80", false },
        { "\xc3\xa9t\xc3\xa9 \xe2\x88\x92", "\xc3\xa9t\xc3\xa9 \xe2\x88\x92", false },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        bool cut = false;
        char *v = compile_text_visible(cases[k].in, strlen(cases[k].in), 512,
                                       cases[k].keep_newlines, &cut);
        assert_non_null(v);
        assert_string_equal(v, cases[k].out);
        assert_false(cut);
        free(v);
    }
    /* 45,000 ESC bytes: at most 512 bytes, whole escapes, then the mark */
    size_t n = 45000;
    char *esc = malloc(n);
    memset(esc, 0x1b, n);
    bool cut = false;
    char *v = compile_text_visible(esc, n, 512, false, &cut);
    assert_true(cut);
    assert_true(strlen(v) <= 512);
    size_t mark = strlen(COMPILE_TEXT_CUT_MARK);
    assert_string_equal(v + strlen(v) - mark, COMPILE_TEXT_CUT_MARK);
    assert_int_equal((strlen(v) - mark) % 4, 0);
    assert_null(memchr(v, 0x1b, strlen(v)));
    free(v);
    /* a text that fits exactly is not cut */
    cut = false;
    v = compile_text_visible(esc, 128, 512, false, &cut);
    assert_false(cut);
    assert_int_equal(strlen(v), 512);
    free(v);
    free(esc);
}

/* A body made to make glslang echo it: every text of the result within
 * its bound, no control character left, and the verdict within the
 * answer's bound. */
static void test_echoed_source_is_bounded(void **state)
{
    size_t n = 60000, len = 0;
    char *body = malloc(n + 64);
    /* ESC bytes as stray tokens, on many lines: glslang echoes each */
    for (size_t i = 0; len < n; i++)
        len += (size_t)sprintf(body + len, "%s\x1b\x1b\x1b\n", i % 7 ? "float a;" : "");
    len += (size_t)sprintf(body + len, "return 0.0;\n");
    struct compile_result r;
    assert_true(compiler_compile(*state, body, len, &r));
    assert_false(r.ok);
    assert_true(r.ndiags >= 1);
    size_t all = 0;
    for (size_t k = 0; k < r.ndiags; k++) {
        assert_true(strlen(r.diags[k].message) <= COMPILE_MAX_MESSAGE_BYTES);
        assert_null(strchr(r.diags[k].message, 0x1b));
        all += strlen(r.diags[k].message);
        if (r.diags[k].original)
            all += strlen(r.diags[k].original);
    }
    assert_true(all <= COMPILE_MAX_DIAG_BYTES);
    assert_true(strlen(r.log) <= COMPILE_MAX_LOG_BYTES);
    assert_null(strchr(r.log, 0x1b));

    struct verdict *v = verdict_new(VERDICT_COMPILATION_ERROR, "line 1: x");
    v->diags = r.diags;
    v->ndiags = r.ndiags;
    v->log = r.log;
    r.diags = NULL;
    r.ndiags = 0;
    r.log = NULL;
    size_t size = answer_bound_size(v);
    assert_true(size > 0 && size <= MAX_ANSWER_BYTES);
    /* and were it still too large, the verdict loses its compiler text
     * but stays the student's Compilation Error, with a plain message */
    assert_true(answer_bound_apply(v, 2048));
    assert_true(answer_bound_size(v) <= 2048);
    assert_int_equal(v->status, VERDICT_COMPILATION_ERROR);
    assert_null(v->log);
    assert_true(v->ndiags <= 1);
    assert_non_null(strstr(v->message, "too long to show"));
    verdict_free(v);
    compile_result_clear(&r);
    free(body);
}

/*
 * answer_bound_apply skips writing the verdict out when its compiler
 * text's worst case fits; that worst case must be a true bound. Texts made
 * of the characters JSON writes longest (a control as "\u0001", a quote
 * as two bytes): with the limit one byte under the real size, the text
 * must still be cut; at the real size, nothing is.
 */
static void test_answer_bound_skips_only_what_fits(void **state)
{
    (void)state;
    const char fills[] = { 0x01, '"', '\\', 'x' };
    for (size_t f = 0; f < sizeof fills; f++) {
        for (size_t ndiags = 1; ndiags <= 64; ndiags *= 4) {
            struct verdict *v = verdict_new(VERDICT_COMPILATION_ERROR, "line 1: x");
            char text[COMPILE_MAX_MESSAGE_BYTES + 1];
            memset(text, fills[f], COMPILE_MAX_MESSAGE_BYTES);
            text[COMPILE_MAX_MESSAGE_BYTES] = '\0';
            for (size_t k = 0; k < ndiags; k++)
                assert_true(verdict_add_diagnostic(v, (int)k + 1, DIAG_ERROR, text));
            assert_non_null(v->log = strdup(text));
            size_t size = answer_bound_size(v);
            assert_true(answer_bound_apply(v, size));
            assert_non_null(v->log);
            assert_int_equal(v->ndiags, ndiags);
            assert_true(answer_bound_apply(v, size - 1));
            assert_null(v->log);
            assert_true(answer_bound_size(v) <= size - 1);
            verdict_free(v);
        }
    }
}

/*
 * The messages students meet most, from real glslang output: each body is
 * compiled, and its first diagnostic must be on `line`, start with the
 * plain words `words` and keep glslang's text (containing `original`).
 * A NULL `words` means glslang's text is kept as it is.
 */
struct message_case {
    const char *body;
    int line;
    const char *words;
    const char *original;
    size_t ndiags;     /* 0: not checked */
};

static const struct message_case message_cases[] = {
    /* undeclared identifier, and the JavaScript names */
    { "float x = y;\nreturn x;", 1, "'y' is not declared: declare it with its type",
      "'y' : undeclared identifier", 1 },
    { "let i = 1;\nreturn 0.0;", 1, "'let' is JavaScript", "'let' : undeclared identifier", 1 },
    { "return Math.cos(1.0);", 1, "Math is JavaScript", "'Math' : undeclared identifier", 1 },
    /* an undeclared name is a float to glslang: the conversion it then
     * reports on the same line is no mistake of the student's (issue 32) */
    { "int k = y * 2;\nreturn 0.0;", 1, "'y' is not declared", "'y' : undeclared identifier", 1 },
    { "int k = y;\nreturn 0.0;", 1, "'y' is not declared", "'y' : undeclared identifier", 1 },
    { "int k = 2 * (y % 4);\nreturn 0.0;", 1, "'y' is not declared", "'y' : undeclared identifier",
      1 },
    /* the wrong return type */
    { "vec2 a = vec2(1.0, 2.0);\nreturn a;", 2, "the body must return one float",
      "cannot convert return value", 1 },
    { "bool b = true;\nreturn b;", 2, "the body must return one float",
      "type does not match", 1 },
    /* int and float mixed */
    { "int i = this.thread.x;\nint j = i / 2.0;\nreturn 0.0;", 2,
      "a float cannot be stored in an int", "cannot convert from", 1 },
    { "int i = this.thread.x;\nint j = (i / half) % 2.0;\nreturn 0.0;", 2,
      "% works on ints only", "wrong operand types", 1 },
    /* no return, or a return without its value */
    { "float x = 1.0;", 2, "the body can reach its end without returning",
      "function does not return a value", 1 },
    { "return;", 1, "return needs a value", "non-void function must return a value", 0 },
    /* assignments to what the harness gives */
    { "half = 2;\nreturn 0.0;", 1, "half is read-only", "l-value required", 1 },
    { "half++;\nreturn 0.0;", 1, "half is read-only", "l-value required", 1 },
    { "this.thread.x = 1;\nreturn 0.0;", 1, "this.thread is read-only", "l-value required", 1 },
    { "spectrum[0][0] = 1.0;\nreturn 0.0;", 1, "spectrum is read-only", "readonly buffer", 1 },
    { "PI = 3.0;\nreturn 0.0;", 1, "a constant cannot change", "can't modify a const", 1 },
    /* the wrong number of indices, or the wrong index */
    { "float a = spectrum[0];\nreturn a;", 1, "spectrum[p] is a whole plane of 8 numbers",
      "8-element array", 1 },
    { "return spectrum[0][1][2];", 1, "too many indices", "left of '['", 1 },
    { "return spectrum[2][0];", 1, "index 2 is outside the array", "out of range", 1 },
    { "return spectrum[1.0][2];", 1, "an index must be an int",
      "scalar integer expression required", 1 },
    { "return float(this.thread.z);", 1, "this.thread has x (your index i, 0 to 7) and y",
      "swizzle selection out of range", 1 },
    /* names declared twice */
    { "int i = 0;\nint i = 1;\nreturn 0.0;", 2, "'i' is declared twice", "'i' : redefinition", 1 },
    { "float half = 2.0;\nreturn half;", 1, "half is the kernel's own parameter",
      "'bf_half' : redefinition", 1 },
    { "return foo(1.0);", 1, "no function 'foo' takes these arguments",
      "no matching overloaded function found", 1 },
    /* JavaScript's syntax */
    { "const j = (this.thread.x / half) % 2;\nreturn 0.0;", 1, "a declaration needs its type",
      "unexpected EQUAL", 1 },
    { "int i = this.thread.x;\nif (i === 0) return 1.0;\nreturn 0.0;", 2,
      "=== and !== are JavaScript", "unexpected EQUAL", 1 },
    /* a '{' left open: one message after the body, not three */
    { "if (half == 1) {\nreturn 0.0;\n", 3, "a '{' is never closed", "nested scope", 1 },
    /* a missing ';' goes to the line that lacks it */
    { "float x = 1.0\nfloat y = 2.0;\nreturn x;", 1, "missing ';' at the end of this line?",
      "unexpected FLOAT", 1 },
    { "float x = 1.0 // one\n/* two\n   lines */\n\n  return x;", 1,
      "missing ';' at the end of this line?", "unexpected RETURN", 1 },
    { "int k = 1\nk++;\nreturn 0.0;", 1, "missing ';' at the end of this line?",
      "unexpected IDENTIFIER", 1 },
    { "int i = this.thread.x;\nfloat a = 1.0\nspectrum[0][i];\nreturn a;", 2, NULL,
      "function call, method, or subroutine call expected", 0 },
    { "float x = 1.0;\nreturn x", 2, "missing ';' at the end of this line?",
      "unexpected RIGHT_BRACE", 1 },
    /* ...but not where the token is not the first of its line, nor after
     * a line that goes on (an operator at its end) */
    { "float x = 1.0 float y = 2.0;\nreturn x;", 1, NULL, NULL, 1 },
    { "int i = this.thread.x;\nreturn spectrum[0][i] +\n", 3, NULL, NULL, 1 },
    { "#define ONE 1.0\n#define TWO 2.0\nreturn ONE\n", 3, "missing ';' at the end of this line?",
      "unexpected RIGHT_BRACE", 1 },
    /* a message with no plain words keeps glslang's */
    { "float x = (1.0;\nreturn x;", 1, NULL, NULL, 1 },
};

static void test_messages_in_plain_words(void **state)
{
    for (size_t k = 0; k < sizeof message_cases / sizeof message_cases[0]; k++) {
        const struct message_case *c = &message_cases[k];
        struct compile_result r;
        assert_true(compiler_compile(*state, c->body, strlen(c->body), &r));
        assert_false(r.ok);
        if (r.ndiags < 1)
            fail_msg("case %zu: no diagnostic; log: %s", k, r.log ? r.log : "none");
        const struct diagnostic *d = &r.diags[0];
        if (d->line != c->line || (c->ndiags && r.ndiags != c->ndiags))
            fail_msg("case %zu: %zu diagnostics, the first on line %d (%s), wanted %zu on "
                     "line %d; log: %s", k, r.ndiags, d->line, d->message, c->ndiags, c->line,
                     r.log);
        if (c->words) {
            if (strncmp(d->message, c->words, strlen(c->words)))
                fail_msg("case %zu: \"%s\" does not start with \"%s\"", k, d->message, c->words);
            assert_non_null(d->original);
            /* the original is glslang's text, word for word from the log */
            assert_non_null(strstr(r.log, d->original));
            if (c->original && !strstr(d->original, c->original))
                fail_msg("case %zu: original \"%s\" lacks \"%s\"", k, d->original, c->original);
        } else {
            if (d->original)
                fail_msg("case %zu: rewritten as \"%s\"", k, d->message);
            assert_non_null(strstr(r.log, d->message));
            if (c->original)
                assert_non_null(strstr(d->message, c->original));
        }
        compile_result_clear(&r);
    }
}

/* Another exercise's student reads its own names and sizes: bit_reversal
 * reads `points` (one plane of 16) and `bits`, never the butterfly's
 * spectrum and half. Each case's first diagnostic, whole. */
static void test_messages_name_the_exercise(void **state)
{
    static const struct {
        const char *body, *words;
        int column;            /* the first diagnostic's, 0: not checked */
    } cases[] = {
        { "bits = 3;\nreturn 1.0;",
          "bits is read-only: copy it into a variable of your own (int h = bits;) to change it",
          6 },
        { "points[0][0] = 1.0;\nreturn 0.0;",
          "points is read-only: a thread returns its own cell's value and never writes into "
          "points", 0 },
        { "return points[0][16];",
          "index 16 is outside the array: points[p][k] takes p = 0 (one plane) and k from 0 "
          "to 15", 0 },
        { "return points[0][1.0];",
          "an index must be an int: points[p][k] with int p and k (int(x) converts a float)", 0 },
        { "float a = points[0];\nreturn a;",
          "points[p] is a whole plane of 16 numbers: read one number with two indices, "
          "points[p][k]", 0 },
        { "return float(this.thread.z);",
          "this.thread has x (your index i, 0 to 15) and y (always 0: one plane), nothing else",
          0 },
        { "float bits = 2.0;\nreturn bits;",
          "bits is the kernel's own parameter: give your variable another name", 0 },
        { "float x = float(bits) % 2.0;\nreturn x;",
          "% works on ints only: write i % bits with int operands, or mod(x, y) for floats", 0 },
    };
    const struct exercise *e = exercise_find("bit_reversal");
    assert_non_null(e);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct compile_result r;
        assert_true(compiler_compile_exercise(*state, e, cases[k].body, strlen(cases[k].body), &r));
        assert_false(r.ok);
        assert_true(r.ndiags >= 1);
        const struct diagnostic *d = &r.diags[0];
        if (strcmp(d->message, cases[k].words))
            fail_msg("case %zu: \"%s\", wanted \"%s\"", k, d->message, cases[k].words);
        if (cases[k].column && d->column != cases[k].column)
            fail_msg("case %zu: column %d, wanted %d", k, d->column, cases[k].column);
        for (size_t j = 0; j < r.ndiags; j++)
            if (strstr(r.diags[j].message, "spectrum") || strstr(r.diags[j].message, "half"))
                fail_msg("case %zu: \"%s\" names the butterfly's API", k, r.diags[j].message);
        compile_result_clear(&r);
    }
}

/* The rewrite alone: a message it does not know is left to glslang. */
static void test_rewrite_leaves_unknown_messages(void **state)
{
    assert_null(compile_message_rewrite(exercise_default(), "'main' : function already has a body", NULL));
    assert_null(compile_message_rewrite(exercise_default(), "'#error' : anything at all", NULL));
    assert_null(compile_message_rewrite(exercise_default(), "no quotes at all", NULL));
    assert_null(compile_message_rewrite(exercise_default(), "", ""));
    assert_null(compile_message_rewrite(exercise_default(), "'' :  syntax error, unexpected SEMICOLON", "x = (1;"));
    char *s = compile_message_rewrite(exercise_default(), "'x' : undeclared identifier", NULL);
    assert_non_null(s);
    free(s);
}

/* The column of each case's first diagnostic, on real compiles: glslang
 * quotes a token, and the column is where that token stands (0 where the
 * line cannot say which occurrence glslang meant). */
static void test_columns_point_at_the_token(void **state)
{
    static const struct {
        const char *body;
        int line, column;
        const char *at;        /* the text the column points at, or NULL */
    } cases[] = {
        { "int i = this.thread.x;\nfloat y = foo + 1.0;\nreturn y;\n", 2, 11, "foo" },
        /* the first use, not the declaration nor a swizzle of the name */
        { "float foo = 1.0 + foo;\nreturn foo;\n", 1, 19, "foo" },
        { "float a = 1.0;\nfloat y = a.x + x;\nreturn y;\n", 2, 17, "x" },
        { "float y = bar(1.0) + bar;\nreturn y;\n", 1, 11, "bar" },
        { "int j = 1.5;\nreturn 1.0;\n", 1, 7, "=" },
        { "int k = 2;\n  k += 1.5;\nreturn 1.0;\n", 2, 5, "+=" },
        { "int i = this.thread.x;\nreturn vec2(1.0);\n", 2, 1, "return" },
        { "half = 2;\nreturn 1.0;\n", 1, 6, "=" },
        { "float x = cos(1.0, 2.0);\nreturn x;\n", 1, 11, "cos" },
        { "float x = 1.0 % 2.0;\nreturn x;\n", 1, 15, "%" },
        { "int x = 1;\nint x = 2;\nreturn 1.0;\n", 2, 5, "x" },
        { "int h = this.thread.z;\nreturn 1.0;\n", 1, 21, "z" },
        /* a comment before the token keeps its place; é is one unit */
        { "/* é */ float y = foo;\nreturn y;\n", 1, 19, "foo" },
        /* a character past U+FFFF is two units */
        { "/* \xf0\x9f\x98\x80 */ float y = foo;\nreturn y;\n", 1, 20, NULL },
        /* the missing ';': just past the line's code, before its comment */
        { "float x = 1.0  // one\nreturn x;\n", 1, 14, NULL },
        /* two '=' on the line, two '[' in spectrum[0][9]: no column */
        { "int j = 0; j = 1.5;\nreturn 1.0;\n", 1, 0, NULL },
        { "float x = spectrum[0][9];\nreturn x;\n", 1, 0, NULL },
        { "float x = 1.0 +* 2.0;\nreturn x;\n", 1, 0, NULL },
        /* a macro can move a token: no column at all */
        { "#define F foo\nfloat y = F + foo;\nreturn y;\n", 2, 0, NULL },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct compile_result r;
        assert_true(compiler_compile(*state, cases[k].body, strlen(cases[k].body), &r));
        assert_false(r.ok);
        assert_true(r.ndiags >= 1);
        if (r.diags[0].line != cases[k].line || r.diags[0].column != cases[k].column)
            fail_msg("case %zu: line %d column %d, want %d:%d (%s)", k, r.diags[0].line,
                     r.diags[0].column, cases[k].line, cases[k].column, r.diags[0].message);
        if (cases[k].at) {
            const char *line = cases[k].body;
            for (int n = 1; n < cases[k].line; n++)
                line = strchr(line, '\n') + 1;
            /* the column counts UTF-16 units: step over é's second byte */
            size_t off = 0;
            for (int col = 1; col < cases[k].column;) {
                off++;
                if (((unsigned char)line[off] & 0xC0) != 0x80)
                    col++;
            }
            assert_memory_equal(line + off, cases[k].at, strlen(cases[k].at));
        }
        compile_result_clear(&r);
    }
}

/* The missing ';' is given the column just past the code of its line. */
static void test_missing_semicolon_column(void **state)
{
    const char *body = "float x = 1.0;\nfloat y = x * 2.0   \nreturn y;\n";
    struct compile_result r;
    assert_true(compiler_compile(*state, body, strlen(body), &r));
    assert_true(r.ndiags >= 1);
    assert_string_equal(r.diags[0].message, compile_missing_semicolon);
    assert_int_equal(r.diags[0].line, 2);
    assert_int_equal(r.diags[0].column, (int)strlen("float y = x * 2.0") + 1);
    compile_result_clear(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_harness_wraps_body),
        cmocka_unit_test(test_correct_body_compiles),
        cmocka_unit_test(test_syntax_error_on_line_3),
        cmocka_unit_test(test_course_names_work),
        cmocka_unit_test(test_body_cannot_reach_harness_buffers),
        cmocka_unit_test(test_macros_cannot_bend_main),
        cmocka_unit_test(test_unclosed_brace_lands_after_body),
        cmocka_unit_test(test_parse_log),
        cmocka_unit_test(test_log_is_capped),
        cmocka_unit_test(test_compiler_text_is_made_visible),
        cmocka_unit_test(test_echoed_source_is_bounded),
        cmocka_unit_test(test_answer_bound_skips_only_what_fits),
        cmocka_unit_test(test_messages_in_plain_words),
        cmocka_unit_test(test_messages_name_the_exercise),
        cmocka_unit_test(test_rewrite_leaves_unknown_messages),
        cmocka_unit_test(test_columns_point_at_the_token),
        cmocka_unit_test(test_missing_semicolon_column),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
