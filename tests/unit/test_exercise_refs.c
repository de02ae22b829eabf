/* The example exercises' references (exercises/bit_reversal,
 * exercises/butterfly16) against computations of their own: the bit
 * reversal against a table and against itself (reversing twice is the
 * identity), the 16-point butterfly by composing its four passes over
 * bit-reversed input into the DFT, computed directly in double. */
#include <complex.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* The names the build gives them (grader/common/meson.build). */
void exercise_reference_bit_reversal(int bits, const float *in, double *out);
void exercise_reference_butterfly16(int half, const float *in, double *out);

#define N 16

/* 0..15 with their four bits read backwards, written out by hand. */
static const int rev4[N] = { 0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15 };

/* Distinct, not integers, not in order: a wrong index shows in its cell. */
static void scrambled(float in[N])
{
    for (int k = 0; k < N; k++)
        in[k] = (float)((k * 7) % N) * 1.25f - 9.5f;
}

static void test_bit_reversal_16_is_the_table(void **state)
{
    (void)state;
    float in[N];
    double out[N];
    scrambled(in);
    exercise_reference_bit_reversal(4, in, out);
    for (int i = 0; i < N; i++)
        assert_true(out[i] == (double)in[rev4[i]]);   /* a copy: exact */
}

static void test_bit_reversal_blocks_of_four_by_hand(void **state)
{
    (void)state;
    static const double want[N] = { 0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15 };
    float in[N];
    double out[N];
    for (int k = 0; k < N; k++)
        in[k] = (float)k;
    exercise_reference_bit_reversal(2, in, out);
    for (int i = 0; i < N; i++)
        assert_true(out[i] == want[i]);
}

/* A block of 2^bits points reverses `bits` bits: the four-bit reversal of
 * a place below 2^bits, shifted down by the bits it does not have. */
static void test_bit_reversal_every_block_size(void **state)
{
    (void)state;
    float in[N];
    double out[N];
    scrambled(in);
    for (int bits = 1; bits <= 4; bits++) {
        int size = 1 << bits;
        exercise_reference_bit_reversal(bits, in, out);
        for (int block = 0; block < N; block += size)
            for (int k = 0; k < size; k++)
                assert_true(out[block + k] == (double)in[block + (rev4[k] >> (4 - bits))]);
    }
}

static void test_bit_reversal_twice_is_the_identity(void **state)
{
    (void)state;
    float in[N], once[N];
    double out[N];
    scrambled(in);
    for (int bits = 1; bits <= 4; bits++) {
        exercise_reference_bit_reversal(bits, in, out);
        int moved = 0;
        for (int k = 0; k < N; k++) {
            once[k] = (float)out[k];
            moved += once[k] != in[k];
        }
        /* not the identity itself but for one bit (a block of two) */
        assert_int_equal(moved > 0, bits > 1);
        exercise_reference_bit_reversal(bits, once, out);
        for (int k = 0; k < N; k++)
            assert_true(out[k] == (double)in[k]);
    }
}

/* The DFT of x, X[k] = sum_n x[n] e^(-2 pi i n k / N), straight from the
 * definition. */
static void dft(const double complex x[N], double complex out[N])
{
    for (int k = 0; k < N; k++) {
        out[k] = 0;
        for (int n = 0; n < N; n++)
            out[k] += x[n] * cexp(-2.0 * I * M_PI * (double)(n * k % N) / N);
    }
}

/* Values on the hidden inputs' grid (k / 64 in [-2, 2]) from a fixed
 * generator, so the test is the same everywhere. */
static float grid_value(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)((int)(*s >> 16) % 257 - 128) / 64.0f;
}

static void test_butterfly16_passes_compose_into_the_dft(void **state)
{
    (void)state;
    uint32_t seed = 33;
    for (int trial = 0; trial < 4; trial++) {
        double complex x[N], want[N];
        float in[2 * N];
        double out[2 * N];
        for (int n = 0; n < N; n++) {
            x[n] = trial == 0 ? (n == 5) : grid_value(&seed) + grid_value(&seed) * I;
            /* the passes read their input in bit-reversed order */
            in[rev4[n]] = (float)creal(x[n]);
            in[N + rev4[n]] = (float)cimag(x[n]);
        }
        for (int half = 1; half <= 8; half *= 2) {
            exercise_reference_butterfly16(half, in, out);
            for (int c = 0; c < 2 * N; c++)
                in[c] = (float)out[c];
        }
        dft(x, want);
        for (int k = 0; k < N; k++) {
            /* float between passes: a few ulps of values up to about 45 */
            assert_true(fabs(out[k] - creal(want[k])) < 1e-4);
            assert_true(fabs(out[N + k] - cimag(want[k])) < 1e-4);
        }
    }
}

/* The last pass on one point b = 1 at index 8 + 3: it meets a = 0 at 3,
 * with the twiddle e^(-3 pi i / 8) = cos(3 pi/8) - i sin(3 pi/8). */
static void test_butterfly16_last_pass_by_hand(void **state)
{
    (void)state;
    const double c = 0.38268343236508978, s = 0.92387953251128674;
    float in[2 * N] = { 0 };
    double out[2 * N];
    in[11] = 1.0f;
    exercise_reference_butterfly16(8, in, out);
    for (int i = 0; i < N; i++) {
        double re = i == 3 ? c : i == 11 ? -c : 0;
        double im = i == 3 ? -s : i == 11 ? s : 0;
        assert_true(fabs(out[i] - re) < 1e-12);
        assert_true(fabs(out[N + i] - im) < 1e-12);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bit_reversal_16_is_the_table),
        cmocka_unit_test(test_bit_reversal_blocks_of_four_by_hand),
        cmocka_unit_test(test_bit_reversal_every_block_size),
        cmocka_unit_test(test_bit_reversal_twice_is_the_identity),
        cmocka_unit_test(test_butterfly16_passes_compose_into_the_dft),
        cmocka_unit_test(test_butterfly16_last_pass_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
