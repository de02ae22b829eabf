/*
 * fuzz_exercise - an exercise's definition as the build, the registry and
 * `--check-exercise` read it (exercise_load). The bytes up to the first
 * NUL are exercise.json; what follows, split at the next NUL, is a
 * solution file and a mistake file, so the first-line and header readers
 * are fuzzed too. Checked: a definition that loads keeps every promise the
 * grader sizes its buffers by (the bounds of exercise.h), or this aborts.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/exercise/exercise_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void holds_its_promises(const struct exercise *e)
{
    bool ok = e->in_n >= 1 && e->in_n <= EX_MAX_N && e->out_n >= 1 && e->out_n <= EX_MAX_N &&
              e->in_planes >= 1 && e->in_planes <= EX_MAX_PLANES && e->out_planes >= 1 &&
              e->out_planes <= EX_MAX_PLANES && e->nsweep >= 1 && e->nsweep <= EX_MAX_SWEEP &&
              e->hidden >= 0 && e->hidden <= EX_MAX_HIDDEN && e->napi >= 1 &&
              e->napi <= EX_MAX_API && e->hidden_grid >= 1 && e->hidden_lo <= e->hidden_hi &&
              e->atol >= 0 && e->rtol >= 0 && isfinite(e->atol) && isfinite(e->rtol) &&
              e->loop_budget >= 1 && exercise_id_valid(e->id) && e->nsolutions >= 1 &&
              e->brief && e->starter && e->function && e->input && e->param;
    for (int p = 0; ok && p < e->in_planes; p++)
        for (int k = 0; k < e->in_n; k++)
            ok = ok && isfinite(e->visible[p][k]);
    for (size_t i = 0; ok && i < e->nsolutions; i++)
        ok = e->solutions[i].body && strlen(e->solutions[i].body) == e->solutions[i].len;
    for (size_t i = 0; ok && i < e->nmistakes; i++)
        ok = e->mistakes[i].title && e->mistakes[i].explanation &&
             exercise_id_valid(e->mistakes[i].id);
    if (!ok)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    size_t json_len = nul ? (size_t)(nul - text) : size;
    const char *rest = nul ? nul + 1 : text + size;
    size_t rest_len = size - (size_t)(rest - text);
    const char *nul2 = memchr(rest, '\0', rest_len);
    size_t sol_len = nul2 ? (size_t)(nul2 - rest) : rest_len;
    const char *mis = nul2 ? nul2 + 1 : rest + rest_len;
    size_t mis_len = rest_len - (size_t)(mis - rest);

    struct exercise_file files[] = {
        { "README.md", "A brief.\n", 9 },
        { "starter.glsl", "return 0.0;\n", 12 },
        { "solutions/right.glsl", "// expect: accepted\nreturn 1.0;\n", 32 },
        { "solutions/fuzzed.glsl", rest, sol_len },
        { "mistakes/fuzzed.glsl", mis, mis_len },
    };
    /* without a separator only exercise.json is fuzzed, so JSON inputs
     * reach the end of the loader */
    size_t nfiles = nul ? sizeof files / sizeof files[0] : 3;
    char err[EX_LOAD_MAX_ERROR];
    struct exercise *e = exercise_load("exercises/butterfly", text, json_len, files, nfiles, err,
                                       sizeof err);
    if (e)
        holds_its_promises(e);
    else if (strlen(err) == 0 || strncmp(err, "exercises/butterfly/", 20) != 0)
        abort();   /* every refusal names its file */
    exercise_load_free(e);
    return 0;
}
