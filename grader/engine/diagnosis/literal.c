/* literal.c - which steps of the recipe a body writes as the recipe does.
 *
 * A diagnosis proven on the outputs can still name a step whose line is,
 * to the letter, the recipe's: `int j = (i / half) % 2;` with a wrong base
 * gives the numbers of a wrong j too. Told "j is not (i / half) % 2", the
 * student reads a falsehood about the line. So before a step is named, the
 * code is read for it: a step written as the recipe writes it (after
 * blanks, comments and the student's own names are normalised) is never
 * the one the diagnosis leads with.
 *
 * The code is read as statements of the compact text (cues_compact). The
 * student's names are found by what is assigned to them, in the recipe's
 * order: the name given this.thread.x is i, then the name given (i / half)
 * % 2 is j, and so on, each renamed before the next step is looked for.
 */
#include "engine/diagnosis/literal.h"

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* code with every whole identifier `from` replaced by `to`; a new string,
 * NULL on OOM. A name after a '.' (a field: this.thread.x) is left. */
static char *renamed(const char *code, const char *from, const char *to)
{
    size_t nf = strlen(from), nt = strlen(to), n = strlen(code);
    size_t cap = n + 1 + (nt > nf ? (n / (nf ? nf : 1) + 1) * (nt - nf) : 0);
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t k = 0; k < n;) {
        bool start = k == 0 || (!ident_char(code[k - 1]) && code[k - 1] != '.');
        if (start && !strncmp(code + k, from, nf) && !ident_char(code[k + nf])) {
            memcpy(out + o, to, nt);
            o += nt;
            k += nf;
        } else {
            out[o++] = code[k++];
        }
    }
    out[o] = '\0';
    return out;
}

/* The name declared `<type>NAME=<rhs>;` (or `,NAME=<rhs>;`) in code, for
 * one of the right-hand sides, into name; false when none is. */
static bool declared_as(const char *code, const char *const *rhs, char *name, size_t size)
{
    for (size_t r = 0; rhs[r]; r++) {
        size_t nr = strlen(rhs[r]);
        for (const char *p = strchr(code, '='); p; p = strchr(p + 1, '=')) {
            if (p[1] == '=' || (p > code && strchr("=!<>+-*/%&|^", p[-1])))
                continue;
            if (strncmp(p + 1, rhs[r], nr) || (p[1 + nr] != ';' && p[1 + nr] != ','))
                continue;
            const char *e = p, *b = p;
            while (b > code && ident_char(b[-1]))
                b--;
            /* the compact code runs the type into the name: intj, constfloatpi */
            static const char *const types[] = { "constfloat", "constint", "float", "int",
                                                 "bool", "uint", "vec2", "highp", "mediump", NULL };
            for (size_t k = 0; types[k]; k++) {
                size_t nt = strlen(types[k]);
                if ((size_t)(e - b) > nt && !strncmp(b, types[k], nt) &&
                    (b == code || !ident_char(b[-1]))) {
                    b += nt;
                    break;
                }
            }
            if (b == e || isdigit((unsigned char)*b) || (size_t)(e - b) >= size)
                continue;
            memcpy(name, b, (size_t)(e - b));
            name[e - b] = '\0';
            return true;
        }
    }
    return false;
}

/* Renames the name declared as one of rhs to `to` in *code; true when one
 * is declared so (the step is the recipe's), false otherwise or on OOM. */
static bool take_name(char **code, const char *const *rhs, const char *to)
{
    char name[64];
    if (!declared_as(*code, rhs, name, sizeof name))
        return false;
    char *next = renamed(*code, name, to);
    if (!next)
        return false;
    free(*code);
    *code = next;
    return true;
}

/* Whether code holds every one of the pieces. */
static bool holds_all(const char *code, const char *const *pieces)
{
    for (size_t k = 0; pieces[k]; k++)
        if (!strstr(code, pieces[k]))
            return false;
    return true;
}

/* Whether code holds, for some row of the table, every piece of it. */
static bool holds_row(const char *code, const char *const rows[][3], size_t nrows)
{
    for (size_t k = 0; k < nrows; k++) {
        bool all = true;
        for (size_t p = 0; p < 3 && rows[k][p] && all; p++)
            all = strstr(code, rows[k][p]) != NULL;
        if (all)
            return true;
    }
    return false;
}

/* Whether code takes w's parts as cos and sin of `angle`, each in its
 * place: wr = cos, wi = sin (or c, s), or vec2(cos, sin). */
static bool twiddle_of(const char *code, const char *angle)
{
    static const char *const forms[][2] = {
        { "wr=cos(%s)", "wi=sin(%s)" }, { "c=cos(%s)", "s=sin(%s)" },
        { "vec2(cos(%s),sin(%s))", NULL },
    };
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
        bool all = true;
        for (size_t p = 0; p < 2 && forms[k][p] && all; p++) {
            char piece[160];
            snprintf(piece, sizeof piece, forms[k][p], angle, angle);
            all = strstr(code, piece) != NULL;
        }
        if (all)
            return true;
    }
    return false;
}

/* How many times code assigns to `name` (=, +=, ... but not ==). */
static int assignments(const char *code, const char *name)
{
    int count = 0;
    size_t n = strlen(name);
    for (const char *p = strstr(code, name); p; p = strstr(p + 1, name)) {
        if (ident_char(p[n]) || (p > code && p[-1] == '.'))
            continue;
        /* the compact code runs a declaration's type into the name */
        if (p > code && ident_char(p[-1])) {
            static const char *const types[] = { "float", "int", "bool", "uint", "vec2", NULL };
            bool typed = false;
            for (size_t t = 0; types[t] && !typed; t++) {
                size_t nt = strlen(types[t]);
                typed = (size_t)(p - code) >= nt && !strncmp(p - nt, types[t], nt) &&
                        (p - nt == code || !ident_char(p[-(ptrdiff_t)nt - 1]));
            }
            if (!typed)
                continue;
        }
        const char *q = p + n;
        if (*q && strchr("+-*/%&|^", *q) && q[1] == '=')
            q++;
        /* an index into the name (a table) reads it, an assignment after ]
         * writes one element: both count as writing the name */
        if (*q == '[') {
            const char *e = strchr(q, ']');
            q = e ? e + 1 : q;
        }
        count += q[0] == '=' && q[1] != '=';
    }
    return count;
}

/* Whether each of the names is assigned at most once (a step written to
 * the letter and then overwritten is not the recipe's). */
static bool written_once(const char *code, const char *const *names)
{
    for (size_t k = 0; names[k]; k++)
        if (assignments(code, names[k]) > 1)
            return false;
    return true;
}

unsigned literal_steps(const char *compact)
{
    if (!compact)
        return 0;
    char *code = strdup(compact);
    if (!code)
        return 0;
    unsigned mask = 0;
    static const char *const i_rhs[] = { "this.thread.x", "int(this.thread.x)", NULL };
    if (take_name(&code, i_rhs, "i"))
        mask |= LITERAL_I;
    /* a constant of the student's own for π reads as PI */
    static const char *const pi_rhs[] = { "3.14159265", "3.1415926", "3.141592", "3.14159265359",
                                          "3.1415926535", NULL };
    take_name(&code, pi_rhs, "PI");
    static const char *const j_rhs[] = { "(i/half)%2", "i/half%2", "(i/half)&1", "((i/half)%2)",
                                         NULL };
    static const char *const j_branches[] = { "if((i/half)%2==0){j=0;}else{j=1;}", NULL };
    /* j as a bool: upper = (i & half) != 0 */
    static const char *const upper_rhs[] = { "(i&half)!=0", "((i/half)%2)==1", "(i/half)%2==1",
                                             "(i/half)%2!=0", NULL };
    /* the branches' form writes j twice by design, as the sign's does */
    unsigned written_twice = 0;
    if (take_name(&code, j_rhs, "j") || take_name(&code, upper_rhs, "UPPER"))
        mask |= LITERAL_J;
    else if (holds_all(code, j_branches))
        written_twice |= LITERAL_J;
    static const char *const base_rhs[] = { "i-j*half", "i-half*j", "i-(j*half)", "i-(half*j)",
                                            NULL };
    static const char *const base_upper[] = { "UPPER?i-half:i", "UPPER?(i-half):i", NULL };
    if (take_name(&code, base_rhs, "base") || take_name(&code, base_upper, "base"))
        mask |= LITERAL_BASE;
    static const char *const r_rhs[] = { "i%half", "(i%half)", "i&(half-1)", NULL };
    if (take_name(&code, r_rhs, "r"))
        mask |= LITERAL_R;
    /* the twiddle: cos and sin of the recipe's angle, inline or named, each
     * in its own part (wr = cos, wi = sin) */
    static const char *const angle_rhs[] = {
        "-PI*float(r)/float(half)", "-(PI*float(r)/float(half))", "-PI*(float(r)/float(half))",
        "-float(r)*PI/float(half)", "-PI/float(half)*float(r)", "(-PI*float(r)/float(half))",
        NULL };
    static const char *const angle_r_rhs[] = {
        "-PI*float(i%half)/float(half)", "-PI*float(i-(i/half)*half)/float(half)", NULL };
    bool named_angle = take_name(&code, angle_rhs, "ANGLE");
    bool named_angle_r = take_name(&code, angle_r_rhs, "ANGLE_R");
    if (named_angle && twiddle_of(code, "ANGLE"))
        mask |= LITERAL_W;
    for (size_t k = 0; angle_rhs[k] && !(mask & LITERAL_W); k++)
        if (twiddle_of(code, angle_rhs[k]))
            mask |= LITERAL_W;
    /* r written into the angle itself: both steps are the recipe's */
    if (named_angle_r && twiddle_of(code, "ANGLE_R"))
        mask |= LITERAL_W | LITERAL_R;
    /* the elements read, a's and b's planes */
    static const char *const reads[][3] = {
        { "ar=spectrum[0][base]", "ai=spectrum[1][base]", NULL },
        { "a=vec2(spectrum[0][base],spectrum[1][base])", NULL, NULL },
    };
    static const char *const reads_b[][3] = {
        { "br=spectrum[0][base+half]", "bi=spectrum[1][base+half]", NULL },
        { "b=vec2(spectrum[0][base+half],spectrum[1][base+half])", NULL, NULL },
    };
    if (holds_row(code, reads, 2) && holds_row(code, reads_b, 2))
        mask |= LITERAL_READ;
    /* w·b written with b's elements in it (c and s are w's parts) */
    static const char *const wb_inline[] = {
        "=c*spectrum[0][base+half]-s*spectrum[1][base+half];",
        "=c*spectrum[1][base+half]+s*spectrum[0][base+half];", NULL };
    static const char *const a_inline[] = { "returnspectrum[0][base]+", "returnspectrum[1][base]+",
                                            NULL };
    if (holds_all(code, wb_inline) && holds_all(code, a_inline))
        mask |= LITERAL_READ | LITERAL_WB;
    static const char *const wb[][3] = {
        { "tr=wr*br-wi*bi", "ti=wr*bi+wi*br", NULL },
        { "vec2(w.x*b.x-w.y*b.y,w.x*b.y+w.y*b.x)", NULL, NULL },
    };
    if (holds_row(code, wb, 2))
        mask |= LITERAL_WB;
    /* the ending: + for the lower member, − for the upper one, returned as
     * it is (a scale or a sign after it is the ending's too) */
    static const char *const ending[][3] = {
        { "returnj==0?ar+tr:ar-tr;", "returnj==0?ai+ti:ai-ti;", NULL },
        { "returnj==1?ar-tr:ar+tr;", "returnj==1?ai-ti:ai+ti;", NULL },
        { "returnj==0?a+wb:a-wb;", NULL, NULL },
        { "re=j==0?ar+tr:ar-tr;", "im=j==0?ai+ti:ai-ti;", "returnthis.thread.y==0?re:im;" },
    };
    /* a vec2 result: its sign is its own line, the plane the return's */
    static const char *const sign_upper[] = { "UPPER?a-wb:a+wb", NULL };
    char result[64];
    if (declared_as(code, sign_upper, result, sizeof result))
        mask |= LITERAL_SIGN;
    static const char *const sign_branches[] = {
        "sign=1.0;if(j==1){sign=-1.0;}", "returnspectrum[0][base]+sign*re;",
        "returnspectrum[1][base]+sign*im;", NULL };
    if (holds_row(code, ending, 4))
        mask |= LITERAL_SIGN;
    else if (holds_all(code, sign_branches))
        written_twice |= LITERAL_SIGN;
    /* overwritten later: not the recipe's line after all */
    static const struct {
        unsigned bit;
        const char *names[5];
    } writes[] = {
        { LITERAL_J, { "j", NULL } }, { LITERAL_BASE, { "base", NULL } },
        { LITERAL_R, { "r", NULL } }, { LITERAL_W, { "wr", "wi", "ANGLE", NULL } },
        { LITERAL_WB, { "tr", "ti", "wb", NULL } },
        { LITERAL_READ, { "ar", "ai", "br", "bi", NULL } },
        { LITERAL_SIGN, { "sign", NULL } },
    };
    for (size_t k = 0; k < sizeof writes / sizeof writes[0]; k++)
        if ((mask & writes[k].bit) && !written_once(code, writes[k].names))
            mask &= ~writes[k].bit;
    if ((written_twice & LITERAL_J) && assignments(code, "j") == 2)
        mask |= LITERAL_J;
    if ((written_twice & LITERAL_SIGN) && assignments(code, "sign") == 2)
        mask |= LITERAL_SIGN;
    free(code);
    return mask;
}

unsigned literal_bit(const char *step)
{
    static const struct {
        const char *slug;
        unsigned bit;
    } bits[] = {
        { "i", LITERAL_I }, { "j", LITERAL_J }, { "base", LITERAL_BASE }, { "r", LITERAL_R },
        { "read", LITERAL_READ }, { "w", LITERAL_W }, { "wb", LITERAL_WB },
        { "sign", LITERAL_SIGN },
    };
    for (size_t k = 0; step && k < sizeof bits / sizeof bits[0]; k++)
        if (!strcmp(step, bits[k].slug))
            return bits[k].bit;
    return 0;
}

bool literal_contradicts(unsigned mask, const char *step)
{
    return (mask & literal_bit(step)) != 0;
}
