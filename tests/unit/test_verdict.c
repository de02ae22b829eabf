/* Verdict JSON: the documented fields, non-finite values, the round trip. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "verdict.h"

static struct verdict *sample(void)
{
    struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, "Wrong for half = 2.");
    v->halves_run = 1;
    v->halves[0].half = 2;
    v->halves[0].hidden_passed = 3;
    v->halves[0].hidden_total = 8;
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 8; x++)
            v->halves[0].cells[y][x] = (struct cell_result){ x + 0.5, (float)(x + 0.5), true };
    v->halves[0].cells[1][3] = (struct cell_result){ 2.0, NAN, false };
    v->halves[0].cells[0][7] = (struct cell_result){ 2.0, -INFINITY, false };
    v->diags = calloc(1, sizeof *v->diags);
    v->diags[0] = (struct diagnostic){ 3, 0, DIAG_WARNING, strdup("unused \xff variable") };
    v->ndiags = 1;
    v->device_type = "cpu";
    strcpy(v->device_name, "llvmpipe");
    v->timings = (struct verdict_timings){ 1.5, 20.25, -1, 22 };
    v->seed = 42;
    v->diagnosis = diagnosis_new("twiddle_sign", "Twiddle sign", "w has +i.", "Hint 2");
    v->summary = strdup("imaginary plane wrong for half 2");
    return v;
}

static void test_json_fields(void **state)
{
    struct verdict *v = sample();
    json_t *j = verdict_to_json(v);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "schema")), VERDICT_SCHEMA);
    assert_string_equal(json_string_value(json_object_get(j, "task")), "butterfly");
    json_t *st = json_object_get(j, "status");
    assert_int_equal(json_integer_value(json_object_get(st, "id")), 4);
    assert_string_equal(json_string_value(json_object_get(st, "description")), "Wrong Answer");
    json_t *h = json_array_get(json_object_get(j, "halves"), 0);
    assert_int_equal(json_integer_value(json_object_get(h, "half")), 2);
    json_t *cells = json_object_get(h, "cells");
    assert_int_equal(json_array_size(cells), 16);
    json_t *c = json_array_get(cells, 8 + 3);   /* y = 1, x = 3 */
    assert_int_equal(json_integer_value(json_object_get(c, "x")), 3);
    assert_int_equal(json_integer_value(json_object_get(c, "y")), 1);
    assert_true(json_is_null(json_object_get(c, "got")));
    assert_string_equal(json_string_value(json_object_get(c, "got_text")), "NaN");
    assert_true(json_is_false(json_object_get(c, "passed")));
    json_t *hid = json_object_get(h, "hidden");
    assert_int_equal(json_integer_value(json_object_get(hid, "passed")), 3);
    json_t *d = json_array_get(json_object_get(j, "diagnostics"), 0);
    assert_int_equal(json_integer_value(json_object_get(d, "line")), 3);
    assert_true(json_is_null(json_object_get(d, "column")));
    /* a byte that is not UTF-8 does not lose the verdict */
    assert_string_equal(json_string_value(json_object_get(d, "message")), "unused ? variable");
    json_t *dg = json_object_get(j, "diagnosis");
    assert_string_equal(json_string_value(json_object_get(dg, "title")), "Twiddle sign");
    assert_string_equal(json_string_value(json_object_get(j, "summary")),
                        "imaginary plane wrong for half 2");
    json_t *t = json_object_get(j, "timings_ms");
    assert_true(json_is_null(json_object_get(t, "run")));
    assert_true(json_real_value(json_object_get(t, "pipeline")) == 20.25);
    json_decref(j);
    verdict_free(v);
}

static void test_round_trip(void **state)
{
    struct verdict *v = sample();
    json_t *j = verdict_to_json(v);
    char *text = json_dumps(j, JSON_REAL_PRECISION(9));
    json_t *back_j = json_loads(text, 0, NULL);
    struct verdict *w = verdict_from_json(back_j);
    assert_non_null(w);
    assert_int_equal(w->status, v->status);
    assert_string_equal(w->message, v->message);
    assert_int_equal(w->halves_run, 1);
    assert_true(isnan(w->halves[0].cells[1][3].got));
    assert_true(isinf(w->halves[0].cells[0][7].got) && w->halves[0].cells[0][7].got < 0);
    assert_true(w->halves[0].cells[0][2].got == 2.5f);
    assert_int_equal(w->ndiags, 1);
    assert_int_equal(w->diags[0].severity, DIAG_WARNING);
    assert_string_equal(w->device_type, "cpu");
    assert_true(w->timings.run_ms < 0);
    assert_int_equal(w->seed, 42);
    assert_string_equal(w->diagnosis->id, "twiddle_sign");
    assert_string_equal(w->diagnosis->hint, "Hint 2");
    assert_string_equal(w->summary, v->summary);
    json_t *again = verdict_to_json(w);
    char *text2 = json_dumps(again, JSON_REAL_PRECISION(9));
    assert_string_equal(text, text2);
    free(text);
    free(text2);
    json_decref(again);
    json_decref(back_j);
    json_decref(j);
    verdict_free(w);
    verdict_free(v);
}

static void test_from_json_refuses_non_verdicts(void **state)
{
    json_t *j = json_pack("{s:{s:i}}", "status", "id", 999);
    assert_null(verdict_from_json(j));
    json_decref(j);
    j = json_pack("[]");
    assert_null(verdict_from_json(j));
    json_decref(j);
}

static void test_status_names(void **state)
{
    assert_string_equal(verdict_status_to_str(VERDICT_ACCEPTED), "Accepted");
    assert_string_equal(verdict_status_to_str(VERDICT_TIME_LIMIT), "Time Limit Exceeded");
    assert_string_equal(verdict_status_to_str(VERDICT_REJECTED), "Rejected");
    assert_string_equal(verdict_status_to_str((enum verdict_status)55), "Unknown");
    assert_true(verdict_status_is_runtime_error(VERDICT_RUNTIME_SIGSEGV));
    assert_false(verdict_status_is_runtime_error(VERDICT_INTERNAL_ERROR));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_fields),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_from_json_refuses_non_verdicts),
        cmocka_unit_test(test_status_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
