/* compile_column.c - the column of a compiler message, where its words prove it.
 *
 * glslang reports a line and quotes a token ("'foo' : undeclared
 * identifier"), never a column. The token is looked for on that line as
 * glslang reads it (whole tokens, the longest operator first), and a
 * column is given only when one occurrence can be the one meant: the only
 * one on the line, or for an undeclared name the first use that is
 * neither a declaration nor a call (glslang complains once, at the first
 * use, and declares the name for the rest). A function is looked for where
 * it is called, a field or swizzle after its '.'. A false column is worse than
 * none, so anything else leaves 0. */
#include "engine/compile/compile_column.h"

#include <ctype.h>
#include <string.h>

/* Where line n (1-based) starts in s (len bytes) and its length without
 * its newline (nor a '\r' before it); false past the end. */
static bool line_span(const char *s, size_t len, int n, size_t *start, size_t *count)
{
    if (n < 1)
        return false;
    size_t at = 0;
    for (int k = 1; k < n; k++) {
        const char *nl = memchr(s + at, '\n', len - at);
        if (!nl)
            return false;
        at = (size_t)(nl - s) + 1;
    }
    if (at >= len)
        return false;
    const char *nl = memchr(s + at, '\n', len - at);
    size_t end = nl ? (size_t)(nl - s) : len;
    if (end > at && s[end - 1] == '\r')
        end--;
    *start = at;
    *count = end - at;
    return true;
}

/* The 1-based column of byte `off` of a line, in UTF-16 code units: every
 * byte that starts a character counts one, a four-byte one two. */
static int utf16_column(const char *line, size_t off)
{
    int col = 1;
    for (size_t k = 0; k < off; k++) {
        unsigned char c = (unsigned char)line[k];
        if ((c & 0xC0) != 0x80)
            col += (c & 0xF8) == 0xF0 ? 2 : 1;
    }
    return col;
}

bool compile_columns_trusted(const char *code, const char *body, size_t len)
{
    bool line_start = true;
    for (size_t k = 0; k < len; k++) {
        char c = code[k];
        if (body[k] == '\\' && k + 1 < len && (body[k + 1] == '\n' || body[k + 1] == '\r'))
            return false;
        if (line_start && c == '#')
            return false;
        if (c == '\n')
            line_start = true;
        else if (c != ' ' && c != '\t' && c != '\r')
            line_start = false;
    }
    return true;
}

/* GLSL's operators, the longest first (glslang reads the longest). */
static const char *const operators[] = {
    "<<=", ">>=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "++", "--", "<<", ">>",
    "<=", ">=", "==", "!=", "&&", "||", "^^",
};

/* The length of the token at s (n bytes left), and whether it is a word. */
static size_t token_at(const char *s, size_t n, bool *word)
{
    unsigned char c = (unsigned char)s[0];
    *word = isalpha(c) || c == '_';
    if (*word || isdigit(c) || (c == '.' && n > 1 && isdigit((unsigned char)s[1]))) {
        size_t k = 1;
        while (k < n) {
            unsigned char d = (unsigned char)s[k];
            bool exponent_sign = !*word && (d == '+' || d == '-') &&
                                 (s[k - 1] == 'e' || s[k - 1] == 'E') &&
                                 !(n > 1 && (s[1] == 'x' || s[1] == 'X'));
            if (isalnum(d) || d == '_' || (!*word && d == '.') || exponent_sign)
                k++;
            else
                break;
        }
        return k;
    }
    for (size_t k = 0; k < sizeof operators / sizeof operators[0]; k++) {
        size_t m = strlen(operators[k]);
        if (m <= n && !memcmp(s, operators[k], m))
            return m;
    }
    return 1;
}

enum want { ANY, UNDECLARED, FIELD, CALL };

/* Words after which a name is used, not declared. */
static bool statement_word(const char *s, size_t n)
{
    static const char *const words[] = { "return", "else", "case", "do" };
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
        if (strlen(words[k]) == n && !memcmp(s, words[k], n))
            return true;
    return false;
}

/*
 * The byte offset in the line (n bytes of code) of the occurrence of one
 * of the tokens `names` that the message means, or -1.
 */
static long find(const char *code, size_t n, const char *const *names, size_t nnames,
                 enum want want)
{
    long first = -1;
    int count = 0;
    size_t prev_at = 0, prev_len = 0;
    bool prev_word = false, have_prev = false;
    for (size_t k = 0; k < n;) {
        if (isspace((unsigned char)code[k])) {
            k++;
            continue;
        }
        bool word;
        size_t m = token_at(code + k, n - k, &word);
        bool match = false;
        for (size_t j = 0; j < nnames && !match; j++)
            match = strlen(names[j]) == m && !memcmp(code + k, names[j], m);
        if (match) {
            bool after_dot = have_prev && prev_len == 1 && code[prev_at] == '.';
            size_t next = k + m;
            while (next < n && isspace((unsigned char)code[next]))
                next++;
            bool call = next < n && code[next] == '(';
            bool declared = have_prev && prev_word &&
                            !statement_word(code + prev_at, prev_len);
            bool counts;
            if (want == FIELD)
                counts = after_dot;
            else if (want == CALL)
                counts = !after_dot && call;
            else if (want == UNDECLARED)
                counts = !after_dot && !call && !declared;
            else
                counts = !after_dot;
            if (counts) {
                if (first < 0)
                    first = (long)k;
                count++;
            }
        }
        prev_at = k;
        prev_len = m;
        prev_word = word;
        have_prev = true;
        k += m;
    }
    if (want == UNDECLARED)
        return first;
    return count == 1 ? first : -1;
}

int compile_column_of_token(const char *raw, const char *param, const char *code,
                            const char *body, size_t len, int line)
{
    if (!raw || raw[0] != '\'')
        return 0;
    const char *end = strstr(raw + 1, "' :");
    if (!end || end == raw + 1 || end - raw - 1 > 63)
        return 0;
    char tok[64];
    memcpy(tok, raw + 1, (size_t)(end - raw - 1));
    tok[end - raw - 1] = '\0';
    const char *rest = end + 3;
    while (*rest == ' ')
        rest++;

    static const char *const assignments[] = { "=", "+=", "-=", "*=", "/=", "%=",
                                               "<<=", ">>=", "&=", "|=", "^=" };
    const char *one[1] = { tok };
    const char *const *names = one;
    size_t nnames = 1;
    enum want want = ANY;
    if (!strcmp(tok, "assign")) {
        /* glslang's name for every assignment, = and += alike */
        names = assignments;
        nnames = sizeof assignments / sizeof assignments[0];
    } else if (!strcmp(tok, "bf_half")) {
        one[0] = param;     /* the harness's macros, as the student wrote them */
    } else if (!strcmp(tok, "bf_this")) {
        one[0] = "this";
    } else if (!strncmp(tok, "bf_", 3) || !strcmp(tok, "spec") || !strcmp(tok, "constructor") ||
               !strcmp(tok, "[]") || strchr("().,;{}", tok[0])) {
        /* the harness's own names (the input is "(bf_in.spec)"), glslang's
         * words for no token, and the punctuation that macro brings */
        return 0;
    }
    if (isalpha((unsigned char)tok[0]) || tok[0] == '_') {
        if (!strcmp(rest, "undeclared identifier"))
            want = UNDECLARED;
        else if (strstr(rest, "swizzle") || strstr(rest, "no such field"))
            want = FIELD;
        else if (!strcmp(rest, "no matching overloaded function found"))
            want = CALL;
    }

    size_t start, count;
    if (!line_span(code, len, line, &start, &count))
        return 0;
    long at = find(code + start, count, names, nnames, want);
    return at < 0 ? 0 : utf16_column(body + start, (size_t)at);
}

int compile_column_after_code(const char *code, const char *body, size_t len, int line)
{
    size_t start, count;
    if (!line_span(code, len, line, &start, &count))
        return 0;
    size_t end = count;
    while (end > 0 && isspace((unsigned char)code[start + end - 1]))
        end--;
    return end == 0 ? 0 : utf16_column(body + start, end);
}
