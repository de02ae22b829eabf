/* The docs that name things name what the code has: the family's table in
 * docs/FEEDBACK.md, the worked cell's expressions in docs/VERDICT.md. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "common/defaults.h"
#include "common/io/read_input.h"
#include "common/task.h"
#include "common/verdict.h"
#include "engine/checks/spirv_cost.h"
#include "engine/compile/compile_messages.h"
#include "engine/diagnosis/describe.h"
#include "engine/diagnosis/family.h"
#include "engine/diagnosis/worked.h"

static const char *docs_dir;

static char *read_doc(const char *name)
{
    char path[1024], err[256];
    size_t len;
    snprintf(path, sizeof path, "%s/%s", docs_dir, name);
    char *text = read_input(path, 1 << 20, &len, err, sizeof err);
    if (!text)
        fail_msg("%s: %s", path, err);
    return text;
}

/* Field k (0-based) of a table row "| a | b | c |", trimmed, into buf. */
static bool field(const char *row, int k, char *buf, size_t size)
{
    const char *p = row;
    for (int n = 0; n <= k; n++) {
        p = strchr(p, '|');
        if (!p)
            return false;
        p++;
    }
    const char *end = strchr(p, '|');
    const char *nl = strchr(p, '\n');
    if (!end || (nl && nl < end))
        return false;
    while (*p == ' ')
        p++;
    while (end > p && end[-1] == ' ')
        end--;
    snprintf(buf, size, "%.*s", (int)(end - p), p);
    return true;
}

/* Every value of the family has its row, with its words, kind and hint,
 * and every row is a value of the family. */
static void test_family_table(void **state)
{
    char *doc = read_doc("FEEDBACK.md");
    const char *begin = strstr(doc, "<!-- family table");
    const char *end = strstr(doc, "<!-- end of family table -->");
    assert_non_null(begin);
    assert_non_null(end);
    int rows = 0, values = 0;
    for (const char *row = strchr(begin, '\n') + 1; row < end; row = strchr(row, '\n') + 1) {
        char id[128], what[512], kind[16], hint[8];
        if (!field(row, 1, id, sizeof id) || id[0] != '`')
            continue;                       /* the header and its rule */
        rows++;
        id[strlen(id) - 1] = '\0';
        bool found = false;
        for (int p = 0; p < FAMILY_NPARAMS && !found; p++) {
            const struct family_param_info *info = family_param((enum family_param)p);
            for (int v = 1; v < info->nvalues && !found; v++) {
                const struct family_value *x = &info->values[v];
                if (strcmp(x->id, id + 1))
                    continue;
                found = true;
                assert_true(field(row, 2, what, sizeof what));
                assert_true(field(row, 3, kind, sizeof kind));
                assert_true(field(row, 4, hint, sizeof hint));
                assert_string_equal(what, x->what);
                assert_string_equal(kind, x->table ? "pairs" : "shape");
                assert_int_equal(atoi(hint), x->hint ? x->hint : info->hint);
            }
        }
        if (!found)
            fail_msg("the table names %s, which the family does not have", id + 1);
    }
    for (int p = 0; p < FAMILY_NPARAMS; p++)
        values += family_param((enum family_param)p)->nvalues - 1;
    assert_int_equal(rows, values);
    free(doc);
}

/* The ids of the other tiers and the missing-';' words are in FEEDBACK.md. */
static void test_feedback_names(void **state)
{
    char *doc = read_doc("FEEDBACK.md");
    for (int k = 0; describe_aspect_id(k); k++) {
        char quoted[64];
        snprintf(quoted, sizeof quoted, "`%s`", describe_aspect_id(k));
        if (!strstr(doc, quoted))
            fail_msg("FEEDBACK.md does not name %s", quoted);
    }
    assert_non_null(strstr(doc, compile_missing_semicolon));
    free(doc);
}

/* Every expression got_matches can name is listed in VERDICT.md. */
static void test_verdict_expressions(void **state)
{
    char *doc = read_doc("VERDICT.md");
    const char *row = strstr(doc, "| `got_matches` |");
    assert_non_null(row);
    const char *end = strchr(row, '\n');
    for (const char *const *e = worked_expressions(); *e; e++) {
        char quoted[64];
        snprintf(quoted, sizeof quoted, "`%s`", *e);
        const char *at = strstr(row, quoted);
        if (!at || at > end)
            fail_msg("VERDICT.md's got_matches row lacks %s", quoted);
    }
    free(doc);
}

/* n with a comma every three digits, as the docs write numbers. */
static void thousands(unsigned n, char *buf, size_t size)
{
    if (n >= 1000000)
        snprintf(buf, size, "%u,%03u,%03u", n / 1000000, n / 1000 % 1000, n % 1000);
    else if (n >= 1000)
        snprintf(buf, size, "%u,%03u", n / 1000, n % 1000);
    else
        snprintf(buf, size, "%u", n);
}

static void assert_doc_says(const char *doc, const char *name, const char *phrase)
{
    if (!strstr(doc, phrase))
        fail_msg("%s does not say \"%s\"", name, phrase);
}

/* Every top-level field a verdict has is a row of VERDICT.md's table, and
 * the limits its last section states are the code's. */
static void test_verdict_fields(void **state)
{
    (void)state;
    char *doc = read_doc("VERDICT.md");
    struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, "m");
    assert_non_null(v);
    json_t *j = verdict_to_json(v);
    assert_non_null(j);
    const char *key;
    json_t *value;
    json_object_foreach(j, key, value) {
        char row[64], dotted[64];
        snprintf(row, sizeof row, "\n| `%s`", key);
        snprintf(dotted, sizeof dotted, "\n| `%s.", key);
        if (!strstr(doc, row) && !strstr(doc, dotted))
            fail_msg("VERDICT.md's table has no row for the field %s", key);
        char example[64];
        snprintf(example, sizeof example, "\"%s\":", key);
        if (!strstr(doc, example))
            fail_msg("VERDICT.md's example lacks the field %s", key);
    }
    json_decref(j);
    verdict_free(v);

    char phrase[64], n[16];
    thousands(TASK_LOOP_BUDGET, n, sizeof n);
    snprintf(phrase, sizeof phrase, "may take %s iterations in all", n);
    assert_doc_says(doc, "VERDICT.md", phrase);
    snprintf(phrase, sizeof phrase, "exactly %s runs to the end", n);
    assert_doc_says(doc, "VERDICT.md", phrase);
    snprintf(phrase, sizeof phrase, "capped at %u KiB", SPIRV_COST_MAX_PRIVATE_BYTES / 1024);
    assert_doc_says(doc, "VERDICT.md", phrase);
    thousands(MAX_PREPROCESSED_TOKENS, n, sizeof n);
    snprintf(phrase, sizeof phrase, "| %s tokens for the compiler |", n);
    assert_doc_says(doc, "VERDICT.md", phrase);
    snprintf(phrase, sizeof phrase, "more than %u tokens for the compiler", MAX_PREPROCESSED_TOKENS);
    assert_doc_says(doc, "VERDICT.md", phrase);
    thousands(MAX_EXPRESSION_OPERATORS, n, sizeof n);
    snprintf(phrase, sizeof phrase, "| %s operators in one statement |", n);
    assert_doc_says(doc, "VERDICT.md", phrase);
    snprintf(phrase, sizeof phrase, "more than %u operators once", MAX_EXPRESSION_OPERATORS);
    assert_doc_says(doc, "VERDICT.md", phrase);
    thousands(MAX_KERNEL_COST_UNITS, n, sizeof n);
    snprintf(phrase, sizeof phrase, "| %s cost units inlined |", n);
    assert_doc_says(doc, "VERDICT.md", phrase);
    thousands(MAX_RUN_COST_UNITS, n, sizeof n);
    snprintf(phrase, sizeof phrase, "| %s cost units run per thread |", n);
    assert_doc_says(doc, "VERDICT.md", phrase);
    snprintf(phrase, sizeof phrase, "transcendental function (`sin`");
    assert_doc_says(doc, "VERDICT.md", phrase);
    snprintf(phrase, sizeof phrase, "`determinant`, `inverse`) %u,", COST_TRANSCENDENTAL_UNITS);
    assert_doc_says(doc, "VERDICT.md", phrase);
    thousands(TASK_LOOP_BUDGET + 1, n, sizeof n);
    snprintf(phrase, sizeof phrase, "the loop budget allows (%s,", n);
    assert_doc_says(doc, "VERDICT.md", phrase);
    snprintf(phrase, sizeof phrase, "cut at %u bytes", COMPILE_MAX_MESSAGE_BYTES);
    assert_doc_says(doc, "VERDICT.md", phrase);
    snprintf(phrase, sizeof phrase, "together at %u KiB", COMPILE_MAX_DIAG_BYTES / 1024);
    assert_doc_says(doc, "VERDICT.md", phrase);
    snprintf(phrase, sizeof phrase, "the log\n  at %u KiB", COMPILE_MAX_LOG_BYTES / 1024);
    assert_doc_says(doc, "VERDICT.md", phrase);
    snprintf(phrase, sizeof phrase, "at most %u KiB of JSON", MAX_ANSWER_BYTES / 1024);
    assert_doc_says(doc, "VERDICT.md", phrase);
    snprintf(phrase, sizeof phrase, "A grading is %s runs\nper half",
             1 + TASK_HIDDEN == 9 ? "nine" : "?");
    assert_doc_says(doc, "VERDICT.md", phrase);
    free(doc);
}

/* Every key of `got` is a property of the OpenAPI schema `name`, and a
 * required one; and every property the schema requires is in `got`. */
static void assert_schema_matches(const json_t *schemas, const char *name, const json_t *got)
{
    const json_t *schema = json_object_get(schemas, name);
    if (!schema)
        fail_msg("openapi.json has no schema %s", name);
    const json_t *props = json_object_get(schema, "properties");
    const json_t *required = json_object_get(schema, "required");
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)got, key, value) {
        if (!json_object_get(props, key))
            fail_msg("openapi.json's %s lacks the property %s", name, key);
        if (strstr(key, "_text"))
            continue;   /* present only beside a non-finite value */
        bool listed = false;
        size_t i;
        json_t *r;
        json_array_foreach(required, i, r)
            listed |= !strcmp(json_string_value(r), key);
        if (!listed)
            fail_msg("openapi.json's %s does not require %s", name, key);
    }
    size_t i;
    json_t *r;
    json_array_foreach(required, i, r)
        if (!json_object_get(got, json_string_value(r)))
            fail_msg("openapi.json's %s requires %s, which a verdict lacks", name,
                     json_string_value(r));
}

/* The OpenAPI contract describes the verdict the code writes: every field,
 * the worked cell's included. */
static void test_openapi_verdict(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/openapi.json", docs_dir);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    if (!doc)
        fail_msg("%s: %s", path, err.text);
    const json_t *schemas = json_object_get(json_object_get(doc, "components"), "schemas");

    struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, "m");
    assert_non_null(v);
    v->worked_cell = calloc(1, sizeof *v->worked_cell);
    assert_non_null(v->worked_cell);
    *v->worked_cell = (struct worked_cell){ .half = 1, .due = "a + w·b", .got_matches = "a",
                                            .matches = "a", .sign = 1, .says = "s" };
    v->diagnosis = diagnosis_new("twiddle_sign", "t", "e", "h");
    assert_non_null(v->diagnosis);
    assert_true(diagnosis_set_more(v->diagnosis, "w", "m"));
    json_t *j = verdict_to_json(v);
    assert_non_null(j);
    assert_schema_matches(schemas, "Verdict", j);
    assert_schema_matches(schemas, "Status", json_object_get(j, "status"));
    assert_schema_matches(schemas, "Diagnosis", json_object_get(j, "diagnosis"));
    assert_schema_matches(schemas, "WorkedCell", json_object_get(j, "worked_cell"));
    json_decref(j);
    verdict_free(v);
    json_decref(doc);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_docs DOCS_DIR\n");
        return 2;
    }
    docs_dir = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_family_table),
        cmocka_unit_test(test_feedback_names),
        cmocka_unit_test(test_verdict_expressions),
        cmocka_unit_test(test_verdict_fields),
        cmocka_unit_test(test_openapi_verdict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
