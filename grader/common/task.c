/* task.c - the butterfly exercise as data. */
#include "common/task.h"

static const struct task_api_name butterfly_api[] = {
    { "this.thread.x", "int", "output index i, 0..7" },
    { "this.thread.y", "int", "plane of the output cell: 0 real, 1 imaginary" },
    { "half", "int", "the pass's half-block size: 1, 2 or 4" },
    { "spectrum[p][k]", "float", "plane p (0 real, 1 imaginary) of input element k" },
    { "PI", "float", "pi" },
    { NULL, NULL, NULL },
};

/*
 * The visible spectrum is shown on the page. It is chosen so that every
 * plausible mistake shows in it: every imaginary part is nonzero, no two
 * values are equal or opposite, and the real and imaginary planes differ
 * everywhere, so swapped planes, dropped twiddles, flipped signs and
 * swapped roles each change some cell by far more than the tolerance.
 */
const struct task task_butterfly = {
    .id = "butterfly",
    .title = "The Butterfly: One Thread, One Output",
    .subtitle = "Task 2 of 6",
    .halves = { 1, 2, 4 },
    .visible = {
        { 1.0f, -0.5f, 2.25f, 0.75f, -1.5f, 3.0f, 0.375f, -2.125f },
        { 0.5f, 1.25f, -0.875f, 2.0f, -1.0f, 0.125f, 1.625f, -0.25f },
    },
    /*
     * Vulkan allows sin and cos an absolute error of 2^-11 on [-pi, pi], and
     * the twiddle multiplies inputs of magnitude up to 3, so a correct kernel
     * on a conformant GPU may be off by about 3 * 2 * 2^-11 = 3e-3. Every
     * mistake the exercise is about moves some cell by 0.1 or more.
     */
    .atol = 5e-3,
    .rtol = 1e-3,
    .loop_budget = TASK_LOOP_BUDGET,
    .signature = "float butterfly(/* this, half, spectrum */) {",
    .starter =
        "// One thread computes one output cell: index this.thread.x,\n"
        "// plane this.thread.y (0 real, 1 imaginary).\n"
        "int i = this.thread.x;\n"
        "\n"
        "// Which member of the pair am I, where is its lower member, and\n"
        "// where am I inside the half-block?\n"
        "int j = 0;     // TODO\n"
        "int base = 0;  // TODO\n"
        "int r = 0;     // TODO\n"
        "\n"
        "// a = spectrum[.][base], b = spectrum[.][base + half],\n"
        "// w = exp(-i * PI * r / half). Return a + w*b at the lower\n"
        "// member and a - w*b at the upper one.\n"
        "return spectrum[this.thread.y][i];\n",
    .api = butterfly_api,
};

/* splitmix64: tiny, well mixed, and the same everywhere. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void task_hidden_spectrum(uint64_t seed, unsigned index,
                          float spec[TASK_PLANES][TASK_N])
{
    uint64_t state = seed ^ (0x5851f42d4c957f2dull * (index + 1u));
    for (int p = 0; p < TASK_PLANES; p++) {
        for (int k = 0; k < TASK_N; k++) {
            /* 257 grid points from -2 to 2 in steps of 1/64 */
            int step = (int)(splitmix64(&state) % 257u) - 128;
            spec[p][k] = (float)step / 64.0f;
        }
    }
}
