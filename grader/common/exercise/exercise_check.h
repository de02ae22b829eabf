/*
 * exercise_check.h - the check on load: an exercise's reference probed in
 * a child of its own, then each of its solutions and named mistakes graded
 * and held against what its file says it must get.
 *
 * It lives in common, not engine: the programs that run it (the server
 * before it listens, butterfly-grade --check-exercise) grade through the
 * pool's workers and may not include the engine; the grading is a
 * function they pass in.
 */
#ifndef BUTTERFLY_EXERCISE_CHECK_H
#define BUTTERFLY_EXERCISE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/exercise/exercise.h"
#include "common/verdict.h"

/*
 * Grades `body` (len bytes) as exercise e. Returns a verdict the check
 * frees (verdict_free); NULL only when out of memory.
 */
typedef struct verdict *(*exercise_grade_fn)(void *arg, const struct exercise *e,
                                             const char *body, size_t len);

/* What a check found. */
struct exercise_check {
    char **problems;           /* owned; each "WHERE/FILE: what is wrong" */
    size_t nproblems;
    size_t solutions_ok;       /* solutions that got what they expect */
    size_t mistakes_ok;        /* named mistakes each told apart from the others */
    bool reference_ok;         /* returned, finite, the same outputs twice */
    bool not_checked;          /* nothing could be graded (no worker was ready): the
                                * one problem says why, and it is no fault of the
                                * exercise's */
};

enum exercise_probe {
    PROBE_OK,
    PROBE_NONDETERMINISTIC,    /* different outputs for the same input twice */
    PROBE_NOT_FINITE,          /* a NaN or an infinity: nothing can be compared to it */
    PROBE_CRASHED,             /* killed by a signal */
    PROBE_TIMEOUT,             /* still running after the bound */
    PROBE_FAILED,              /* the probe itself could not run (fork, pipe) */
};

/*
 * Runs e's reference in a forked child over every run a grading of `seed`
 * has (each sweep value: the visible input, then e->hidden hidden ones),
 * twice, and compares the two outputs bit for bit. The child is killed
 * after bound_ms. The reference's file is named in msg (msgsz bytes) when
 * the answer is not PROBE_OK: what it did, on which run and cell.
 */
enum exercise_probe exercise_reference_probe(const struct exercise *e, const char *where,
                                             uint64_t seed, uint32_t bound_ms,
                                             char *msg, size_t msgsz);

/*
 * Checks exercise e, whose files are named from `where` (its folder as the
 * author knows it; NULL: "exercises/ID"): the reference first (a reference
 * that fails is not graded against, since grading runs it), then every
 * solution, then, for an exercise diagnosed by its named mistakes only
 * (e->diagnosis NULL), every mistake, which must be a Wrong Answer
 * diagnosed as itself (one diagnosed as an earlier one gives the same
 * outputs as it on every run). Every problem is kept, not only the first.
 * Fills *out, which the caller clears (exercise_check_clear). False only
 * when out of memory.
 */
bool exercise_check_run(const struct exercise *e, const char *where, exercise_grade_fn grade,
                        void *arg, struct exercise_check *out);

/*
 * The one-line summary of a check without problems, "WHERE: 9 solutions as
 * expected, 0 mistakes, reference deterministic", into buf.
 */
void exercise_check_summary(const struct exercise *e, const char *where,
                            const struct exercise_check *c, char *buf, size_t bufsz);

/*
 * Adds a problem (printf's format, cut to EXERCISE_CHECK_MESSAGE_MAX) to
 * *c. False when out of memory.
 */
bool exercise_check_add(struct exercise_check *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The folder e's files are named from: `where`, or "exercises/ID" in buf. */
const char *exercise_check_where(const struct exercise *e, const char *where, char *buf,
                                 size_t n);

/* Frees what *c holds and zeroes it. Accepts NULL. */
void exercise_check_clear(struct exercise_check *c);

/*
 * The first part in which exercise a (as an author's folder loads from
 * disk) and b (as the build embedded it) differ, in words ("the solutions",
 * "the tolerance"), or NULL when they define the same grading: what the
 * workers grade is the built-in definition, so a check of a folder edited
 * since the build would check the old one.
 */
const char *exercise_differs(const struct exercise *a, const struct exercise *b);

#endif
