/* The loader of an exercise's definition: every mistake an author can make
 * in exercise.json or the folder's files gets a message naming the file
 * and the field (issue 33, item 9), and good definitions load as written.
 * The cases are a table of edits to one good definition. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/exercise/exercise_load.h"

#define DIR "exercises/scale"

/* A small exercise of another shape than the butterfly: one plane of four,
 * scaled by the parameter. */
static const char good_json[] =
    "{ \"id\": \"scale\", \"title\": \"Example: Scale\", \"subtitle\": \"An example\",\n"
    "  \"course\": { \"name\": \"Examples\", \"order\": 1 }, \"example\": true,\n"
    "  \"kernel\": { \"function\": \"scale\", \"signature\": \"float scale(/* this, factor, v */) {\",\n"
    "    \"api\": [ { \"name\": \"this.thread.x\", \"type\": \"int\", \"meaning\": \"output index\" },\n"
    "               { \"name\": \"factor\", \"type\": \"int\", \"meaning\": \"the factor\" } ] },\n"
    "  \"input\": { \"name\": \"v\", \"n\": 4, \"planes\": 1,\n"
    "             \"hidden\": { \"min\": -4, \"max\": 4, \"grid\": 16 } },\n"
    "  \"visible\": [ [1.5, -0.25, 3.0, 0.125] ],\n"
    "  \"output\": { \"n\": 4, \"planes\": 1 }, \"dispatch\": { \"x\": 4, \"y\": 1 },\n"
    "  \"parameter\": { \"name\": \"factor\", \"values\": [2, -3] },\n"
    "  \"hidden_per_value\": 4, \"tolerance\": { \"atol\": 0.0001, \"rtol\": 0 },\n"
    "  \"loop_budget\": 100 }\n";

static const struct exercise_file good_files[] = {
    { "README.md", "Multiply each element by `factor`.\n", 35 },
    { "starter.glsl", "return v[0][this.thread.x];\n", 28 },
    { "solutions/right.glsl", "// expect: accepted\nreturn float(factor) * v[0][this.thread.x];\n", 64 },
    { "solutions/unscaled.glsl", "// expect: wrong copies_input\nreturn v[0][this.thread.x];\n", 58 },
    { "mistakes/copies_input.glsl",
      "// title: The input is returned unscaled\n"
      "// explanation: Every output equals its input:\n"
      "// explanation: the factor is never read.\n"
      "// hint: Multiply by factor.\n"
      "return v[0][this.thread.x];\n", 160 },
    { "reference.c", "ignored by the loader", 21 },
};
#define NFILES (sizeof good_files / sizeof good_files[0])

static struct exercise *load_json(const char *json, size_t len, char *err)
{
    return exercise_load(DIR, json, len, good_files, NFILES, err, EX_LOAD_MAX_ERROR);
}

/* ---- edits of exercise.json ---- */

/* The value at `path` ("input.hidden.min", "visible[0][1]") is replaced by
 * `value` (JSON text), or removed when value is NULL. */
static void edit(json_t *root, const char *path, const char *value)
{
    json_t *parent = root, *node = root;
    char key[64] = "";
    size_t index = 0;
    bool by_index = false;
    const char *p = path;
    while (*p) {
        parent = node;
        if (*p == '[') {
            index = strtoul(p + 1, (char **)&p, 10);
            assert_true(*p == ']');
            p++;
            by_index = true;
            node = json_array_get(parent, index);
        } else {
            if (*p == '.')
                p++;
            size_t n = strcspn(p, ".[");
            assert_true(n < sizeof key);
            memcpy(key, p, n);
            key[n] = '\0';
            p += n;
            by_index = false;
            node = json_object_get(parent, key);
        }
        if (*p)
            assert_non_null(node);
    }
    if (!value) {
        assert_int_equal(by_index ? json_array_remove(parent, index) : json_object_del(parent, key), 0);
        return;
    }
    json_t *v = json_loads(value, JSON_DECODE_ANY, NULL);
    assert_non_null(v);
    assert_int_equal(by_index ? json_array_set_new(parent, index, v)
                              : json_object_set_new(parent, key, v), 0);
}

struct bad_json {
    const char *path;
    const char *value;     /* NULL: the field removed */
    const char *message;   /* what follows "exercises/scale/exercise.json: " */
};

static const struct bad_json bad_json_cases[] = {
    /* missing fields */
    { "title", NULL, "title: missing" },
    { "input", NULL, "input: missing" },
    { "input.n", NULL, "input.n: missing (an integer from 1 to 16)" },
    { "kernel.api[1].meaning", NULL, "kernel.api[1].meaning: missing" },
    { "tolerance.rtol", NULL, "tolerance.rtol: missing" },
    /* wrong types */
    { "input.n", "\"4\"", "input.n: must be an integer from 1 to 16, the per-run bound (got \"4\")" },
    { "input.n", "4.0", "input.n: must be an integer" },
    { "title", "3", "title: must be a string" },
    { "title", "\"two\\nlines\"", "title: must be a string of 1 to 200 bytes, one line" },
    { "kernel", "[]", "kernel: must be an object (got [])" },
    { "example", "1", "example: must be true or false (got 1)" },
    { "visible[0][1]", "\"x\"", "visible[0][1]: must be a number" },
    { "tolerance.atol", "null", "tolerance.atol: must be a number (got null)" },
    { "kernel.api[0]", "\"x\"", "kernel.api[0]: must be an object" },
    /* unknown fields: a typo in an optional one is not a silent default */
    { "colour", "1", "colour: unknown field (the definition holds: id, title," },
    { "input.size", "4", "input.size: unknown field (input holds: name, n, planes, hidden)" },
    { "kernel.api[0].unit", "\"s\"", "kernel.api[0].unit: unknown field" },
    /* the sweep */
    { "parameter.values", "[]", "parameter.values: must be an array of 1 to 4 values, the per-run bound (got [])" },
    { "parameter.values", "[1, 2, 3, 4, 5]", "parameter.values: must be an array of 1 to 4 values, the per-run bound" },
    { "parameter.values", "[2, 2]", "parameter.values[1]: repeats 2" },
    { "parameter.values[0]", "1.5", "parameter.values[0]: must be an integer" },
    /* sizes over the per-run bound */
    { "input.n", "40", "input.n: must be an integer from 1 to 16, the per-run bound (got 40)" },
    { "output.planes", "3", "output.planes: must be an integer from 1 to 2, the per-run bound (got 3)" },
    { "hidden_per_value", "9", "hidden_per_value: must be an integer from 0 to 8, the per-run bound (got 9)" },
    { "kernel.api", "[]", "kernel.api: must be an array of 1 to 16 rows" },
    /* the dispatch is the output's shape */
    { "dispatch.x", "3", "dispatch.x: must equal output.n, one thread per output cell (got 3, output.n is 4)" },
    { "dispatch.y", "2", "dispatch.y: must equal output.planes" },
    /* the visible input */
    { "visible[0][1]", "0.1", "visible[0][1]: must be exact in float (got 0.1; the nearest float is 0.100000001)" },
    { "visible[0]", "[1, 2, 3]", "visible[0]: must hold input.n = 4 numbers (got [1,2,3])" },
    { "visible", "[[1, 2, 3, 4], [1, 2, 3, 4]]", "visible: must hold one array per input plane, input.planes = 1" },
    { "visible[0][0]", "1e39", "visible[0][0]: must be exact in float" },
    /* the hidden inputs' grid */
    { "input.hidden.min", "-4.01", "input.hidden.min: must be on the grid" },
    { "input.hidden.grid", "10", "input.hidden.grid: must be a power of two" },
    { "input.hidden.grid", "0", "input.hidden.grid: must be an integer from 1 to 65536" },
    { "input.hidden.max", "-5", "input.hidden.max: must not be below min" },
    { "input.hidden.max", "2000000", "input.hidden.max: max * grid must be within" },
    /* the id */
    { "id", "\"Scale\"", "id: must be 1 to 32 bytes of [a-z0-9_-] (got \"Scale\")" },
    { "id", "\"abcdefghijabcdefghijabcdefghijabc\"", "id: must be 1 to 32 bytes" },
    { "id", "\"other\"", "id: must be the folder's name \"scale\" (got \"other\")" },
    { "id", "\"all\"", "id: cannot be \"all\": it names every exercise (?task=all, --task all)" },
    /* tolerances */
    { "tolerance.atol", "-0.1", "tolerance.atol: must be 0 or more (got -0.1)" },
    { "tolerance.rtol", "\"0\"", "tolerance.rtol: must be a number" },
    /* the diagnosis */
    { "diagnosis", "\"fft\"", "diagnosis: unknown diagnosis \"fft\" (known: \"butterfly\"" },
    /* names the harness defines */
    { "kernel.function", "\"gl_main\"", "kernel.function: must be a GLSL identifier" },
    { "kernel.function", "\"bf_value\"", "kernel.function: must be a GLSL identifier" },
    { "input.name", "\"this\"", "input.name: must be a GLSL identifier" },
    { "input.name", "\"x y\"", "input.name: must be a GLSL identifier" },
    { "parameter.name", "\"v\"", "parameter.name: must differ from input.name and kernel.function" },
    { "input.name", "\"scale\"", "input.name: must differ from kernel.function" },
    /* the rest */
    { "course.order", "0", "course.order: must be an integer from 1 to 1000 (got 0)" },
    { "course.teacher", "\"x\"", "course.teacher: unknown field" },
    { "loop_budget", "70000", "loop_budget: must be an integer from 1 to 60000 (got 70000)" },
};

static void test_each_bad_field_is_named(void **state)
{
    for (size_t i = 0; i < sizeof bad_json_cases / sizeof bad_json_cases[0]; i++) {
        const struct bad_json *c = &bad_json_cases[i];
        json_t *root = json_loads(good_json, 0, NULL);
        assert_non_null(root);
        edit(root, c->path, c->value);
        char *text = json_dumps(root, 0);
        json_decref(root);
        char err[EX_LOAD_MAX_ERROR], want[EX_LOAD_MAX_ERROR];
        struct exercise *e = load_json(text, strlen(text), err);
        free(text);
        snprintf(want, sizeof want, "%s/exercise.json: %s", DIR, c->message);
        if (e || strncmp(err, want, strlen(want)) != 0)
            fail_msg("case %zu (%s): got \"%s\", want it to start \"%s\"", i, c->path,
                     e ? "(loaded)" : err, want);
        exercise_load_free(e);
    }
}

/* Text that is no JSON object at all. */
static void test_bad_json_text(void **state)
{
    static const struct { const char *text; const char *message; } cases[] = {
        { "", "exercise.json: line 1 column 0:" },
        { "{ \"id\": ", "exercise.json: line 1 column" },
        { "[]", "exercise.json: (the whole file): must be an object (got [])" },
        { "{ \"id\": \"scale\", \"id\": \"scale\" }", "exercise.json: line 1 column" },
        { "{ \"tolerance\": 1e400 }", "exercise.json: line 1 column" },
        { "{ \"title\": \"a\\u0000b\" }", "exercise.json: line 1 column" },
        { "{}", "exercise.json: id: missing" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[EX_LOAD_MAX_ERROR], want[EX_LOAD_MAX_ERROR];
        struct exercise *e = load_json(cases[i].text, strlen(cases[i].text), err);
        snprintf(want, sizeof want, "%s/%s", DIR, cases[i].message);
        if (e || strncmp(err, want, strlen(want)) != 0)
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, e ? "(loaded)" : err, want);
    }
    /* over the bound: refused before it is parsed */
    size_t big = EX_LOAD_MAX_JSON + 1;
    char *text = malloc(big);
    assert_non_null(text);
    memset(text, ' ', big);
    char err[EX_LOAD_MAX_ERROR];
    assert_null(load_json(text, big, err));
    assert_string_equal(err, DIR "/exercise.json: is 65537 bytes, over the bound of 65536");
    free(text);
}

/* ---- the folder's files ---- */

struct bad_file {
    const char *name;      /* the file replaced (or added) */
    const char *text;      /* NULL: the file removed */
    const char *message;   /* what follows "exercises/scale/" */
};

static const struct bad_file bad_file_cases[] = {
    { "README.md", NULL, "README.md: missing (the brief shown on the page, Markdown)" },
    { "starter.glsl", NULL, "starter.glsl: missing (the body a student starts from)" },
    { "solutions/right.glsl", "return float(factor) * v[0][this.thread.x];\n",
      "solutions/right.glsl: line 1: the first line must be \"// expect: accepted\", "
      "\"// expect: wrong\" or \"// expect: wrong MISTAKE-ID\" (got \"return float(factor)" },
    { "solutions/right.glsl", "// expect: acepted\n", "solutions/right.glsl: line 1: the first line must be" },
    { "solutions/right.glsl", "", "solutions/right.glsl: line 1: the first line must be" },
    { "solutions/right.glsl", "// expect: accepted now\n", "solutions/right.glsl: line 1: the first line must be" },
    { "solutions/unscaled.glsl", "// expect: wrong Copies\n",
      "solutions/unscaled.glsl: line 1: the mistake id must be 1 to 32 bytes of [a-z0-9_-]" },
    { "solutions/unscaled.glsl", "// expect: wrong no_such\n",
      "solutions/unscaled.glsl: line 1: names the mistake \"no_such\", but there is no mistakes/no_such.glsl" },
    { "solutions/right.glsl", "// expect: wrong\n",
      "solutions/: no solution says \"// expect: accepted\"" },
    { "mistakes/copies_input.glsl", "// explanation: e\nreturn 0.0;\n",
      "mistakes/copies_input.glsl: title: missing (a \"// title: ...\" line at the top)" },
    { "mistakes/copies_input.glsl", "return 0.0;\n// title: too late\n",
      "mistakes/copies_input.glsl: title: missing" },
    { "mistakes/copies_input.glsl", "// title: t\nreturn 0.0;\n",
      "mistakes/copies_input.glsl: explanation: missing" },
    { "mistakes/copies_input.glsl", "// title: t\n// title: u\n// explanation: e\n",
      "mistakes/copies_input.glsl: title: given twice" },
    { "mistakes/copies_input.glsl", "// title: t\n// explanation: e\n// hint: a\n// hint: b\n",
      "mistakes/copies_input.glsl: hint: given twice" },
    { "solutions/unscaled.glsl", "// expect: wrong copies_input too\n",
      "solutions/unscaled.glsl: line 1: the mistake id must be 1 to 32 bytes" },
    { "mistakes/Copies.glsl", "// title: t\n// explanation: e\n",
      "mistakes/Copies.glsl: the file's name must be 1 to 32 bytes of [a-z0-9_-], then .glsl" },
    { "solutions/Right Now.glsl", "// expect: accepted\n",
      "solutions/Right Now.glsl: the file's name must be 1 to 32 bytes of [a-z0-9_-]" },
    { "starter.glsl", "return\0;", "starter.glsl: holds a NUL byte" },
    { "README.md", "\377\376", "README.md: is not UTF-8" },
};

static void test_each_bad_file_is_named(void **state)
{
    for (size_t i = 0; i < sizeof bad_file_cases / sizeof bad_file_cases[0]; i++) {
        const struct bad_file *c = &bad_file_cases[i];
        struct exercise_file files[NFILES + 1];
        size_t n = 0;
        bool replaced = false;
        for (size_t k = 0; k < NFILES; k++) {
            if (strcmp(good_files[k].name, c->name) != 0) {
                files[n++] = good_files[k];
                continue;
            }
            replaced = true;
            if (c->text)
                files[n++] = (struct exercise_file){ c->name, c->text,
                    strcmp(c->name, "starter.glsl") == 0 ? 8 : strlen(c->text) };
        }
        if (!replaced)
            files[n++] = (struct exercise_file){ c->name, c->text, strlen(c->text) };
        char err[EX_LOAD_MAX_ERROR], want[EX_LOAD_MAX_ERROR];
        struct exercise *e = exercise_load(DIR, good_json, strlen(good_json), files, n, err, sizeof err);
        snprintf(want, sizeof want, "%s/%s", DIR, c->message);
        if (e || strncmp(err, want, strlen(want)) != 0)
            fail_msg("case %zu (%s): got \"%s\", want it to start \"%s\"", i, c->name,
                     e ? "(loaded)" : err, want);
    }
}

static void test_folder_bounds(void **state)
{
    char err[EX_LOAD_MAX_ERROR];
    /* one file given twice */
    struct exercise_file twice[NFILES + 1];
    memcpy(twice, good_files, sizeof good_files);
    twice[NFILES] = good_files[0];
    assert_null(exercise_load(DIR, good_json, strlen(good_json), twice, NFILES + 1, err, sizeof err));
    assert_string_equal(err, DIR "/README.md: given twice");
    /* a file over the bound */
    struct exercise_file big[NFILES];
    memcpy(big, good_files, sizeof good_files);
    big[1].len = EX_LOAD_MAX_FILE + 1;
    char *text = calloc(1, EX_LOAD_MAX_FILE + 1);
    assert_non_null(text);
    memset(text, 'x', EX_LOAD_MAX_FILE + 1);
    big[1].text = text;
    assert_null(exercise_load(DIR, good_json, strlen(good_json), big, NFILES, err, sizeof err));
    assert_string_equal(err, DIR "/starter.glsl: is 65537 bytes, over the bound of 65536");
    free(text);
    /* a short buffer for the message: cut, still a C string */
    char tiny[8];
    assert_null(exercise_load(DIR, "[]", 2, good_files, NFILES, tiny, sizeof tiny));
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
    assert_null(exercise_load(DIR, "[]", 2, good_files, NFILES, NULL, 0));
}

/* ---- good definitions ---- */

static void test_the_good_one_loads_as_written(void **state)
{
    char err[EX_LOAD_MAX_ERROR];
    struct exercise *e = load_json(good_json, strlen(good_json), err);
    if (!e)
        fail_msg("%s", err);
    assert_string_equal(e->id, "scale");
    assert_string_equal(e->title, "Example: Scale");
    assert_string_equal(e->course, "Examples");
    assert_int_equal(e->order, 1);
    assert_true(e->example);
    assert_string_equal(e->function, "scale");
    assert_int_equal(e->napi, 2);
    assert_string_equal(e->api[1].name, "factor");
    assert_string_equal(e->input, "v");
    assert_int_equal(e->in_n, 4);
    assert_int_equal(e->in_planes, 1);
    assert_int_equal(e->hidden_lo, -64);
    assert_int_equal(e->hidden_hi, 64);
    assert_int_equal(e->hidden_grid, 16);
    assert_true(e->visible[0][1] == -0.25f);
    assert_true(e->visible[0][3] == 0.125f);
    assert_int_equal(e->out_n, 4);
    assert_int_equal(e->out_planes, 1);
    assert_string_equal(e->param, "factor");
    assert_int_equal(e->nsweep, 2);
    assert_int_equal(e->sweep[1], -3);
    assert_int_equal(e->hidden, 4);
    assert_int_equal(exercise_runs(e), 10);
    assert_true(e->atol == 0.0001 && e->rtol == 0.0);
    assert_int_equal(e->loop_budget, 100);
    assert_null(e->diagnosis);
    assert_null(e->reference);
    assert_string_equal(e->brief, "Multiply each element by `factor`.\n");
    assert_string_equal(e->starter, "return v[0][this.thread.x];\n");
    assert_int_equal(e->nsolutions, 2);
    assert_string_equal(e->solutions[0].file, "solutions/right.glsl");
    assert_int_equal(e->solutions[0].expect, EXPECT_ACCEPTED);
    assert_null(e->solutions[0].mistake);
    assert_int_equal(e->solutions[1].expect, EXPECT_WRONG);
    assert_string_equal(e->solutions[1].mistake, "copies_input");
    assert_int_equal(e->nmistakes, 1);
    const struct exercise_mistake *m = &e->mistakes[0];
    assert_string_equal(m->id, "copies_input");
    assert_string_equal(m->title, "The input is returned unscaled");
    /* the explanation's lines are one paragraph */
    assert_string_equal(m->explanation, "Every output equals its input: the factor is never read.");
    assert_string_equal(m->hint, "Multiply by factor.");
    assert_int_equal(m->len, strlen(m->body));
    exercise_load_free(e);
    exercise_load_free(NULL);
}

/* What editors save: a byte-order mark, CRLF, trailing blanks; a plain
 * "wrong"; no course, no mistakes; the butterfly's built-in diagnosis,
 * whose mistake ids are its own. */
static void test_other_good_forms_load(void **state)
{
    json_t *root = json_loads(good_json, 0, NULL);
    assert_non_null(root);
    edit(root, "course", NULL);
    edit(root, "example", NULL);
    edit(root, "diagnosis", "\"butterfly\"");
    char *text = json_dumps(root, 0);
    json_decref(root);
    static const struct exercise_file files[] = {
        { "README.md", "", 0 },
        { "starter.glsl", "return 0.0;\r\n", 13 },
        { "solutions/a.glsl", "\357\273\277// expect: accepted  \r\nreturn 1.0;\r\n", 36 },
        { "solutions/b.glsl", "//  expect:   wrong\n", 20 },
        { "solutions/c.glsl", "// expect: wrong twiddle_sign", 29 },
        { "solutions/notes.txt", "not a solution", 14 },
    };
    char err[EX_LOAD_MAX_ERROR];
    struct exercise *e = exercise_load("some/where/scale/", text, strlen(text), files,
                                       sizeof files / sizeof files[0], err, sizeof err);
    free(text);
    if (!e)
        fail_msg("%s", err);
    assert_null(e->course);
    assert_int_equal(e->order, 0);
    assert_false(e->example);
    assert_string_equal(e->diagnosis, "butterfly");
    assert_int_equal(e->nsolutions, 3);
    assert_int_equal(e->solutions[0].expect, EXPECT_ACCEPTED);
    assert_int_equal(e->solutions[1].expect, EXPECT_WRONG);
    assert_null(e->solutions[1].mistake);
    assert_string_equal(e->solutions[2].mistake, "twiddle_sign");
    assert_int_equal(e->nmistakes, 0);
    exercise_load_free(e);
}

static void test_ids(void **state)
{
    assert_true(exercise_id_valid("butterfly"));
    assert_true(exercise_id_valid("bit-reversal_16"));
    assert_true(exercise_id_valid("abcdefghijabcdefghijabcdefghijab"));
    assert_false(exercise_id_valid("abcdefghijabcdefghijabcdefghijabc"));
    assert_false(exercise_id_valid(""));
    assert_false(exercise_id_valid(NULL));
    assert_false(exercise_id_valid("../etc"));
    assert_false(exercise_id_valid("Butterfly"));
    assert_false(exercise_id_valid("a b"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_bad_field_is_named),
        cmocka_unit_test(test_bad_json_text),
        cmocka_unit_test(test_each_bad_file_is_named),
        cmocka_unit_test(test_folder_bounds),
        cmocka_unit_test(test_the_good_one_loads_as_written),
        cmocka_unit_test(test_other_good_forms_load),
        cmocka_unit_test(test_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
