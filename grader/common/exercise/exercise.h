/* exercise.h - an exercise as data: what the kernel reads, what it must
 * return, over which parameter values, and how close is right. */
#ifndef BUTTERFLY_EXERCISE_H
#define BUTTERFLY_EXERCISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The largest exercise a grading holds. Every array a grading keeps is
 * sized by these, and an exercise's own sizes (checked at load) are at
 * most these; only the cells an exercise uses are dispatched, compared
 * and written. Raising one costs memory in every grading, nothing else.
 */
#define EX_MAX_N        16  /* elements per plane, of the input and of the output */
#define EX_MAX_PLANES   2
#define EX_MAX_CELLS    (EX_MAX_N * EX_MAX_PLANES)
#define EX_MAX_SWEEP    4   /* parameter values */
#define EX_MAX_HIDDEN   8   /* hidden inputs per parameter value */
#define EX_MAX_RUNS     (EX_MAX_SWEEP * (1 + EX_MAX_HIDDEN))
#define EX_MAX_API      16  /* rows of the kernel's API table */
#define EX_ID_MAX       32  /* bytes of an id, [a-z0-9_-], NUL excluded */
/* Names every exercise where one id is asked for (the class gradebook's
 * ?task=all, butterfly-batch --task all): no exercise may have it. */
#define EX_ID_ALL       "all"

/*
 * An exercise's C reference, in double: for parameter value `param`, the
 * input `in` (in_planes * in_n floats, plane-major: in[p * in_n + k]) gives
 * `out` (out_planes * out_n doubles, plane-major). Pure: no state, no
 * allocation, the same output for the same input every time (the check on
 * load runs it twice and compares).
 */
typedef void (*exercise_reference_fn)(int param, const float *in, double *out);

/* One row of the kernel's API table, as the page and the docs show it. */
struct exercise_api_name {
    const char *name;      /* "spectrum[p][k]" */
    const char *type;      /* "float" */
    const char *meaning;
};

/* What a solution file says of itself on its first line. */
enum exercise_expect { EXPECT_ACCEPTED, EXPECT_WRONG };

/* solutions/NAME.glsl: a body and the verdict it must get. */
struct exercise_solution {
    const char *file;      /* "solutions/correct.glsl", for messages */
    const char *body;      /* the whole file, NUL-terminated */
    size_t len;
    enum exercise_expect expect;
    const char *mistake;   /* "wrong MISTAKE-ID": the diagnosis due; else NULL */
};

/* mistakes/ID.glsl: a wrong kernel whose outputs name a mistake. */
struct exercise_mistake {
    const char *id;        /* the file's name without .glsl */
    const char *title;     /* from its "// title:" line */
    const char *explanation;   /* from its "// explanation:" lines, one paragraph */
    const char *hint;      /* from "// hint:"; NULL when none */
    const char *body;
    size_t len;
};

struct exercise {
    const char *id;            /* the folder's name */
    const char *title, *subtitle;
    const char *course;        /* the course it belongs to; NULL for none */
    int order;                 /* its place in the course, from 1 */
    bool example;              /* an example for authors, not a course's task */
    const char *brief;         /* README.md, Markdown */
    const char *starter;       /* starter.glsl */

    /* The kernel: `float FUNCTION(...) { BODY }`, one thread per output
     * cell, thread (x, y) = (output index, output plane). */
    const char *function;      /* "butterfly"; a GLSL identifier */
    const char *signature;     /* the line shown above the body */
    struct exercise_api_name api[EX_MAX_API];
    size_t napi;

    /* The input: `INPUT[p][k]`, p < in_planes, k < in_n. */
    const char *input;         /* "spectrum" */
    int in_n, in_planes;
    /* Hidden inputs are k / grid for an integer k drawn uniformly from
     * [lo, hi], so every value is exact in float and in decimal. */
    int hidden_lo, hidden_hi, hidden_grid;
    float visible[EX_MAX_PLANES][EX_MAX_N];   /* the input the page shows */

    /* The output: one float per cell; the dispatch is out_n x out_planes. */
    int out_n, out_planes;

    /* The parameter the kernel reads as `PARAM`, swept over `sweep`. */
    const char *param;         /* "half" */
    int sweep[EX_MAX_SWEEP];
    size_t nsweep;
    int hidden;                /* hidden inputs per sweep value, 0 .. EX_MAX_HIDDEN */

    double atol, rtol;         /* right: |got - due| <= atol + rtol * |due| */
    unsigned loop_budget;      /* loop iterations one thread may take */
    const char *diagnosis;     /* "butterfly": the built-in search; NULL: the
                                  named mistakes only */

    exercise_reference_fn reference;
    const struct exercise_solution *solutions;
    size_t nsolutions;
    const struct exercise_mistake *mistakes;
    size_t nmistakes;
};

/* Runs per grading of e: (1 + hidden) per sweep value. */
static inline size_t exercise_runs(const struct exercise *e)
{
    return e->nsweep * (size_t)(1 + e->hidden);
}

/* Cells per run of e's output. */
static inline int exercise_out_cells(const struct exercise *e)
{
    return e->out_n * e->out_planes;
}

/*
 * The exercises built in (exercises/LIST), in course order, loaded once
 * from the embedded definitions: exercise_count() of them, exercise_at(i)
 * for i below it. Loading cannot fail at run time: the build refuses a
 * definition that does not load.
 */
size_t exercise_count(void);
const struct exercise *exercise_at(size_t i);

/* The built-in exercise `id`, or NULL. */
const struct exercise *exercise_find(const char *id);

/* The butterfly, the exercise every older route and record means. */
const struct exercise *exercise_default(void);

/* What e's hidden inputs are called in a student's words: "spectra" for
 * an input named spectrum (the butterfly's, as its page says), else
 * "inputs". The verdict's messages and the text report both say it. */
const char *exercise_hidden_word(const struct exercise *e);

/*
 * Fills `in` (e->in_planes * e->in_n floats, plane-major) with hidden input
 * number `index` of `seed`: the same (seed, index) gives the same input on
 * every machine.
 */
void exercise_hidden_input(const struct exercise *e, uint64_t seed, unsigned index, float *in);

#endif
