/* batch_record.c - a student's results.json, both ways. */
#include "batch/batch_record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/score.h"
#include "batch/reports/batch_feedback.h"

const char *batch_record_kind_to_str(enum batch_record_kind k)
{
    return k == BATCH_RECORD_GRADED ? "graded" : "refused";
}

/* A JSON string of text that may not be UTF-8 (made printable then). */
static json_t *text(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    char *shown = batch_display(s, strlen(s));
    j = shown ? json_string(shown) : NULL;
    free(shown);
    return j;
}

static json_t *tests_json(const struct score *sc)
{
    json_t *tests = json_array();
    for (int i = 0; tests && i < sc->ntests; i++) {
        const struct score_test *t = &sc->tests[i];
        json_t *tj = json_pack("{s:s, s:f, s:f, s:s, s:s, s:s, s:s}",
                               "name", t->name,
                               "score", (double)t->score,
                               "max_score", (double)t->max_score,
                               "status", t->passed ? "passed" : "failed",
                               "output", t->output,
                               "output_format", "text",
                               "visibility", t->visibility);
        if (!tj || json_array_append_new(tests, tj) != 0) {
            json_decref(tests);
            return NULL;
        }
    }
    return tests;
}

json_t *batch_record_to_json(const struct batch_input *e, const char *task, const char *sha,
                             uint64_t seed, const struct verdict *v)
{
    struct score sc;
    score_verdict(v, &sc);
    char *output = batch_feedback_visible(e, v, &sc, sha == NULL);
    json_t *vj = verdict_to_json(v);
    json_t *tests = tests_json(&sc);
    /* to the millisecond: more would be noise */
    double seconds = v->timings.total_ms >= 0 ? round(v->timings.total_ms) / 1000.0 : 0.0;
    json_t *record = NULL;
    if (output && vj && tests)
        record = json_pack("{s:f, s:f, s:o, s:s, s:s, s:o, s:{s:{s:i, s:s, s:s, s:s, s:s, s:s, s:o,"
                           " s:I, s:O}}}",
                           "score", (double)sc.score,
                           "execution_time", seconds,
                           "output", text(output),
                           "output_format", "text",
                           "stdout_visibility", BATCH_RECORD_STDOUT_VISIBILITY,
                           "tests", tests,
                           "extra_data", "butterfly",
                           "schema", BATCH_RECORD_SCHEMA,
                           "id", e->id,
                           "task", task,
                           "key", e->key,
                           "location", e->location,
                           "kind", batch_record_kind_to_str(sha ? BATCH_RECORD_GRADED
                                                                : BATCH_RECORD_REFUSED),
                           "source_sha256", sha ? json_string(sha) : json_null(),
                           "seed", (json_int_t)seed,
                           "verdict", vj);
    else
        json_decref(tests);
    free(output);
    json_decref(vj);
    return record;
}

bool batch_record_parse(const char *s, size_t len, struct batch_record *r)
{
    memset(r, 0, sizeof *r);
    json_t *j = json_loadb(s, len, 0, NULL);
    json_t *b = json_object_get(json_object_get(j, "extra_data"), "butterfly");
    const char *kind = json_string_value(json_object_get(b, "kind"));
    const char *id = json_string_value(json_object_get(b, "id"));
    const char *sha = json_string_value(json_object_get(b, "source_sha256"));
    json_t *seed = json_object_get(b, "seed");
    const char *graded = batch_record_kind_to_str(BATCH_RECORD_GRADED);
    const char *refused = batch_record_kind_to_str(BATCH_RECORD_REFUSED);
    bool ok = json_integer_value(json_object_get(b, "schema")) == BATCH_RECORD_SCHEMA &&
              kind && id && json_is_integer(seed) &&
              (!strcmp(kind, refused) || (!strcmp(kind, graded) && sha &&
                                          strlen(sha) == BATCH_SHA256_HEX - 1));
    if (ok) {
        r->kind = !strcmp(kind, graded) ? BATCH_RECORD_GRADED : BATCH_RECORD_REFUSED;
        r->id = strdup(id);
        if (sha && r->kind == BATCH_RECORD_GRADED)
            memcpy(r->sha, sha, BATCH_SHA256_HEX);
        r->seed = (uint64_t)json_integer_value(seed);
        const char *task = json_string_value(json_object_get(b, "task"));
        snprintf(r->task, sizeof r->task, "%s", task ? task : exercise_default()->id);
        r->verdict = verdict_from_json(json_object_get(b, "verdict"));
        ok = r->id && r->verdict;
    }
    json_decref(j);
    if (!ok)
        batch_record_clear(r);
    return ok;
}

void batch_record_clear(struct batch_record *r)
{
    free(r->id);
    verdict_free(r->verdict);
    memset(r, 0, sizeof *r);
}
