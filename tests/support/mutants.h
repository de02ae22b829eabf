/* mutants.h - every single-token mutant of a body, once each.
 *
 * Each token of code deleted, each operator replaced by the others of its
 * kind, each number by 0, 1, 2 or 3 (0.0, 0.5, 1.0, 2.0 for floats), each
 * name by every other name the body uses (x and y after a dot by each
 * other). Mutants with the same code are kept once. Shared by the mutation
 * figure (tests/mutation) and the golden verdicts (tests/golden).
 */
#ifndef BUTTERFLY_TEST_MUTANTS_H
#define BUTTERFLY_TEST_MUTANTS_H

#include <stdbool.h>
#include <stddef.h>

struct mutants {
    char **texts;       /* the bodies to grade */
    char **keys;        /* their code, tokens separated by one space: the same key is
                           the same program */
    char **steps;       /* the steps the mutated token's line computes, "" if unmarked */
    char **others;      /* the steps every other marked line computes, left as written */
    size_t n, cap;
};

/* Adds every mutant of body s (n bytes) not already in m and not s itself.
 * A line's steps come from its `// step: ...` comment. Exits on OOM (a
 * test tool). */
void mutants_add(struct mutants *m, const char *s, size_t n);

/* Whether step is one of the space-separated steps in list. */
bool mutants_step_in(const char *step, const char *list);

/* Frees what m holds and zeroes it. */
void mutants_free(struct mutants *m);

#endif
