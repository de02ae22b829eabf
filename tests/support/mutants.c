/* mutants.c - every single-token mutant of a body (mutants.h). */
#include "tests/support/mutants.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 4096

struct token {
    size_t start, len;
    enum { T_NAME, T_MEMBER, T_INT, T_FLOAT, T_OP, T_PUNCT } kind;
};

/* The code tokens of body (comments and blanks skipped); -1 past MAX_TOKENS. */
static int tokenize(const char *s, size_t n, struct token *out)
{
    static const char *const ops[] = { "==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=",
                                       "-=", "*=", "/=", "<<", ">>", "+", "-", "*", "/",
                                       "%", "<", ">", "&", "|", "^", "!", "=", "?", ":" };
    int count = 0;
    size_t k = 0;
    if (n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
        k = 3;
    while (k < n) {
        if (isspace((unsigned char)s[k])) {
            k++;
            continue;
        }
        if (s[k] == '/' && k + 1 < n && s[k + 1] == '/') {
            while (k < n && s[k] != '\n')
                k++;
            continue;
        }
        if (s[k] == '/' && k + 1 < n && s[k + 1] == '*') {
            const char *end = strstr(s + k + 2, "*/");
            k = end ? (size_t)(end - s) + 2 : n;
            continue;
        }
        if (count == MAX_TOKENS)
            return -1;
        struct token *t = &out[count++];
        t->start = k;
        if (isalpha((unsigned char)s[k]) || s[k] == '_') {
            while (k < n && (isalnum((unsigned char)s[k]) || s[k] == '_'))
                k++;
            t->kind = t->start > 0 && s[t->start - 1] == '.' ? T_MEMBER : T_NAME;
        } else if (isdigit((unsigned char)s[k]) || (s[k] == '.' && isdigit((unsigned char)s[k + 1]))) {
            bool is_float = false;
            while (k < n && (isalnum((unsigned char)s[k]) || s[k] == '.')) {
                is_float |= s[k] == '.' || s[k] == 'e';
                k++;
            }
            t->kind = is_float ? T_FLOAT : T_INT;
        } else {
            t->kind = T_PUNCT;
            k++;
            for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
                size_t len = strlen(ops[o]);
                if (t->start + len <= n && !memcmp(s + t->start, ops[o], len)) {
                    t->kind = T_OP;
                    k = t->start + len;
                    break;
                }
            }
        }
        t->len = k - t->start;
    }
    return count;
}

/* The kinds of operator a mutant may swap among. */
static const char *const op_groups[][7] = {
    { "+", "-", "*", "/", "%", NULL },
    { "==", "!=", "<", ">", "<=", ">=", NULL },
    { "&&", "||", NULL },
    { "&", "|", "^", NULL },
    { "+=", "-=", "*=", "/=", NULL },
    { "++", "--", NULL },
};

/* Words that are not values: swapping a value's name for one of these only
 * makes a compile error. */
static bool keyword(const char *w, size_t n)
{
    static const char *const words[] = { "int", "float", "bool", "vec2", "vec3", "vec4",
                                         "if", "else", "return", "const", "for", "while",
                                         "true", "false", "this", "uint", NULL };
    for (size_t k = 0; words[k]; k++)
        if (strlen(words[k]) == n && !memcmp(words[k], w, n))
            return true;
    return false;
}

/* The steps line `at`'s `// step:` comment names, space-separated, into
 * buf ("" when the line has none). */
static void steps_of_line(const char *s, size_t n, size_t at, char *buf, size_t size)
{
    size_t start = at, end = at;
    while (start > 0 && s[start - 1] != '\n')
        start--;
    while (end < n && s[end] != '\n')
        end++;
    buf[0] = '\0';
    const char *mark = "// step:";
    for (size_t k = start; k + strlen(mark) <= end; k++) {
        if (!memcmp(s + k, mark, strlen(mark))) {
            size_t from = k + strlen(mark);
            while (from < end && s[from] == ' ')
                from++;
            snprintf(buf, size, "%.*s", (int)(end - from), s + from);
            return;
        }
    }
}

bool mutants_step_in(const char *step, const char *list)
{
    size_t len = strlen(step);
    for (const char *p = list; len && (p = strstr(p, step)); p += len)
        if ((p == list || p[-1] == ' ') && (p[len] == '\0' || p[len] == ' '))
            return true;
    return false;
}

static bool seen(const struct mutants *m, const char *key)
{
    for (size_t k = 0; k < m->n; k++)
        if (!strcmp(m->keys[k], key))
            return true;
    return false;
}

/* The code of a body with token `at` replaced by `with` (NULL: deleted),
 * tokens separated by one space: two mutants with the same key are the
 * same program. */
static char *key_of(const char *s, const struct token *toks, int ntoks, int at, const char *with)
{
    size_t cap = 16, len = 0;
    for (int k = 0; k < ntoks; k++)
        cap += toks[k].len + 1 + (k == at && with ? strlen(with) : 0);
    char *key = malloc(cap);
    if (!key)
        return NULL;
    for (int k = 0; k < ntoks; k++) {
        const char *text = k == at ? with : s + toks[k].start;
        size_t n = k == at ? (with ? strlen(with) : 0) : toks[k].len;
        if (k == at && !with)
            continue;
        memcpy(key + len, text, n);
        len += n;
        key[len++] = ' ';
    }
    key[len] = '\0';
    return key;
}

/* Adds the mutant of s with token `at` replaced (or deleted), unless the
 * same code is already there or it is the body itself. */
static void add(struct mutants *m, const char *s, size_t n, const struct token *toks, int ntoks,
                int at, const char *with, const char *original_key)
{
    char *key = key_of(s, toks, ntoks, at, with);
    if (!key || !strcmp(key, original_key) || seen(m, key)) {
        free(key);
        return;
    }
    size_t wlen = with ? strlen(with) : 0;
    char *text = malloc(n + wlen + 1);
    if (!text) {
        free(key);
        return;
    }
    const struct token *t = &toks[at];
    memcpy(text, s, t->start);
    memcpy(text + t->start, with ? with : "", wlen);
    memcpy(text + t->start + wlen, s + t->start + t->len, n - t->start - t->len);
    text[n - t->len + wlen] = '\0';
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 1024;
        m->texts = realloc(m->texts, m->cap * sizeof *m->texts);
        m->keys = realloc(m->keys, m->cap * sizeof *m->keys);
        m->steps = realloc(m->steps, m->cap * sizeof *m->steps);
        m->others = realloc(m->others, m->cap * sizeof *m->others);
        if (!m->texts || !m->keys || !m->steps || !m->others) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    char steps[64];
    steps_of_line(s, n, t->start, steps, sizeof steps);
    m->texts[m->n] = text;
    m->steps[m->n] = strdup(steps);
    /* the other lines are the correct sample's, to the letter */
    char others[512] = "";
    for (size_t line = 0; line < n;) {
        size_t end = line;
        while (end < n && s[end] != '\n')
            end++;
        if (!(t->start >= line && t->start <= end)) {
            char one[64];
            steps_of_line(s, n, line, one, sizeof one);
            if (one[0] && strlen(others) + strlen(one) + 2 < sizeof others)
                strcat(strcat(others, " "), one);
        }
        line = end + 1;
    }
    m->others[m->n] = strdup(others);
    m->keys[m->n++] = key;
}

void mutants_add(struct mutants *m, const char *s, size_t n)
{
    static struct token toks[MAX_TOKENS];
    int ntoks = tokenize(s, n, toks);
    if (ntoks < 0)
        return;
    char *original = key_of(s, toks, ntoks, -1, NULL);
    if (!original)
        return;
    for (int k = 0; k < ntoks; k++) {
        const struct token *t = &toks[k];
        char word[64];
        snprintf(word, sizeof word, "%.*s", (int)t->len, s + t->start);
        add(m, s, n, toks, ntoks, k, NULL, original);
        switch (t->kind) {
        case T_OP:
            for (size_t g = 0; g < sizeof op_groups / sizeof op_groups[0]; g++) {
                bool member = false;
                for (size_t o = 0; op_groups[g][o]; o++)
                    member |= !strcmp(op_groups[g][o], word);
                for (size_t o = 0; member && op_groups[g][o]; o++)
                    add(m, s, n, toks, ntoks, k, op_groups[g][o], original);
            }
            break;
        case T_INT: {
            static const char *const ints[] = { "0", "1", "2", "3" };
            for (size_t v = 0; v < 4; v++)
                add(m, s, n, toks, ntoks, k, ints[v], original);
            break;
        }
        case T_FLOAT: {
            static const char *const floats[] = { "0.0", "0.5", "1.0", "2.0" };
            for (size_t v = 0; v < 4; v++)
                if (strtod(floats[v], NULL) != strtod(word, NULL))
                    add(m, s, n, toks, ntoks, k, floats[v], original);
            break;
        }
        case T_MEMBER:
            add(m, s, n, toks, ntoks, k, !strcmp(word, "x") ? "y" : "x", original);
            break;
        case T_NAME:
            if (keyword(word, t->len))
                break;
            for (int o = 0; o < ntoks; o++) {
                const struct token *u = &toks[o];
                if (u->kind != T_NAME || keyword(s + u->start, u->len))
                    continue;
                char other[64];
                snprintf(other, sizeof other, "%.*s", (int)u->len, s + u->start);
                add(m, s, n, toks, ntoks, k, other, original);
            }
            break;
        case T_PUNCT:
            break;
        }
    }
    free(original);
}

void mutants_free(struct mutants *m)
{
    for (size_t k = 0; k < m->n; k++) {
        free(m->texts[k]);
        free(m->keys[k]);
        free(m->steps[k]);
        free(m->others[k]);
    }
    free(m->texts);
    free(m->keys);
    free(m->steps);
    free(m->others);
    *m = (struct mutants){ 0 };
}
