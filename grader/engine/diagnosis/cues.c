/* cues.c - what a body's own code shows of a mistake.
 *
 * Some mistakes give the same numbers on every spectrum (the angle from i
 * and both members adding; the twiddle's sign and the conjugate multiply;
 * no twiddle, r = 0 and float(r / half)). The outputs cannot tell them
 * apart, so the diagnosis says "equivalently"; the code can say which one
 * the student wrote, so that one leads. The cues are pieces of code with
 * the blanks left out, as students write them in this exercise's names.
 */
#include "engine/diagnosis/cues.h"

#include <stdlib.h>
#include <string.h>

char *cues_compact(const char *body, size_t len)
{
    if (!body)
        return NULL;
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    size_t n = 0;
    for (size_t k = 0; k < len; k++) {
        if (body[k] == '/' && k + 1 < len && body[k + 1] == '/') {
            while (k < len && body[k] != '\n')
                k++;
            continue;
        }
        if (body[k] == '/' && k + 1 < len && body[k + 1] == '*') {
            k += 2;
            while (k + 1 < len && !(body[k] == '*' && body[k + 1] == '/'))
                k++;
            k++;
            continue;
        }
        if (body[k] == ' ' || body[k] == '\t' || body[k] == '\n' || body[k] == '\r')
            continue;
        out[n++] = body[k];
    }
    out[n] = '\0';
    return out;
}

static const struct {
    const char *id, *code, *step;
} cues[] = {
    /* the angle's index */
    { "angle_from_i", "float(i)", "w" },
    { "angle_from_i", "float(this.thread.x)", "w" },
    { "angle_from_i", "intr=i;", "r" },
    { "angle_from_i", "intr=this.thread.x;", "r" },
    { "angle_from_block_place", "%(2*half)", "w" },
    { "angle_from_block_place", "%(half*2)", "w" },
    { "angle_from_block_place", "%(half+half)", "w" },
    { "angle_from_j", "float(j)", "w" },
    { "angle_from_base", "float(base)", "w" },
    { "r_zero", "intr=0;", "r" },
    { "int_division", "float(r/half)", "w" },
    { "int_division", "float(i%half/half)", "w" },
    { "int_division", "float((i%half)/half)", "w" },
    /* the sign of the twiddle against a conjugate multiply */
    { "twiddle_sign", "cos(PI", "w" },
    { "twiddle_sign", "sin(PI", "w" },
    { "twiddle_sign", "cos(pi", "w" },
    { "twiddle_sign", "sin(pi", "w" },
    { "twiddle_sign", "=PI*", "w" },
    { "twiddle_sign", "=pi*", "w" },
    { "conjugate_multiply", "wr*br+wi*bi", "wb" },
    { "conjugate_multiply", "wi*bi+wr*br", "wb" },
    { "conjugate_multiply", "wr*bi-wi*br", "wb" },
    { "conjugate_multiply", "w.x*b.x+w.y*b.y", "wb" },
    { "conjugate_multiply", "w.x*b.y-w.y*b.x", "wb" },
    /* the ending */
    { "both_plus", "?ar+tr:ar+tr", "sign" },
    { "both_plus", "?ai+ti:ai+ti", "sign" },
    { "both_plus", "?a+wb:a+wb", "sign" },
    { "both_plus", "sign=1.0;}", "sign" },
};

const char *cues_step(const char *compact, const char *value_id)
{
    if (!compact || !value_id)
        return NULL;
    for (size_t k = 0; k < sizeof cues / sizeof cues[0]; k++)
        if (!strcmp(cues[k].id, value_id) && strstr(compact, cues[k].code))
            return cues[k].step;
    return NULL;
}
