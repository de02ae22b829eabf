/* exercise_reference.h - what an exercise's reference.c defines.
 *
 * Each exercises/ID/reference.c defines exercise_reference; the build
 * compiles it with that name made exercise_reference_ID, so that every
 * exercise's reference links into one program. See docs/EXERCISES.md.
 */
#ifndef BUTTERFLY_EXERCISE_REFERENCE_H
#define BUTTERFLY_EXERCISE_REFERENCE_H

/*
 * For parameter value `param`, the input `in` (plane-major: in[p * n + k])
 * gives `out` (plane-major, in double). Pure: no state, no allocation, the
 * same output for the same input every time.
 */
void exercise_reference(int param, const float *in, double *out);

#endif
