/* macro_cost.c - a bounded simulation of the preprocessor, counting tokens. */
#include "engine/checks/macro_cost.h"

#include "common/defaults.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One token: its spelling is at `at` in the cleaned text, or in the paste
 * arena when `pasted`. */
struct token {
    uint32_t at, len;
    int line;
    bool bol;       /* first token after a newline: a '#' here starts a directive */
    bool space;     /* whitespace or a comment just before it */
    bool pasted;
};

/* A token as it travels through expansions; `blue` is C's "painted blue":
 * a macro name met while that macro was being expanded never expands. */
struct ref {
    uint32_t tok;
    bool blue;
};

struct ref_list {
    struct ref *r;
    size_t n, cap;
};

/* One definition of a name. A name defined twice keeps both: the count
 * must not depend on which #if branch glslang takes. */
struct macro {
    int name;           /* index into names */
    int nparams;        /* -1 for an object-like macro */
    uint32_t params;    /* token index of the first parameter name */
    uint32_t repl, repl_end;
    int *param_at;      /* for each replacement token, its parameter's index or -1 */
    int next;           /* the next definition of the same name, or -1 */
};

struct name {
    uint32_t tok;       /* a token that spells it */
    int first, last;    /* its first and last definitions, -1 when none */
    int active;         /* expansions of it in progress */
    int param;          /* while a definition is read: its parameter index, or -1 */
};

struct frame {
    bool source;        /* the body itself, read with its directives */
    struct ref_list list;
    size_t pos;
    int name;           /* the macro being expanded, or -1 */
};

struct expander {
    struct frame *st;
    size_t sp, cap;
    bool has_back;
    struct ref back;    /* one token read ahead and put back */
    bool collect;       /* keep what is emitted (an argument's expansion) */
    struct ref_list out;
};

struct mc {
    char *text;         /* the body without line continuations, lone CRs as LF */
    int *line_at;       /* the body's line of each byte of text */
    size_t text_len;
    struct token *tok;
    size_t ntok, ntok_source, tok_cap;
    char *arena;        /* spellings of pasted tokens */
    size_t arena_len, arena_cap;
    struct macro *m;
    size_t nm, m_cap;
    struct name *names;
    size_t nnames, names_cap;
    int *hash;          /* open addressing over names; -1 empty */
    size_t hash_cap;
    unsigned long work, limit;
    unsigned long operators, most_operators;   /* in the output's statement, and the most */
    int line, depth;
    bool stop, too_deep, no_memory, long_expression;
};

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * size);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

static void out_of_memory(struct mc *s)
{
    s->no_memory = true;
    s->stop = true;
}

/* Counts n tokens of work; stops the simulation past the limit. */
static bool charge(struct mc *s, size_t n)
{
    s->work += n;
    if (s->work > s->limit) {
        s->work = s->limit + 1;
        s->stop = true;
    }
    return !s->stop;
}

static const char *spell(const struct mc *s, uint32_t t, size_t *len)
{
    *len = s->tok[t].len;
    return (s->tok[t].pasted ? s->arena : s->text) + s->tok[t].at;
}

static bool spelled(const struct mc *s, uint32_t t, const char *word)
{
    size_t n;
    const char *p = spell(s, t, &n);
    return n == strlen(word) && !memcmp(p, word, n);
}

static bool is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_ident(const struct mc *s, uint32_t t)
{
    size_t n;
    const char *p = spell(s, t, &n);
    return n > 0 && is_ident_start(p[0]);
}

/* --- the text and its tokens ------------------------------------------------ */

/* Removes line continuations and makes every newline one LF, as glslang
 * reads the text, keeping each byte's line: counted by LF bytes, as
 * glslang counts lines (a lone CR ends a line but starts no new number). */
static bool clean(struct mc *s, const char *body, size_t len)
{
    if (!(s->text = malloc(len + 1)) || !(s->line_at = malloc((len + 1) * sizeof *s->line_at)))
        return false;
    int line = 1;
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        char c = body[i];
        bool lf = false;
        if (c == '\\' && i + 1 < len && (body[i + 1] == '\n' || body[i + 1] == '\r')) {
            if (body[i + 1] == '\r' && i + 2 < len && body[i + 2] == '\n')
                i++;
            i++;
            line += body[i] == '\n';
            continue;
        }
        if (c == '\r') {
            if (i + 1 < len && body[i + 1] == '\n')
                i++;
            lf = body[i] == '\n';
            c = '\n';
        } else {
            lf = c == '\n';
        }
        s->line_at[k] = line;
        s->text[k++] = c;
        line += lf;
    }
    s->text[k] = '\0';
    s->text_len = k;
    return true;
}

static bool add_token(struct mc *s, uint32_t at, uint32_t len, int line, bool bol, bool space,
                      bool pasted)
{
    if (!grow((void **)&s->tok, &s->tok_cap, s->ntok + 1, sizeof *s->tok))
        return false;
    s->tok[s->ntok++] = (struct token){ at, len, line, bol, space, pasted };
    return true;
}

/* Splits the text into tokens. Operators of several characters count as
 * several tokens (more than glslang counts, never fewer), but for "##". */
static bool tokenize(struct mc *s)
{
    const char *t = s->text;
    size_t n = s->text_len, i = 0;
    bool bol = true, space = false;
    while (i < n) {
        char c = t[i];
        if (c == '\n') {
            bol = true;
            space = true;
            i++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\v' || c == '\f') {
            space = true;
            i++;
            continue;
        }
        if (c == '/' && i + 1 < n && t[i + 1] == '/') {
            while (i < n && t[i] != '\n')
                i++;
            space = true;
            continue;
        }
        if (c == '/' && i + 1 < n && t[i + 1] == '*') {
            /* a block comment makes no newline in glslang */
            const char *end = strstr(t + i + 2, "*/");
            i = end ? (size_t)(end - t) + 2 : n;
            space = true;
            continue;
        }
        size_t start = i;
        if (is_ident_start(c)) {
            while (i < n && is_ident_char(t[i]))
                i++;
        } else if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < n && t[i + 1] >= '0' &&
                                              t[i + 1] <= '9')) {
            while (i < n && (is_ident_char(t[i]) || t[i] == '.' ||
                             ((t[i] == '+' || t[i] == '-') && (t[i - 1] == 'e' || t[i - 1] == 'E'))))
                i++;
        } else if (c == '#' && i + 1 < n && t[i + 1] == '#') {
            i += 2;
        } else {
            i++;
        }
        if (!add_token(s, (uint32_t)start, (uint32_t)(i - start), s->line_at[start], bol, space,
                       false))
            return false;
        bol = false;
        space = false;
    }
    s->ntok_source = s->ntok;
    return true;
}

/* --- names and definitions ---------------------------------------------------- */

static size_t hash_of(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    return (size_t)h;
}

/* The name that token t spells, -1 when no macro was ever defined with it
 * (and create is false). */
static int name_of(struct mc *s, uint32_t t, bool create)
{
    size_t n, m;
    const char *p = spell(s, t, &n);
    if (s->hash_cap == 0 || (create && (s->nnames + 1) * 2 > s->hash_cap)) {
        if (!create)
            return -1;
        size_t cap = s->hash_cap ? s->hash_cap * 2 : 64;
        int *h = malloc(cap * sizeof *h);
        if (!h)
            return -1;
        for (size_t i = 0; i < cap; i++)
            h[i] = -1;
        for (size_t k = 0; k < s->nnames; k++) {
            const char *q = spell(s, s->names[k].tok, &m);
            size_t at = hash_of(q, m) & (cap - 1);
            while (h[at] >= 0)
                at = (at + 1) & (cap - 1);
            h[at] = (int)k;
        }
        free(s->hash);
        s->hash = h;
        s->hash_cap = cap;
    }
    size_t at = hash_of(p, n) & (s->hash_cap - 1);
    for (; s->hash[at] >= 0; at = (at + 1) & (s->hash_cap - 1)) {
        const char *q = spell(s, s->names[s->hash[at]].tok, &m);
        if (m == n && !memcmp(p, q, n))
            return s->hash[at];
    }
    if (!create)
        return -1;
    if (!grow((void **)&s->names, &s->names_cap, s->nnames + 1, sizeof *s->names))
        return -1;
    s->names[s->nnames] = (struct name){ .tok = t, .first = -1, .last = -1, .param = -1 };
    s->hash[at] = (int)s->nnames;
    return (int)s->nnames++;
}

/* #define at token d (the word "define") up to end: one more definition.
 * Each replacement token's parameter is found once here, by name, so that
 * a call costs no search however many parameters there are. */
static void define(struct mc *s, size_t d, size_t end)
{
    size_t k = d + 1;
    if (k >= end || !is_ident(s, (uint32_t)k))
        return;
    int name = name_of(s, (uint32_t)k, true);
    if (name < 0 || !grow((void **)&s->m, &s->m_cap, s->nm + 1, sizeof *s->m)) {
        out_of_memory(s);
        return;
    }
    struct macro mac = { .name = name, .nparams = -1, .next = -1 };
    k++;
    size_t params = k, params_end = k;
    if (k < end && spelled(s, (uint32_t)k, "(") && !s->tok[k].space) {
        mac.nparams = 0;
        params = ++k;
        while (k < end && !spelled(s, (uint32_t)k, ")"))
            k++;
        params_end = k;
        k = k < end ? k + 1 : end;
    }
    mac.repl = (uint32_t)k;
    mac.repl_end = (uint32_t)end;
    if (end > k && !(mac.param_at = malloc((end - k) * sizeof *mac.param_at))) {
        out_of_memory(s);
        return;
    }
    for (size_t p = params; p < params_end; p++) {
        int pn = is_ident(s, (uint32_t)p) ? name_of(s, (uint32_t)p, true) : -1;
        if (pn < 0) {
            if (!is_ident(s, (uint32_t)p))
                continue;
            free(mac.param_at);
            out_of_memory(s);
            return;
        }
        if (s->names[pn].param < 0)
            s->names[pn].param = mac.nparams;
        mac.nparams++;
    }
    for (size_t r = k; r < end; r++) {
        int rn = is_ident(s, (uint32_t)r) ? name_of(s, (uint32_t)r, false) : -1;
        mac.param_at[r - k] = rn >= 0 ? s->names[rn].param : -1;
    }
    for (size_t p = params; p < params_end; p++) {
        int pn = is_ident(s, (uint32_t)p) ? name_of(s, (uint32_t)p, false) : -1;
        if (pn >= 0)
            s->names[pn].param = -1;
    }
    /* kept in the order written, each name's definitions chained */
    s->m[s->nm] = mac;
    if (s->names[name].last >= 0)
        s->m[s->names[name].last].next = (int)s->nm;
    else
        s->names[name].first = (int)s->nm;
    s->names[name].last = (int)s->nm++;
}

/* --- expansion ------------------------------------------------------------------ */

static bool list_add(struct ref_list *l, struct ref r)
{
    if (!grow((void **)&l->r, &l->cap, l->n + 1, sizeof *l->r))
        return false;
    l->r[l->n++] = r;
    return true;
}

static bool push(struct mc *s, struct expander *e, struct frame f)
{
    if (!grow((void **)&e->st, &e->cap, e->sp + 1, sizeof *e->st)) {
        free(f.list.r);
        out_of_memory(s);
        return false;
    }
    if (f.name >= 0)
        s->names[f.name].active++;
    e->st[e->sp++] = f;
    return true;
}

static void pop(struct mc *s, struct expander *e)
{
    struct frame *f = &e->st[--e->sp];
    if (f->name >= 0)
        s->names[f->name].active--;
    free(f->list.r);
}

static void expand(struct mc *s, struct expander *e);

/* A directive's tokens from..end, expanded as #if and #elif expand them. */
static void expand_line(struct mc *s, size_t from, size_t end)
{
    struct expander sub = { 0 };
    struct frame f = { .name = -1 };
    for (size_t k = from; k < end; k++)
        if (!list_add(&f.list, (struct ref){ (uint32_t)k, false })) {
            free(f.list.r);
            out_of_memory(s);
            return;
        }
    if (push(s, &sub, f))
        expand(s, &sub);
    while (sub.sp > 0)
        pop(s, &sub);
    free(sub.st);
    free(sub.out.r);
}

/* The directive whose '#' is token at: defines, and expands #if lines. */
static size_t directive(struct mc *s, size_t at)
{
    size_t end = at + 1;
    while (end < s->ntok_source && !s->tok[end].bol)
        end++;
    s->line = s->tok[at].line;
    if (at + 1 < end) {
        if (spelled(s, (uint32_t)at + 1, "define"))
            define(s, at + 1, end);
        else if (spelled(s, (uint32_t)at + 1, "if") || spelled(s, (uint32_t)at + 1, "elif"))
            expand_line(s, at + 2, end);
    }
    charge(s, end - at);
    return end;
}

/* The next token of e's input, through every frame; false at its end. */
static bool next(struct mc *s, struct expander *e, struct ref *r)
{
    if (e->has_back) {
        e->has_back = false;
        *r = e->back;
        return true;
    }
    while (e->sp > 0 && !s->stop) {
        struct frame *f = &e->st[e->sp - 1];
        if (f->source) {
            if (f->pos >= s->ntok_source) {
                pop(s, e);
                continue;
            }
            if (s->tok[f->pos].bol && spelled(s, (uint32_t)f->pos, "#")) {
                f->pos = directive(s, f->pos);
                continue;
            }
            s->line = s->tok[f->pos].line;
            *r = (struct ref){ (uint32_t)f->pos++, false };
            return true;
        }
        if (f->pos >= f->list.n) {
            pop(s, e);
            continue;
        }
        *r = f->list.r[f->pos++];
        return true;
    }
    return false;
}

/* A token of the expansion's output (e not collecting): counts the
 * operators of the statement it is in, a ';' or a brace ending one. A
 * token of several operator characters ("+=") counts once per character,
 * more than glslang's tree has, never fewer. */
static void count_operator(struct mc *s, uint32_t t)
{
    size_t len;
    const char *p = spell(s, t, &len);
    if (len == 1 && (*p == ';' || *p == '{' || *p == '}')) {
        s->operators = 0;
        return;
    }
    for (size_t i = 0; i < len; i++)
        if (strchr("+-*/%<>=!&|^?", p[i]))
            s->operators++;
    if (s->operators > s->most_operators)
        s->most_operators = s->operators;
    if (s->operators > MAX_EXPRESSION_OPERATORS) {
        s->long_expression = true;
        s->stop = true;
    }
}

static void emit(struct mc *s, struct expander *e, struct ref r)
{
    if (!e->collect)
        count_operator(s, r.tok);
    else if (!list_add(&e->out, r))
        out_of_memory(s);
}

/* A macro call's arguments, raw, after its '(' was read: up to the ')'
 * that closes it. False when the input ends first. */
static bool collect_args(struct mc *s, struct expander *e, struct ref_list *raw,
                         struct ref_list **args, size_t *nargs)
{
    int depth = 0;
    struct ref r;
    *nargs = 1;
    if (!(*args = calloc(1, sizeof **args))) {
        out_of_memory(s);
        return false;
    }
    while (next(s, e, &r)) {
        if (!charge(s, 1))
            return false;
        int name = is_ident(s, r.tok) ? name_of(s, r.tok, false) : -1;
        if (name >= 0 && s->names[name].active > 0)
            r.blue = true;
        if (!list_add(raw, r)) {
            out_of_memory(s);
            return false;
        }
        if (spelled(s, r.tok, "(")) {
            depth++;
        } else if (spelled(s, r.tok, ")")) {
            if (depth-- == 0)
                return true;
        } else if (depth == 0 && spelled(s, r.tok, ",")) {
            struct ref_list *g = realloc(*args, (*nargs + 1) * sizeof *g);
            if (!g) {
                out_of_memory(s);
                return false;
            }
            *args = g;
            memset(&g[(*nargs)++], 0, sizeof *g);
            continue;
        }
        if (!list_add(&(*args)[*nargs - 1], r)) {
            out_of_memory(s);
            return false;
        }
    }
    return false;
}

/* An argument expanded on its own, as C expands it before substitution. */
static bool pre_expand(struct mc *s, const struct ref_list *arg, struct ref_list *out)
{
    struct expander sub = { .collect = true };
    struct frame f = { .name = -1 };
    if (++s->depth > MACRO_COST_MAX_DEPTH) {
        s->too_deep = true;
        s->stop = true;
    } else if (arg->n > 0 && !(f.list.r = malloc(arg->n * sizeof *f.list.r))) {
        out_of_memory(s);
    } else {
        if (arg->n > 0)
            memcpy(f.list.r, arg->r, arg->n * sizeof *f.list.r);
        f.list.n = f.list.cap = arg->n;
        if (push(s, &sub, f))
            expand(s, &sub);
    }
    s->depth--;
    while (sub.sp > 0)
        pop(s, &sub);
    free(sub.st);
    *out = sub.out;
    return !s->stop;
}

/* A token spelled as a and b together (b may be none): "##". */
static bool paste(struct mc *s, uint32_t a, const struct ref *b, struct ref *out)
{
    size_t na, nb = 0;
    const char *pa = spell(s, a, &na), *pb = b ? spell(s, b->tok, &nb) : "";
    if (!grow((void **)&s->arena, &s->arena_cap, s->arena_len + na + nb + 1, 1))
        return false;
    /* spell() may point into the arena that grow() moved */
    pa = spell(s, a, &na);
    if (b)
        pb = spell(s, b->tok, &nb);
    size_t at = s->arena_len;
    memmove(s->arena + at, pa, na);
    memmove(s->arena + at + na, pb, nb);
    s->arena_len += na + nb;
    if (!add_token(s, (uint32_t)at, (uint32_t)(na + nb), s->tok[a].line, false, false, true))
        return false;
    *out = (struct ref){ (uint32_t)(s->ntok - 1), false };
    return true;
}

/* The replacement of definition mac with its arguments substituted (raw
 * ones beside "##", expanded ones elsewhere), into *list. */
static bool substitute(struct mc *s, const struct macro *mac, const struct ref_list *raw_args,
                       const struct ref_list *args, size_t nargs, struct ref_list *list)
{
    for (uint32_t k = mac->repl; k < mac->repl_end && !s->stop; k++) {
        bool pasting = spelled(s, k, "##") && list->n > 0 && k + 1 < mac->repl_end;
        if (pasting)
            k++;
        int p = mac->param_at ? mac->param_at[k - mac->repl] : -1;
        bool raw = pasting || (k + 1 < mac->repl_end && spelled(s, k + 1, "##"));
        const struct ref_list *src = NULL;
        struct ref one = { k, false };
        size_t n = 1;
        if (p >= 0) {
            src = (size_t)p < nargs ? (raw ? &raw_args[p] : &args[p]) : NULL;
            n = src ? src->n : 0;
        }
        if (!charge(s, n))
            return false;
        for (size_t i = 0; i < n; i++) {
            struct ref r = src ? src->r[i] : one;
            if (pasting && i == 0) {
                struct ref joined;
                if (!paste(s, list->r[list->n - 1].tok, &r, &joined))
                    goto oom;
                list->r[list->n - 1] = joined;
                continue;
            }
            if (!list_add(list, r))
                goto oom;
        }
    }
    return !s->stop;
oom:
    out_of_memory(s);
    return false;
}

static void free_args(struct ref_list *a, size_t n)
{
    for (size_t i = 0; a && i < n; i++)
        free(a[i].r);
    free(a);
}

/* The use of name (token r) in e's input: every definition of it expands,
 * the function-like ones when a '(' follows. */
static void expand_use(struct mc *s, struct expander *e, struct ref r, int name)
{
    struct ref_list raw = { 0 }, *raw_args = NULL, *args = NULL;
    size_t nargs = 0;
    bool any_fn = false, have_args = false, name_emitted = false;
    for (int d = s->names[name].first; d >= 0; d = s->m[d].next)
        any_fn |= s->m[d].nparams >= 0;
    if (any_fn) {
        struct ref n;
        if (next(s, e, &n)) {
            if (spelled(s, n.tok, "(")) {
                if (!charge(s, 1) || !list_add(&raw, n))
                    goto done;
                have_args = collect_args(s, e, &raw, &raw_args, &nargs);
                if (!have_args)
                    goto done;  /* the input ended inside the call: counted already */
            } else {
                e->back = n;
                e->has_back = true;
            }
        }
    }
    if (have_args && !(args = calloc(nargs, sizeof *args))) {
        out_of_memory(s);
        goto done;
    }
    for (size_t i = 0; have_args && i < nargs; i++)
        if (!pre_expand(s, &raw_args[i], &args[i]))
            goto done;
    for (int d = s->names[name].first; d >= 0 && !s->stop; d = s->m[d].next) {
        const struct macro *mac = &s->m[d];
        struct frame f = { .name = name };
        /* each definition costs its use, even an empty one */
        if (!charge(s, 1))
            goto done;
        if (mac->nparams >= 0 && !have_args) {
            /* a function-like macro's name without a call stays a name */
            if (!name_emitted)
                emit(s, e, (struct ref){ r.tok, true });
            name_emitted = true;
            continue;
        }
        if (!substitute(s, mac, raw_args, args, nargs, &f.list)) {
            free(f.list.r);
            goto done;
        }
        /* an object-like definition leaves a call's parentheses in place */
        for (size_t i = 0; mac->nparams < 0 && have_args && i < raw.n; i++)
            if (!charge(s, 1) || !list_add(&f.list, raw.r[i])) {
                free(f.list.r);
                goto done;
            }
        if (!push(s, e, f))
            goto done;
    }
done:
    free(raw.r);
    free_args(raw_args, nargs);
    free_args(args, args ? nargs : 0);
}

/* Expands e's input to its end, or until the count passes the limit. */
static void expand(struct mc *s, struct expander *e)
{
    struct ref r;
    while (!s->stop && next(s, e, &r)) {
        if (!charge(s, 1))
            return;
        int name = !r.blue && is_ident(s, r.tok) ? name_of(s, r.tok, false) : -1;
        if (name < 0 || s->names[name].first < 0) {
            emit(s, e, r);
        } else if (s->names[name].active > 0) {
            r.blue = true;
            emit(s, e, r);
        } else {
            expand_use(s, e, r, name);
        }
    }
}

bool macro_cost_count(const char *body, size_t len, unsigned long limit, struct macro_cost *out)
{
    struct mc s = { .limit = limit };
    struct expander top = { 0 };
    memset(out, 0, sizeof *out);
    if (!clean(&s, body, len) || !tokenize(&s)) {
        s.no_memory = true;
    } else if (push(&s, &top, (struct frame){ .source = true, .name = -1 })) {
        expand(&s, &top);
    }
    while (top.sp > 0)
        pop(&s, &top);
    free(top.st);
    free(top.out.r);
    out->tokens = s.work;
    out->too_deep = s.too_deep;
    out->long_expression = s.long_expression;
    out->most_operators = s.most_operators;
    out->no_memory = s.no_memory;
    out->line = s.stop ? s.line : 0;
    bool ok = !s.stop && !s.no_memory;
    free(s.text);
    free(s.line_at);
    free(s.tok);
    free(s.arena);
    for (size_t i = 0; i < s.nm; i++)
        free(s.m[i].param_at);
    free(s.m);
    free(s.names);
    free(s.hash);
    return ok;
}
