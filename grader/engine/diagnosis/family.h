/* family.h - the parametrised family of butterflies students write: the
 * right pass and the mistakes made in it, one parameter per step. */
#ifndef BUTTERFLY_FAMILY_H
#define BUTTERFLY_FAMILY_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/diagnosis/diagnose.h"

/*
 * The parameters of a member, one per step of the pass the page teaches.
 * Value 0 of each is the right formula; every other value is one mistake.
 * The order is the order in which equivalent mistakes are named: the first
 * is the one the diagnosis id names.
 */
enum family_param {
    FP_OUTPUT,      /* every cell: computed, 0, its input, NaN, one constant */
    FP_FILL,        /* one plane: computed, 0, its input, NaN */
    FP_PLANE,       /* which part of the result a plane returns */
    FP_SCALE,       /* 1, 1/2, 2 */
    FP_ENDING,      /* the ± between a and w·b for each member */
    FP_SIGN,        /* the sign of the twiddle's angle */
    FP_MULTIPLY,    /* how w·b is formed */
    FP_TRIG,        /* cos and sin in w */
    FP_ANGLE,       /* π over what: half, 2·half, 8, 1; 2π */
    FP_INTDIV,      /* the angle's fraction in int arithmetic */
    FP_INDEX,       /* the angle's index: r, i, j, base, i % (2·half), 0 */
    FP_J,           /* the member: (i / half) % 2 or something else */
    FP_BASE,        /* the lower member's index */
    FP_ROLE,        /* what picks the sign: j or something else */
    FP_A,           /* a's element */
    FP_B,           /* b's element (the partner) */
    FAMILY_NPARAMS
};

/* How a cell combines a and t = w·b. */
enum family_op { OP_PLUS, OP_MINUS, OP_REVERSED /* t - a */ };

/*
 * One member: a value for each parameter (0: the right formula), and for
 * FP_OUTPUT's "one constant" the constant. A zeroed member is the right
 * pass.
 */
struct family_member {
    unsigned char v[FAMILY_NPARAMS];
    double constant;
};

/*
 * What a member reads and uses at one (half, i): the elements of a and b
 * (clamped into 0..7 as the device clamps them), the twiddle's angle in
 * steps of π/8 (0..15), and how a and w·b combine. The "table" parameters
 * act only through these; the others ("shape") act on the arithmetic.
 */
struct family_pair {
    signed char a, b, k;
    unsigned char op;    /* enum family_op */
};

/* One value of a parameter, as the diagnosis names and explains it. */
struct family_value {
    const char *id;      /* "partner_next" */
    const char *title;   /* a heading: "b read at base + 1" */
    const char *what;    /* what the kernel does, as a clause: "b is element base + 1" */
    bool table;          /* acts through the pairs alone (see struct family_pair) */
    int hint;            /* 0: the parameter's; else the page's hint that helps */
    const char *advice;  /* NULL: the parameter's */
    const char *step;    /* NULL: the parameter's; else the recipe step it breaks */
};

/* One parameter: its values (values[0] is the right formula's) and words. */
struct family_param_info {
    const char *name;    /* "partner" */
    const char *due;     /* the right formula, as a clause */
    int hint;            /* 1, 2 or 3: the page's hint that helps */
    const char *advice;  /* what that hint says to do */
    const char *step;    /* the recipe step it breaks (family_steps()) */
    int nvalues;
    const struct family_value *values;
};

/* The parameter p (0 <= p < FAMILY_NPARAMS). */
const struct family_param_info *family_param(enum family_param p);

/* The page's name of hint n (1..3): "Hint 2 — which twiddle?"; "" otherwise. */
const char *family_hint_name(int n);

/*
 * The steps of the course's recipe, in the recipe's order, as the
 * diagnosis names them: a slug ("j") and the step in the page's words
 * ("j = (i / half) % 2"). NULL-terminated.
 */
struct family_step {
    const char *slug, *words;
};
const struct family_step *family_steps(void);

/* The step value v of parameter p breaks (v > 0): its slug. */
const char *family_step_of(enum family_param p, int v);

/* The step's position in the recipe (0 first); the number of steps for an
 * unknown slug. */
int family_step_rank(const char *slug);

/* The number of parameters whose value in m is not the right formula's. */
int family_depth(const struct family_member *m);

/* True when m's value of p acts through the pairs alone. */
bool family_is_table(const struct family_member *m, enum family_param p);

/* Fills *out with what member m reads and uses at (half, i). */
void family_pair_of(const struct family_member *m, int half, int i, struct family_pair *out);

/*
 * w·b for element b and the twiddle e^(iπk/8), as member m's shape forms
 * it (its multiply and its cos and sin): t[0] real, t[1] imaginary.
 */
void family_product(const struct family_member *m, const float in[BF_PLANES][BF_N], int b,
                    int k, double t[BF_PLANES]);

/*
 * How a member's shape turns the complex result res = a ± w·b into the
 * cell's two planes: plane p is family_fill(...) when filled[p], else
 * scale * res[source[p]].
 */
struct family_map {
    bool filled[BF_PLANES];
    int source[BF_PLANES];
    double scale;
};

/* The map of member m (its FP_OUTPUT must be the right one's). */
void family_shape_map(const struct family_member *m, struct family_map *map);

/* The value member m puts in its filled plane p at i. */
double family_fill(const struct family_member *m, const float in[BF_PLANES][BF_N], int p,
                   int i);

/*
 * The values of output cell i in both planes (out[0] real, out[1]
 * imaginary) of member m on input `in`, given the pair the cell uses. Only
 * m's shape values matter here: the table values act through `pr`. NaN or
 * an infinity where m returns one.
 */
void family_shape_cells(const struct family_member *m, const float in[BF_PLANES][BF_N],
                        const struct family_pair *pr, int i, double out[BF_PLANES]);

/* The value of output cell (p, i) of member m on input `in` at `half`. */
double family_cell(const struct family_member *m, const float in[BF_PLANES][BF_N],
                   int half, int p, int i);

/* cos(π·k/8) and sin(π·k/8) for any integer k. */
double family_cos8(int k);
double family_sin8(int k);

#endif
