/*
 * mutation: how often a Wrong Answer gets a name.
 *
 * Derives every single-token mutant of the given bodies (the sample
 * correct kernels): each token of code deleted, each operator replaced by
 * the others of its kind, each number by 0, 1, 2 or 3 (0.0, 0.5, 1.0, 2.0
 * for floats), each name by every other name the body uses (x and y after
 * a dot by each other). Mutants with the same code are graded once. Each
 * is graded in this process by the engine (grader_grade, on the device
 * BUTTERFLY_DEVICE or --device names), and the verdicts are counted: how
 * many are Wrong Answers, and how many of those get a diagnosis: by a
 * formula of the family, by the pairs decoded, or by the values read back
 * as formulas (docs/FEEDBACK.md).
 *
 * Each line of a body may say which steps of the recipe it computes, as
 * a comment `// step: j` (several: `// step: sign plane`). A mutant of a
 * token on such a line breaks that step, and a named mutant "leads with
 * the broken step" when its diagnosis's step is one of the line's. The
 * share of named mutants that do is reported beside the share named.
 *
 * Run by hand (docs/FEEDBACK.md records the figure):
 *   build/tests/mutation tests/samples/correct*.glsl
 * Options: --device SEL, --verbose (print every Wrong Answer, its code and
 * its name or summary), --texts (also its step, title, explanation, hint),
 * --limit N (grade the first N mutants only).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/io/read_input.h"
#include "common/task.h"
#include "engine/diagnosis/describe.h"
#include "engine/grade.h"
#include "tests/support/words.h"

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

struct mutants {
    char **texts;       /* the bodies to grade */
    char **keys;        /* their code, for spotting duplicates */
    char **steps;       /* the steps the mutated token's line computes, "" if unmarked */
    char **others;      /* the steps every other marked line computes, left as written */
    size_t n, cap;
};

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

/* Whether step is one of the space-separated steps in list. */
static bool step_in(const char *step, const char *list)
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

static void mutate(struct mutants *m, const char *s, size_t n)
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

struct tally {
    char id[160];
    size_t count;
};

static void count_id(struct tally *ts, size_t *n, size_t max, const char *id)
{
    for (size_t k = 0; k < *n; k++)
        if (!strcmp(ts[k].id, id)) {
            ts[k].count++;
            return;
        }
    if (*n < max) {
        snprintf(ts[*n].id, sizeof ts[*n].id, "%s", id);
        ts[(*n)++].count = 1;
    }
}

static int by_count(const void *a, const void *b)
{
    const struct tally *x = a, *y = b;
    return x->count != y->count ? (x->count < y->count) - (x->count > y->count)
                                : strcmp(x->id, y->id);
}

int main(int argc, char **argv)
{
    struct grader_options o;
    grader_options_init(&o);
    o.device = getenv("BUTTERFLY_DEVICE");
    bool verbose = false, texts = false;
    size_t limit = (size_t)-1;
    struct mutants m = { 0 };
    int files = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--device") && a + 1 < argc) {
            o.device = argv[++a];
        } else if (!strcmp(argv[a], "--verbose")) {
            verbose = true;
        } else if (!strcmp(argv[a], "--texts")) {
            verbose = texts = true;
        } else if (!strcmp(argv[a], "--limit") && a + 1 < argc) {
            limit = strtoul(argv[++a], NULL, 10);
        } else if (argv[a][0] == '-') {
            fprintf(stderr, "usage: mutation [--device SEL] [--verbose] [--texts] [--limit N] BODY...\n");
            return 64;
        } else {
            char err[256];
            size_t len;
            char *body = read_input(argv[a], TASK_MAX_SOURCE, &len, err, sizeof err);
            if (!body) {
                fprintf(stderr, "%s: %s\n", argv[a], err);
                return 1;
            }
            mutate(&m, body, len);
            free(body);
            files++;
        }
    }
    if (!files) {
        fprintf(stderr, "usage: mutation [--device SEL] [--verbose] [--texts] [--limit N] BODY...\n");
        return 64;
    }
    char err[256];
    struct grader *g = grader_new(&o, err, sizeof err);
    if (!g) {
        fprintf(stderr, "no grader: %s\n", err);
        return 1;
    }
    size_t graded = 0, by_status[128] = { 0 }, named = 0, by_formula = 0, by_values = 0;
    size_t marked = 0, leads = 0;   /* named mutants of marked lines; leading with the step */
    size_t contradicts = 0;         /* leading with a step only unmutated lines compute */
    size_t too_long = 0;            /* over the words of a diagnosis */
    static struct tally ids[1024];
    size_t nids = 0;
    double t0 = clock_now_ms();
    for (size_t k = 0; k < m.n && graded < limit; k++, graded++) {
        struct verdict *v = grader_grade(g, m.texts[k], strlen(m.texts[k]));
        if (!v) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        by_status[v->status < 128 ? v->status : 127]++;
        if (v->status == VERDICT_WRONG_ANSWER) {
            if (v->diagnosis) {
                named++;
                bool values = !strncmp(v->diagnosis->title, describe_values_title,
                                       strlen(describe_values_title));
                by_values += values;
                by_formula += !values && !strstr(v->diagnosis->id, "wrong_");
                count_id(ids, &nids, sizeof ids / sizeof ids[0], v->diagnosis->id);
                if (m.steps[k][0]) {
                    marked++;
                    leads += step_in(v->diagnosis->step, m.steps[k]);
                }
                /* one story, short (issue 32) */
                if (!test_diagnosis_short(v->diagnosis->title, v->diagnosis->explanation,
                                          v->diagnosis->more, 40, 80)) {
                    too_long++;
                    printf("too long: %s\n    %s %s\n", m.keys[k], v->diagnosis->title,
                           v->diagnosis->explanation);
                }
                /* never contradict a literal line (issue 32): a mutant of a
                 * marked line does not lead with a step only unmutated
                 * (correct, to the letter) lines compute */
                if (v->diagnosis->step[0] && m.steps[k][0] &&
                    step_in(v->diagnosis->step, m.others[k]) &&
                    !step_in(v->diagnosis->step, m.steps[k])) {
                    contradicts++;
                    if (verbose || texts)
                        printf("contradicts a literal line (%s): %s\n    %s: %s\n",
                               v->diagnosis->step, m.keys[k], v->diagnosis->id,
                               v->diagnosis->title);
                }
            }
            if (verbose)
                printf("%s: %s\n    %s\n", v->diagnosis ? "named" : "unnamed", m.keys[k],
                       v->diagnosis ? v->diagnosis->id : v->summary ? v->summary : "");
            if (texts && v->diagnosis)
                printf("    broken: %s; leads with: %s\n    title: %s\n    explanation: %s\n"
                       "    hint: %s\n    more: %s\n    worked: %s\n",
                       m.steps[k], v->diagnosis->step, v->diagnosis->title,
                       v->diagnosis->explanation, v->diagnosis->hint,
                       v->diagnosis->more ? v->diagnosis->more : "",
                       v->worked_cell ? v->worked_cell->says : "");
        }
        verdict_free(v);
        if (!grader_usable(g)) {
            grader_free(g);
            if (!(g = grader_new(&o, err, sizeof err))) {
                fprintf(stderr, "no grader: %s\n", err);
                return 1;
            }
        }
    }
    double seconds = (clock_now_ms() - t0) / 1000;
    size_t wrong = by_status[VERDICT_WRONG_ANSWER];
    printf("%zu bodies, %zu distinct single-token mutants graded in %.0f s\n", (size_t)files,
           graded, seconds);
    printf("  accepted (equivalent mutants): %zu\n", by_status[VERDICT_ACCEPTED]);
    printf("  compilation errors: %zu, rejected: %zu, time limit: %zu\n",
           by_status[VERDICT_COMPILATION_ERROR], by_status[VERDICT_REJECTED],
           by_status[VERDICT_TIME_LIMIT]);
    printf("  wrong answers: %zu, named: %zu (%.1f%%): by a formula of the family %zu, by "
           "the pairs decoded %zu, by the values read back as formulas %zu\n", wrong, named,
           wrong ? 100.0 * (double)named / (double)wrong : 0.0, by_formula,
           named - by_formula - by_values, by_values);
    printf("  named mutants of marked lines: %zu, leading with the broken step: %zu (%.1f%%)\n",
           marked, leads, marked ? 100.0 * (double)leads / (double)marked : 0.0);
    printf("  named mutants leading with a step only unmutated lines compute: %zu\n",
           contradicts);
    printf("  diagnoses over 40 words (title and first sentence) or 80 (more): %zu\n",
           too_long);
    qsort(ids, nids, sizeof ids[0], by_count);
    printf("  names given, most common first:\n");
    for (size_t k = 0; k < nids; k++)
        printf("    %4zu  %s\n", ids[k].count, ids[k].id);
    grader_free(g);
    for (size_t k = 0; k < m.n; k++) {
        free(m.texts[k]);
        free(m.keys[k]);
        free(m.steps[k]);
        free(m.others[k]);
    }
    free(m.texts);
    free(m.keys);
    free(m.steps);
    free(m.others);
    return contradicts || too_long ? 2 : 0;
}
