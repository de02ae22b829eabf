/* family.c - the family of butterflies: every member computed by one code
 * path, and the words for each step it can get wrong. */
#include "engine/diagnosis/family.h"

#include <math.h>
#include <string.h>

/* ---- the words ---- */

static const char *const hint_names[] = {
    "",
    "Hint 1 — which pair am I in?",
    "Hint 2 — which twiddle?",
    "Hint 3 — the ending",
};

const char *family_hint_name(int n)
{
    return n >= 1 && n <= 3 ? hint_names[n] : "";
}

static const struct family_value output_values[] = {
    { NULL, NULL, NULL, false, 0, NULL, NULL },
    { "returns_zero", "Every cell returns 0", "every cell returns 0", false, 0, NULL, NULL },
    { "returns_input", "The input comes back unchanged",
      "every cell returns its own input, spectrum[this.thread.y][this.thread.x], as the "
      "starter does", false, 1,
      "work out j, base and r first: a is element base, b is element base + half", NULL },
    { "returns_nan", "Every cell returns NaN",
      "every cell returns NaN (not a number, as 0.0 / 0.0 gives)", false, 0, NULL, NULL },
    /* the constant is read from the outputs; the diagnosis says which */
    { "returns_constant", "Every cell returns the same number",
      "every cell returns the same number", false, 0, NULL, NULL },
};

static const struct family_value fill_values[] = {
    { NULL, NULL, NULL, false, 0, NULL, NULL },
    { "real_plane_zero", "The real plane is 0",
      "the real plane (this.thread.y = 0) returns 0", false, 0, NULL, NULL },
    { "imag_plane_zero", "The imaginary plane is 0",
      "the imaginary plane (this.thread.y = 1) returns 0", false, 0, NULL, NULL },
    { "real_plane_input", "The real plane returns its input",
      "the real plane returns its input, spectrum[0][i], unchanged", false, 0, NULL, NULL },
    { "imag_plane_input", "The imaginary plane returns its input",
      "the imaginary plane returns its input, spectrum[1][i], unchanged", false, 0, NULL, NULL },
    { "real_plane_nan", "The real plane returns NaN",
      "the real plane returns NaN (not a number)", false, 0, NULL, NULL },
    { "imag_plane_nan", "The imaginary plane returns NaN",
      "the imaginary plane returns NaN (not a number)", false, 0, NULL, NULL },
};

static const struct family_value plane_values[] = {
    { NULL, NULL, NULL, false, 0, NULL, NULL },
    { "planes_swapped", "The real and imaginary planes are swapped",
      "each plane returns the other plane's part of a ± w·b: the imaginary part where "
      "this.thread.y = 0 asks for the real one, and the other way round", false, 0, NULL, NULL },
    { "real_in_both_planes", "The real part in both planes",
      "both planes return the real part of a ± w·b", false, 0, NULL, NULL },
    { "imag_in_both_planes", "The imaginary part in both planes",
      "both planes return the imaginary part of a ± w·b", false, 0, NULL, NULL },
};

static const struct family_value scale_values[] = {
    { NULL, NULL, NULL, false, 0, NULL, NULL },
    { "scaled_half", "Every output is halved", "every output is multiplied by 1/2", false, 0,
      NULL, NULL },
    { "scaled_double", "Every output is doubled", "every output is multiplied by 2", false, 0,
      NULL, NULL },
};

static const struct family_value ending_values[] = {
    { NULL, NULL, NULL, true, 0, NULL, NULL },
    { "both_plus", "Both members return a + w·b",
      "the upper member (j = 1) returns a + w·b, as the lower one does", true, 0, NULL, NULL },
    { "both_minus", "Both members return a − w·b",
      "the lower member (j = 0) returns a − w·b, as the upper one does", true, 0, NULL, NULL },
    { "roles_swapped", "The lower and upper members are swapped",
      "the lower member (j = 0) returns a − w·b and the upper one (j = 1) a + w·b", true, 0,
      NULL, NULL },
    { "upper_reversed", "The upper member returns w·b − a",
      "the upper member (j = 1) returns w·b − a", true, 0, NULL, NULL },
};

static const struct family_value sign_values[] = {
    { NULL, NULL, NULL, true, 0, NULL, NULL },
    { "twiddle_sign", "The twiddle turns the wrong way",
      "w = e^(+iπ·r/half): the sign of the twiddle's angle is flipped", true, 0, NULL, NULL },
};

static const struct family_value multiply_values[] = {
    { NULL, NULL, NULL, true, 0, NULL, NULL },
    { "conjugate_multiply", "b multiplied by the conjugate of w",
      "w·b is conj(w)·b: tr = wr·br + wi·bi and ti = wr·bi − wi·br", true, 0, NULL, NULL },
    { "no_twiddle", "The twiddle has no effect",
      "w·b comes out as b itself, as if w were 1 everywhere: the outputs are a + b and a − b",
      true, 2, "multiply b by w = e^(−iπ·r/half) before adding it to a or taking it from a",
      "w" },
    { "componentwise_multiply", "w·b multiplied component by component",
      "w·b is (wr·br, wi·bi), which is not a complex product", false, 0, NULL, NULL },
    { "twiddle_real_part_only", "Only the real part of w is used",
      "w·b is wr·b: wi is left out", false, 0, NULL, "w" },
    { "real_part_in_both_planes", "The real part of w·b in both planes",
      "both planes add or take tr, the real part of w·b: the imaginary plane needs ti", false,
      0, NULL, NULL },
    { "multiply_real_sign", "A sign lost in the real part of w·b",
      "tr = wr·br + wi·bi", false, 0, NULL, NULL },
    { "multiply_imag_sign", "A sign lost in the imaginary part of w·b",
      "ti = wr·bi − wi·br", false, 0, NULL, NULL },
};

static const struct family_value trig_values[] = {
    { NULL, NULL, NULL, true, 0, NULL, NULL },
    { "sin_cos_swapped", "cos and sin swapped in w", "wr = sin(θ) and wi = cos(θ)", true, 0,
      NULL, NULL },
    { "cos_for_both", "cos for both parts of w", "wr and wi are both cos(θ)", false, 0, NULL, NULL },
    { "sin_for_both", "sin for both parts of w", "wr and wi are both sin(θ)", false, 0, NULL, NULL },
};

static const struct family_value angle_values[] = {
    { NULL, NULL, NULL, true, 0, NULL, NULL },
    { "angle_over_two_half", "The twiddle's angle divided by 2·half",
      "the angle is −π·r/(2·half), half of what it should be", true, 0, NULL, NULL },
    { "angle_over_size", "The twiddle's angle is divided by 8",
      "the angle is −π·r/8: divided by the transform's size instead of by half", true, 0,
      NULL, NULL },
    { "angle_not_divided", "The twiddle's angle is not divided by half",
      "the angle is −π·r, not divided by half", true, 0, NULL, NULL },
    { "angle_two_pi", "The twiddle's angle uses 2π",
      "the angle is −2π·r/half: a whole turn across the half-block", true, 0, NULL, NULL },
    { "angle_last_pass", "The last pass's twiddle on every pass",
      "the angle is −2π·r/8, the textbook twiddle for a block of 8, right only where the "
      "block (2·half) is 8 long", true, 0, NULL, NULL },
};

static const struct family_value intdiv_values[] = {
    { NULL, NULL, NULL, true, 0, NULL, NULL },
    { "int_division", "The angle's fraction divided as ints",
      "the angle's fraction is an int division, as in float(r / half), which is 0 whenever "
      "r < half: the conversion to float comes too late", true, 0, NULL, NULL },
};

static const struct family_value index_values[] = {
    { NULL, NULL, NULL, true, 0, NULL, NULL },
    { "angle_from_i", "The twiddle's angle from i instead of r",
      "the angle uses i, the thread's index, instead of r = i % half", true, 0, NULL, NULL },
    { "angle_from_j", "The twiddle's angle from j instead of r",
      "the angle uses j instead of r = i % half", true, 0, NULL, NULL },
    { "angle_from_base", "The twiddle's angle from base instead of r",
      "the angle uses base instead of r = i % half", true, 0, NULL, NULL },
    { "angle_from_block_place", "The twiddle's angle from i % (2·half)",
      "the angle uses i % (2·half), the place in the whole block, instead of r = i % half",
      true, 0, NULL, NULL },
    { "r_zero", "r is always 0",
      "r is 0 everywhere (the starter's int r = 0;), so w = 1", true, 0, NULL, NULL },
};

static const struct family_value j_values[] = {
    { NULL, NULL, NULL, true, 0, NULL, NULL },
    { "partner_parity", "j taken from i % 2",
      "j = i % 2: odd and even tell the members apart only at half = 1", true, 0, NULL, NULL },
    { "j_without_mod", "j without % 2",
      "j = i / half without % 2, so j passes 1 from the second block on", true, 0, NULL, NULL },
    { "j_zero", "j is always 0", "j is 0 everywhere (the starter's int j = 0;)", true, 0,
      NULL, NULL },
    { "j_and_half", "j = i & half", "j = i & half, which is half, not 1, for the upper member",
      true, 0, NULL, NULL },
};

static const struct family_value base_values[] = {
    { NULL, NULL, NULL, true, 0, NULL, NULL },
    { "base_is_i", "base = i", "base = i, the thread's own index", true, 0, NULL, NULL },
    { "base_zero", "base is always 0", "base is 0 everywhere (the starter's int base = 0;)",
      true, 0, NULL, NULL },
    { "base_minus_j", "base = i − j", "base = i − j, which takes away j, not j·half", true, 0,
      NULL, NULL },
    { "base_plus_j_half", "base = i + j·half", "base = i + j·half", true, 0, NULL, NULL },
};

static const struct family_value role_values[] = {
    { NULL, NULL, NULL, true, 0, NULL, NULL },
    { "sign_from_parity", "The sign picked by i % 2",
      "the sign between a and w·b is picked by i % 2 instead of by j", true, 0, NULL, NULL },
    { "sign_from_i_below_half", "The sign picked by i < half",
      "the sign between a and w·b is + only where i < half", true, 0, NULL, NULL },
    { "sign_from_i_below_4", "The sign picked by i < 4",
      "the sign between a and w·b is + only where i < 4", true, 0, NULL, NULL },
};

static const struct family_value a_values[] = {
    { NULL, NULL, NULL, true, 0, NULL, NULL },
    { "a_is_own_element", "a is the thread's own element",
      "a is element i, the thread's own, instead of element base", true, 0, NULL, NULL },
};

static const struct family_value b_values[] = {
    { NULL, NULL, NULL, true, 0, NULL, NULL },
    { "partner_next", "b read at base + 1", "b is element base + 1", true, 0, NULL, NULL },
    { "b_at_i_plus_half", "b read at i + half", "b is element i + half", true, 0, NULL, NULL },
    { "b_at_i_xor_half", "b read at i ^ half",
      "b is element i ^ half, which for the upper member is a again", true, 0, NULL, NULL },
    { "b_at_i_xor_1", "b read at i ^ 1", "b is element i ^ 1", true, 0, NULL, NULL },
    { "b_at_i_plus_1", "b read at i + 1", "b is element i + 1", true, 0, NULL, NULL },
    { "b_at_i_minus_half", "b read at i − half", "b is element i − half", true, 0, NULL, NULL },
    { "b_at_base_plus_two_half", "b read at base + 2·half", "b is element base + 2·half", true,
      0, NULL, NULL },
    { "b_is_a", "b read where a is", "b is element base, the same element as a", true, 0,
      NULL, NULL },
    { "b_is_own_element", "b is the thread's own element", "b is element i, the thread's own",
      true, 0, NULL, NULL },
    { "b_at_base_minus_half", "b read at base − half", "b is element base − half", true, 0,
      NULL, NULL },
};

#define VALUES(a) (int)(sizeof a / sizeof a[0]), a

static const struct family_param_info params[FAMILY_NPARAMS] = {
    [FP_OUTPUT] = { "every cell", "each cell returns a + w·b (lower member) or a − w·b (upper "
                    "member)", 3, "work out a, b and w, then return a + w·b where j = 0 and "
                    "a − w·b where j = 1", "plane", VALUES(output_values) },
    [FP_FILL] = { "one plane", "both planes are computed: ar ± tr when this.thread.y is 0, "
                  "ai ± ti when it is 1", 3, "return ar ± tr when this.thread.y is 0 and "
                  "ai ± ti when it is 1", "plane", VALUES(fill_values) },
    [FP_PLANE] = { "plane", "this.thread.y = 0 asks for the real part and 1 for the "
                   "imaginary part, as p does in spectrum[p][k]", 3, "return ar ± tr when "
                   "this.thread.y is 0 and ai ± ti when it is 1", "plane", VALUES(plane_values) },
    [FP_SCALE] = { "scale", "a butterfly pass does not scale (an inverse transform's 1/N, "
                   "where one is wanted, comes once, at the end)", 3, "return ar + tr, "
                   "ar − tr, ai + ti or ai − ti as they are", "sign", VALUES(scale_values) },
    [FP_ENDING] = { "ending", "the lower member (j = 0) returns a + w·b and the upper one "
                    "(j = 1) a − w·b", 3, "the sign between a and w·b depends on j: + where "
                    "j = 0, − where j = 1", "sign", VALUES(ending_values) },
    [FP_SIGN] = { "twiddle sign", "w = e^(−iπ·r/half)", 2, "w = e^(−iπ·r/half), minus sign "
                  "included", "w", VALUES(sign_values) },
    [FP_MULTIPLY] = { "multiply", "w·b = (wr·br − wi·bi, wr·bi + wi·br): each part needs "
                      "all four numbers", 3, "tr = wr * br - wi * bi; ti = wr * bi + wi * br",
                      "wb", VALUES(multiply_values) },
    [FP_TRIG] = { "twiddle", "wr = cos(θ) and wi = sin(θ), with θ = −π·r/half", 2,
                  "wr = cos(-PI * float(r) / float(half)), wi = sin(-PI * float(r) / "
                  "float(half))", "w", VALUES(trig_values) },
    [FP_ANGLE] = { "angle", "the angle is −π·r/half: across a half-block the twiddle turns "
                   "half a circle", 2, "w = e^(−iπ·r/half), π times r over half", "w",
                   VALUES(angle_values) },
    [FP_INTDIV] = { "division", "the fraction is float(r) / float(half)", 2, "divide as "
                    "floats: float(r) / float(half)", "w", VALUES(intdiv_values) },
    [FP_INDEX] = { "angle index", "the angle uses r = i % half, the place inside the "
                   "half-block", 2, "r = i % half is all w depends on", "r",
                   VALUES(index_values) },
    [FP_J] = { "member", "j = (i / half) % 2", 1, "j = (i / half) % 2 says whether i sits in "
               "the lower or the upper half of its block of 2·half", "j", VALUES(j_values) },
    [FP_BASE] = { "base", "base = i − j·half, the lower member's index, the same for both "
                  "members", 1, "subtracting j * half lands both members of a pair on the "
                  "same base", "base", VALUES(base_values) },
    [FP_ROLE] = { "role", "j picks the sign: + where j = 0, − where j = 1", 3, "if j is 0 "
                  "return a + w·b, else a − w·b", "sign", VALUES(role_values) },
    [FP_A] = { "a", "a is element base for both members", 1, "a is element base, b is "
               "element base + half", "read", VALUES(a_values) },
    [FP_B] = { "partner", "b is element base + half", 1, "a is element base, b is element "
               "base + half", "read", VALUES(b_values) },
};

const struct family_param_info *family_param(enum family_param p)
{
    return &params[p];
}

static const struct family_step steps[] = {
    { "i", "i = this.thread.x" },
    { "j", "j = (i / half) % 2" },
    { "base", "base = i − j·half" },
    { "r", "r = i % half" },
    { "read", "a is element base, b is element base + half" },
    { "w", "w = e^(−iπ·r/half)" },
    { "wb", "w·b = (wr·br − wi·bi, wr·bi + wi·br)" },
    { "sign", "a + w·b where j = 0, a − w·b where j = 1" },
    { "plane", "this.thread.y picks the plane: 0 the real part, 1 the imaginary part" },
    { NULL, NULL },
};

const struct family_step *family_steps(void)
{
    return steps;
}

const char *family_step_of(enum family_param p, int v)
{
    const char *own = v > 0 && v < params[p].nvalues ? params[p].values[v].step : NULL;
    return own ? own : params[p].step;
}

int family_step_rank(const char *slug)
{
    int k = 0;
    for (; steps[k].slug; k++)
        if (slug && !strcmp(steps[k].slug, slug))
            return k;
    return k;
}

int family_depth(const struct family_member *m)
{
    int d = 0;
    for (int p = 0; p < FAMILY_NPARAMS; p++)
        d += m->v[p] != 0;
    return d;
}

bool family_is_table(const struct family_member *m, enum family_param p)
{
    return params[p].values[m->v[p]].table;
}

/* ---- the arithmetic ---- */

/* Every angle of the family is a multiple of π/8: the divisors are 1, 2,
 * 4 and 8 and the numerators integers, so one table serves them all and
 * the search computes no cos or sin. */
static const double cos_eighths[16] = {
    1.0, 0.9238795325112867, 0.7071067811865476, 0.38268343236508984,
    0.0, -0.38268343236508984, -0.7071067811865476, -0.9238795325112867,
    -1.0, -0.9238795325112867, -0.7071067811865476, -0.38268343236508984,
    0.0, 0.38268343236508984, 0.7071067811865476, 0.9238795325112867,
};

static int mod16(int k)
{
    return ((k % 16) + 16) % 16;
}

double family_cos8(int k)
{
    return cos_eighths[mod16(k)];
}

double family_sin8(int k)
{
    return cos_eighths[mod16(k - 4)];
}

/* An index a mistake sends out of 0..7 reads what the device reads: the
 * grader's robust-access pass clamps it. */
static int clamp_index(int k)
{
    return k < 0 ? 0 : k > BF_N - 1 ? BF_N - 1 : k;
}

void family_pair_of(const struct family_member *m, int half, int i, struct family_pair *out)
{
    int j = 0;
    switch (m->v[FP_J]) {
    case 0: j = (i / half) % 2; break;
    case 1: j = i % 2; break;
    case 2: j = i / half; break;
    case 3: j = 0; break;
    case 4: j = i & half; break;
    }
    int base = 0;
    switch (m->v[FP_BASE]) {
    case 0: base = i - j * half; break;
    case 1: base = i; break;
    case 2: base = 0; break;
    case 3: base = i - j; break;
    case 4: base = i + j * half; break;
    }
    int a = m->v[FP_A] ? i : base;
    int b = 0;
    switch (m->v[FP_B]) {
    case 0: b = base + half; break;
    case 1: b = base + 1; break;
    case 2: b = i + half; break;
    case 3: b = i ^ half; break;
    case 4: b = i ^ 1; break;
    case 5: b = i + 1; break;
    case 6: b = i - half; break;
    case 7: b = base + 2 * half; break;
    case 8: b = base; break;
    case 9: b = i; break;
    case 10: b = base - half; break;
    }
    /* GLSL's j == 0 ? ... : ... : any nonzero j is the upper member */
    bool upper = false;
    switch (m->v[FP_ROLE]) {
    case 0: upper = j != 0; break;
    case 1: upper = i % 2 != 0; break;
    case 2: upper = i >= half; break;
    case 3: upper = i >= BF_N / 2; break;
    }
    enum family_op op = OP_PLUS;
    switch (m->v[FP_ENDING]) {
    case 0: op = upper ? OP_MINUS : OP_PLUS; break;
    case 1: op = OP_PLUS; break;
    case 2: op = OP_MINUS; break;
    case 3: op = upper ? OP_PLUS : OP_MINUS; break;
    case 4: op = upper ? OP_REVERSED : OP_PLUS; break;
    }

    int r = i % half;
    int index = 0;
    switch (m->v[FP_INDEX]) {
    case 0: index = r; break;
    case 1: index = i; break;
    case 2: index = j; break;
    case 3: index = base; break;
    case 4: index = i % (2 * half); break;
    case 5: index = 0; break;
    }
    /* the angle is numerator·π·index/divisor, in steps of π/8 */
    static const struct { int numerator, divisor; } angles[] = {
        { 1, 0 }, { 1, -2 }, { 1, BF_N }, { 1, 1 }, { 2, 0 }, { 2, BF_N },
    };
    int numerator = angles[m->v[FP_ANGLE]].numerator;
    int divisor = angles[m->v[FP_ANGLE]].divisor;
    if (divisor == 0)
        divisor = half;
    else if (divisor == -2)
        divisor = 2 * half;
    int k = m->v[FP_INTDIV] ? numerator * 8 * (index / divisor)
                            : numerator * index * (8 / divisor);
    if (!m->v[FP_SIGN])
        k = -k;
    if (m->v[FP_TRIG] == 1)
        k = 4 - k;            /* (sin θ, cos θ) = e^(i(π/2 - θ)) */
    if (m->v[FP_MULTIPLY] == 1)
        k = -k;               /* conj(w)·b */
    else if (m->v[FP_MULTIPLY] == 2)
        k = 0;                /* b as it is */

    out->a = (signed char)clamp_index(a);
    out->b = (signed char)clamp_index(b);
    out->k = (signed char)mod16(k);
    out->op = (unsigned char)op;
}

void family_product(const struct family_member *m, const float in[BF_PLANES][BF_N], int b,
                    int k, double t[BF_PLANES])
{
    double br = in[0][b], bi = in[1][b];
    double wr = cos_eighths[mod16(k)], wi = cos_eighths[mod16(k - 4)];
    if (m->v[FP_TRIG] == 2)
        wi = wr;
    else if (m->v[FP_TRIG] == 3)
        wr = wi;
    switch (m->v[FP_MULTIPLY]) {
    case 3: t[0] = wr * br; t[1] = wi * bi; break;
    case 4: t[0] = wr * br; t[1] = wr * bi; break;
    case 5: t[0] = t[1] = wr * br - wi * bi; break;
    case 6: t[0] = wr * br + wi * bi; t[1] = wr * bi + wi * br; break;
    case 7: t[0] = wr * br - wi * bi; t[1] = wr * bi - wi * br; break;
    default: t[0] = wr * br - wi * bi; t[1] = wr * bi + wi * br; break;
    }
}

void family_shape_map(const struct family_member *m, struct family_map *map)
{
    static const int source[4][BF_PLANES] = { { 0, 1 }, { 1, 0 }, { 0, 0 }, { 1, 1 } };
    static const double scale[3] = { 1.0, 0.5, 2.0 };
    int filled = m->v[FP_FILL] ? (m->v[FP_FILL] - 1) % 2 : -1;   /* 0 real, 1 imaginary */
    for (int p = 0; p < BF_PLANES; p++) {
        map->filled[p] = p == filled;
        map->source[p] = source[m->v[FP_PLANE]][p];
    }
    map->scale = scale[m->v[FP_SCALE]];
}

double family_fill(const struct family_member *m, const float in[BF_PLANES][BF_N], int p,
                   int i)
{
    int kind = (m->v[FP_FILL] - 1) / 2;          /* 0 zero, 1 input, 2 NaN */
    return kind == 0 ? 0.0 : kind == 1 ? in[p][i] : NAN;
}

void family_shape_cells(const struct family_member *m, const float in[BF_PLANES][BF_N],
                        const struct family_pair *pr, int i, double out[BF_PLANES])
{
    switch (m->v[FP_OUTPUT]) {
    case 1: out[0] = out[1] = 0.0; return;
    case 2: out[0] = in[0][i]; out[1] = in[1][i]; return;
    case 3: out[0] = out[1] = NAN; return;
    case 4: out[0] = out[1] = m->constant; return;
    }
    double t[BF_PLANES], res[BF_PLANES];
    family_product(m, in, pr->b, pr->k, t);
    for (int c = 0; c < BF_PLANES; c++) {
        double a = in[c][pr->a];
        res[c] = pr->op == OP_MINUS ? a - t[c] : pr->op == OP_REVERSED ? t[c] - a : a + t[c];
    }
    struct family_map map;
    family_shape_map(m, &map);
    for (int p = 0; p < BF_PLANES; p++)
        out[p] = map.filled[p] ? family_fill(m, in, p, i) : map.scale * res[map.source[p]];
}

double family_cell(const struct family_member *m, const float in[BF_PLANES][BF_N],
                   int half, int p, int i)
{
    struct family_pair pr;
    double out[BF_PLANES];
    family_pair_of(m, half, i, &pr);
    family_shape_cells(m, in, &pr, i, out);
    return out[p];
}
