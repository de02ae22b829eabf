/* literal.h - which steps of the recipe a body writes as the recipe does,
 * so that no diagnosis says that such a step is wrong. */
#ifndef BUTTERFLY_LITERAL_H
#define BUTTERFLY_LITERAL_H

#include <stdbool.h>

/* One bit per recipe step (the slugs of diagnosis.step). */
enum {
    LITERAL_I = 1u << 0,      /* int i = this.thread.x; */
    LITERAL_J = 1u << 1,      /* int j = (i / half) % 2; */
    LITERAL_BASE = 1u << 2,   /* int base = i - j * half; */
    LITERAL_R = 1u << 3,      /* int r = i % half; */
    LITERAL_READ = 1u << 4,   /* ar, ai = spectrum[0|1][base]; br, bi at base + half */
    LITERAL_W = 1u << 5,      /* cos and sin of -PI * float(r) / float(half) */
    LITERAL_WB = 1u << 6,     /* tr = wr * br - wi * bi; ti = wr * bi + wi * br */
    LITERAL_SIGN = 1u << 7,   /* j == 0 ? ar + tr : ar - tr, and the same for ai, ti */
};

/*
 * The steps the compact code (cues_compact) writes to the letter as the
 * recipe does, with the student's own names for i, j, base, r and the
 * angle found by what is assigned to them; 0 for NULL or on OOM. A step
 * not in the mask may still be right: the mask only says what the code
 * shows beyond doubt.
 */
unsigned literal_steps(const char *compact);

/* The bit of a step slug ("j"), 0 for one the mask has none for. */
unsigned literal_bit(const char *step);

/* Whether naming `step` as wrong contradicts a line of the mask's code. */
bool literal_contradicts(unsigned mask, const char *step);

#endif
