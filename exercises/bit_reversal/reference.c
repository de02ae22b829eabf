/* reference.c - the bit-reversal permutation the kernel is graded against,
 * cell by cell as the kernel must work it out: each output index reverses
 * the low `bits` bits of its own index and keeps the rest, which names the
 * block of 2^bits points it belongs to. A gather copies, so the values are
 * the input's own, exactly. */
#include "exercises/exercise_reference.h"

#define N 16

void exercise_reference(int bits, const float *in, double *out)
{
    int size = 1 << bits;          /* points per block */
    for (int i = 0; i < N; i++) {
        int block = i & ~(size - 1);
        int k = i & (size - 1);    /* my place inside the block */
        int rev = 0;
        for (int b = 0; b < bits; b++)
            rev |= ((k >> b) & 1) << (bits - 1 - b);
        out[i] = in[block + rev];
    }
}
