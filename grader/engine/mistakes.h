/*
 * mistakes.h - named mistakes as data: a Wrong Answer whose outputs equal
 * a mistake kernel's (mistakes/ID.glsl) on every run is that mistake. For
 * an exercise with no built-in search (e->diagnosis NULL); the grader runs
 * the mistake kernels, this file only compares outputs.
 */
#ifndef BUTTERFLY_MISTAKES_H
#define BUTTERFLY_MISTAKES_H

#include <stdbool.h>
#include <stddef.h>

#include "common/exercise/exercise.h"
#include "common/verdict.h"

/*
 * True when the outputs `got` equal a mistake's outputs `due` on every
 * cell of every one of the nruns runs (both nruns * exercise_out_cells(e)
 * floats, run by run, plane-major), within e's tolerance (compare_cell,
 * the mistake's output as the value due: a non-finite one never matches).
 * False when due is NULL (the mistake could not be run) or nruns is 0.
 */
bool mistakes_equal(const struct exercise *e, size_t nruns, const float *got, const float *due);

/*
 * The index of the first of e's mistakes whose outputs due[m] (NULL: not
 * run) equal `got` (mistakes_equal), or -1. First in file order wins: for
 * a checked exercise no two mistakes match the same outputs.
 */
int mistakes_match(const struct exercise *e, size_t nruns, const float *got,
                   const float *const *due);

/* A new diagnosis {id, title, explanation, hint} of mistake m, the
 * verdict's to own; NULL when out of memory. */
struct diagnosis *mistakes_diagnosis(const struct exercise_mistake *m);

#endif
