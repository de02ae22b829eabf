/*
 * macro_cost.h - how much text a body's macros make the compiler read,
 * counted before the compiler runs.
 *
 * A few hundred bytes of #define nested ten-fold expand to millions of
 * tokens: glslang then takes seconds to minutes, so the verdict would be
 * decided by the deadline, and so by the machine's speed. This counts the
 * tokens the preprocessor handles (every token of the body and every
 * token a macro expansion produces, arguments included) with a simulation
 * of the preprocessor that expands at least what glslang's does: every
 * branch of an #if is taken, #undef is ignored, every definition of a name
 * counts at each use, and arguments are expanded before substitution and
 * again after it. It stops as soon as the count passes the limit, so it
 * costs at most a few milliseconds whatever the body.
 */
#ifndef BUTTERFLY_MACRO_COST_H
#define BUTTERFLY_MACRO_COST_H

#include <stdbool.h>
#include <stddef.h>

/* What macro_cost_count found. */
struct macro_cost {
    unsigned long tokens;   /* tokens handled, up to limit + 1 */
    int line;               /* the body's line being expanded when the limit passed, else 0 */
    bool too_deep;          /* macro calls nested in arguments past MACRO_COST_MAX_DEPTH */
    bool long_expression;   /* one statement with more than MAX_EXPRESSION_OPERATORS operators */
    unsigned long most_operators;   /* the most operators in one statement, up to the bound + 1 */
    bool no_memory;
};

/* Macro calls nested inside other calls' arguments, F(G(H(...))). */
#define MACRO_COST_MAX_DEPTH 64

/*
 * Counts the tokens the preprocessor handles for body (len bytes, already
 * checked by source_check as UTF-8 without NUL), and the operators of
 * each statement the expansion makes. Returns true when the count is at
 * most limit, no statement has more than MAX_EXPRESSION_OPERATORS
 * operators and nothing else stopped it; else false with *out saying why.
 */
bool macro_cost_count(const char *body, size_t len, unsigned long limit,
                      struct macro_cost *out);

#endif
