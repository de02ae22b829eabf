/* The family of butterflies: its right member is the reference, its
 * mistakes compute what such kernels return, and its words are complete. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "engine/diagnosis/family.h"
#include "engine/reference.h"

static const float ramp[2][8] = {
    { 1, 2, 3, 4, 5, 6, 7, 8 },
    { 0, 0, 0, 0, 0, 0, 0, 0 },
};

static bool starts_with(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* The member with one mistake: parameter p's value named id. */
static struct family_member one(const char *id)
{
    struct family_member m = { .constant = 0 };
    for (int p = 0; p < FAMILY_NPARAMS; p++) {
        const struct family_param_info *info = family_param((enum family_param)p);
        for (int v = 1; v < info->nvalues; v++)
            if (!strcmp(info->values[v].id, id)) {
                m.v[p] = (unsigned char)v;
                return m;
            }
    }
    fail_msg("no mistake %s", id);
    return m;
}

static void test_eighths_table(void **state)
{
    for (int k = -20; k <= 20; k++) {
        assert_true(fabs(family_cos8(k) - cos(M_PI * k / 8)) < 1e-15);
        assert_true(fabs(family_sin8(k) - sin(M_PI * k / 8)) < 1e-15);
    }
}

/* The zeroed member is the reference, on random spectra of every half. */
static void test_right_member_is_reference(void **state)
{
    static const struct family_member right;
    uint64_t seed = 12345;
    for (int n = 0; n < 200; n++) {
        float in[2][8];
        for (int p = 0; p < 2; p++)
            for (int i = 0; i < 8; i++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                in[p][i] = (float)((int)(seed >> 40) % 257 - 128) / 64.0f;
            }
        for (int half = 1; half <= 4; half *= 2) {
            double want[2][8];
            reference_pass(in, half, want);
            for (int p = 0; p < 2; p++)
                for (int i = 0; i < 8; i++)
                    assert_true(fabs(family_cell(&right, in, half, p, i) - want[p][i]) < 1e-12);
        }
    }
    assert_int_equal(family_depth(&right), 0);
}

/* j = i % 2 at half 2 puts thread 1's base at -1, which reads element 0
 * as the device's clamped access does. */
static void test_index_clamped(void **state)
{
    struct family_member m = one("partner_parity");
    /* a = 1, b = 2, w = -i: a - w·b = 1 + 2i */
    assert_true(fabs(family_cell(&m, ramp, 2, 0, 1) - 1) < 1e-12);
    assert_true(fabs(family_cell(&m, ramp, 2, 1, 1) - 2) < 1e-12);
    struct family_pair pr;
    family_pair_of(&m, 2, 1, &pr);
    assert_int_equal(pr.a, 0);
}

/* Hand-worked values at half = 2, i = 1: a = 2, b = 4, w = -i, so the
 * right value is a + w·b = 2 - 4i. */
static void test_mistakes_by_hand(void **state)
{
    static const struct {
        const char *id;
        double re, im;
    } cases[] = {
        { "twiddle_sign", 2, 4 },               /* w = i */
        { "conjugate_multiply", 2, 4 },         /* conj(-i)·4 = 4i */
        { "no_twiddle", 6, 0 },
        { "int_division", 6, 0 },               /* float(1 / 2) = 0: w = 1 */
        { "r_zero", 6, 0 },
        { "angle_two_pi", -2, 0 },              /* w = -1 */
        { "angle_over_size", 2 + 4 * 0.9238795325112867, -4 * 0.38268343236508984 },
        { "sin_cos_swapped", 2 - 4, 0 },        /* (sin, cos)(-pi/2) = (-1, 0) */
        { "partner_next", 2, -3 },              /* b = 3 */
        { "componentwise_multiply", 2, 0 },     /* (0·4, -1·0) */
        { "planes_swapped", -4, 2 },
        { "scaled_half", 1, -2 },
        { "roles_swapped", 2, 4 },
        { "both_minus", 2, 4 },
        { "real_plane_zero", 0, -4 },
        { "imag_plane_input", 2, 0 },
        { "real_in_both_planes", 2, 2 },
        { "twiddle_real_part_only", 2, 0 },     /* wr·b = 0 */
        { "real_part_in_both_planes", 2, 0 },   /* tr = 0 in both planes */
        { "a_is_own_element", 2, -4 },          /* i = 1 is the lower member */
        { "b_is_a", 2, -2 },                    /* b = 2 */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct family_member m = one(cases[c].id);
        double re = family_cell(&m, ramp, 2, 0, 1), im = family_cell(&m, ramp, 2, 1, 1);
        if (fabs(re - cases[c].re) > 1e-12 || fabs(im - cases[c].im) > 1e-12)
            fail_msg("%s: %g%+gi, wanted %g%+gi", cases[c].id, re, im, cases[c].re, cases[c].im);
    }
    /* the upper member at half 2, i = 3: a = 2, b = 4, w = -i, due a - w·b = 2 + 4i */
    struct family_member m = one("upper_reversed");
    assert_true(fabs(family_cell(&m, ramp, 2, 0, 3) + 2) < 1e-12);
    assert_true(fabs(family_cell(&m, ramp, 2, 1, 3) + 4) < 1e-12);
    m = one("returns_nan");
    assert_true(isnan(family_cell(&m, ramp, 2, 0, 3)));
    m = one("returns_constant");
    m.constant = INFINITY;
    assert_true(isinf(family_cell(&m, ramp, 4, 1, 7)));
}

/*
 * A value marked "table" acts through the pairs alone, and a shape value
 * not at all through them: the search relies on both.
 */
static void test_table_and_shape_values_split(void **state)
{
    static const struct family_member right;
    for (int p = 0; p < FAMILY_NPARAMS; p++) {
        const struct family_param_info *info = family_param((enum family_param)p);
        for (int v = 1; v < info->nvalues; v++) {
            struct family_member m = right;
            m.v[p] = (unsigned char)v;
            m.constant = 1.5;
            for (int half = 1; half <= 4; half *= 2) {
                for (int i = 0; i < 8; i++) {
                    struct family_pair a, b;
                    family_pair_of(&m, half, i, &a);
                    family_pair_of(&right, half, i, &b);
                    double x[2], y[2];
                    family_shape_cells(&m, ramp, &b, i, x);
                    family_shape_cells(&right, ramp, &b, i, y);
                    bool pairs_same = !memcmp(&a, &b, sizeof a);
                    bool shape_same = (x[0] == y[0] || (isnan(x[0]) && isnan(y[0]))) &&
                                      (x[1] == y[1] || (isnan(x[1]) && isnan(y[1])));
                    if (info->values[v].table && !shape_same)
                        fail_msg("%s changes the arithmetic", info->values[v].id);
                    if (!info->values[v].table && !pairs_same)
                        fail_msg("%s changes the pairs", info->values[v].id);
                }
            }
            assert_true(family_is_table(&m, (enum family_param)p) == info->values[v].table);
        }
    }
}

/* Every mistake has an id, words and a hint of the page's; ids are unique. */
static void test_words_complete(void **state)
{
    const char *ids[256];
    size_t n = 0;
    for (int p = 0; p < FAMILY_NPARAMS; p++) {
        const struct family_param_info *info = family_param((enum family_param)p);
        assert_non_null(info->name);
        assert_true(strlen(info->due) > 10 && strlen(info->advice) > 10);
        assert_true(info->hint >= 1 && info->hint <= 3);
        assert_true(info->nvalues >= 2);
        assert_null(info->values[0].id);
        for (int v = 1; v < info->nvalues; v++) {
            const struct family_value *x = &info->values[v];
            assert_true(strlen(x->id) > 2 && strlen(x->title) > 5 && strlen(x->what) > 10);
            assert_true(x->hint >= 0 && x->hint <= 3);
            for (size_t k = 0; k < n; k++)
                if (!strcmp(ids[k], x->id))
                    fail_msg("id %s twice", x->id);
            ids[n++] = x->id;
        }
    }
    assert_true(n >= 50);
    for (int h = 1; h <= 3; h++)
        assert_true(starts_with(family_hint_name(h), "Hint "));
    assert_string_equal(family_hint_name(0), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eighths_table),
        cmocka_unit_test(test_right_member_is_reference),
        cmocka_unit_test(test_index_clamped),
        cmocka_unit_test(test_mistakes_by_hand),
        cmocka_unit_test(test_table_and_shape_values_split),
        cmocka_unit_test(test_words_complete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
