/* Verdict JSON: the documented fields, non-finite values, the round trip. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/task.h"
#include "common/verdict.h"

static const struct worked_cell worked_example = {
    .half = 2, .hidden = true, .i = 3, .plane = 1, .j = 1, .base = 1, .r = 1, .partner = 1,
    .a = { -0.5, 1.25 }, .b = { 0.75, 2.0 }, .w = { 0, -1 }, .wb = { 2.0, -0.75 },
    .due = "a \u2212 w\u00b7b", .expected = 2.0, .got = NAN,
    .got_matches = "a + w\u00b7b", .passed = false,
    .kernel_known = true, .kernel_a = 3, .kernel_b = 1, .kernel_sign = 1,
    .kernel_w = { -0.448, -0.894 },
};

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
    v->diags = realloc(v->diags, 2 * sizeof *v->diags);
    v->diags[0] = (struct diagnostic){ 3, 0, DIAG_WARNING, strdup("unused \xff variable"), NULL };
    v->diags[1] = (struct diagnostic){ 4, 0, DIAG_ERROR, strdup("missing ';' at the end of this line?"),
                                       strdup("'' :  syntax error, unexpected FLOAT") };
    v->ndiags = 2;
    v->has_device = true;
    v->device_type = DEVICE_CPU;
    strcpy(v->device_name, "llvmpipe");
    v->timings = (struct verdict_timings){ 1.5, 20.25, -1, 22 };
    v->seed = 42;
    v->diagnosis = diagnosis_new("twiddle_sign", "Twiddle sign", "w has +i.", "Hint 2");
    v->summary = strdup("imaginary plane wrong for half 2");
    v->worked_cell = calloc(1, sizeof *v->worked_cell);
    *v->worked_cell = worked_example;
    v->worked_cells = calloc(WORKED_CELLS, sizeof *v->worked_cells);
    for (int k = 0; k < WORKED_CELLS; k++) {
        v->worked_cells[k] = worked_example;
        v->worked_cells[k].i = k % TASK_N;
        v->worked_cells[k].got = (float)k / 4;
        v->worked_cells[k].got_matches[0] = '\0';
        v->worked_cells[k].passed = k % 3 == 0;
    }
    v->worked_cells[5].got = INFINITY;
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
    json_t *d2 = json_array_get(json_object_get(j, "diagnostics"), 1);
    assert_string_equal(json_string_value(json_object_get(d2, "message")),
                        "missing ';' at the end of this line?");
    assert_string_equal(json_string_value(json_object_get(d2, "original")),
                        "'' :  syntax error, unexpected FLOAT");
    assert_true(json_is_null(json_object_get(d, "original")));

    /* the worked cell under the names the page reads */
    json_t *w = json_object_get(j, "worked_cell");
    assert_int_equal(json_integer_value(json_object_get(w, "half")), 2);
    assert_string_equal(json_string_value(json_object_get(w, "spectrum")), "hidden");
    static const char *const ints[] = { "i", "plane", "j", "base", "r", "partner" };
    static const int want[] = { 3, 1, 1, 1, 1, 1 };
    for (size_t k = 0; k < 6; k++)
        assert_int_equal(json_integer_value(json_object_get(w, ints[k])), want[k]);
    assert_true(json_real_value(json_object_get(json_object_get(w, "a"), "re")) == -0.5);
    assert_true(json_real_value(json_object_get(json_object_get(w, "wb"), "im")) == -0.75);
    assert_non_null(json_object_get(json_object_get(w, "b"), "im"));
    assert_non_null(json_object_get(json_object_get(w, "w"), "re"));
    assert_string_equal(json_string_value(json_object_get(w, "due")), "a \u2212 w\u00b7b");
    assert_true(json_real_value(json_object_get(w, "expected")) == 2.0);
    assert_true(json_is_null(json_object_get(w, "got")));
    assert_string_equal(json_string_value(json_object_get(w, "got_text")), "NaN");
    assert_string_equal(json_string_value(json_object_get(w, "got_matches")), "a + w\u00b7b");
    assert_true(json_is_false(json_object_get(w, "passed")));
    /* the kernel's own numbers (issue 32) */
    json_t *kernel = json_object_get(w, "kernel");
    assert_int_equal(json_integer_value(json_object_get(kernel, "a_element")), 3);
    assert_int_equal(json_integer_value(json_object_get(kernel, "b_element")), 1);
    assert_int_equal(json_integer_value(json_object_get(kernel, "sign")), 1);
    assert_true(json_real_value(json_object_get(json_object_get(kernel, "w"), "im")) == -0.894);
    json_t *all = json_object_get(j, "worked_cells");
    assert_int_equal(json_array_size(all), WORKED_CELLS);
    assert_true(json_is_null(json_object_get(json_array_get(all, 1), "got_matches")));
    assert_string_equal(json_string_value(json_object_get(json_array_get(all, 5), "got_text")),
                        "Infinity");

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
    assert_int_equal(w->ndiags, 2);
    assert_int_equal(w->diags[0].severity, DIAG_WARNING);
    assert_null(w->diags[0].original);
    assert_string_equal(w->diags[1].original, v->diags[1].original);
    assert_non_null(w->worked_cell);
    assert_true(isnan(w->worked_cell->got));
    assert_true(w->worked_cell->hidden);
    assert_string_equal(w->worked_cell->got_matches, worked_example.got_matches);
    assert_string_equal(w->worked_cell->due, worked_example.due);
    assert_true(w->worked_cell->kernel_known);
    assert_int_equal(w->worked_cell->kernel_a, 3);
    assert_true(w->worked_cell->kernel_w.re == -0.448);
    assert_non_null(w->worked_cells);
    assert_true(isinf(w->worked_cells[5].got));
    assert_int_equal(w->worked_cells[47].i, 7);
    assert_true(w->has_device);
    assert_int_equal(w->device_type, DEVICE_CPU);
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

/* A verdict without worked cells keeps them null both ways. */
static void test_worked_cells_absent(void **state)
{
    struct verdict *v = verdict_new(VERDICT_ACCEPTED, "fine");
    json_t *j = verdict_to_json(v);
    assert_true(json_is_null(json_object_get(j, "worked_cell")));
    assert_true(json_is_null(json_object_get(j, "worked_cells")));
    struct verdict *w = verdict_from_json(j);
    assert_non_null(w);
    assert_null(w->worked_cell);
    assert_null(w->worked_cells);
    verdict_free(w);
    json_decref(j);
    verdict_free(v);
}

/* A worked cell that is not one makes the JSON no verdict. */
static void test_malformed_worked_cell_refused(void **state)
{
    struct verdict *v = sample();
    static const char *const breakers[] = { "i", "spectrum", "due", "a" };
    for (size_t k = 0; k < 4; k++) {
        json_t *j = verdict_to_json(v);
        json_t *w = json_object_get(j, "worked_cell");
        json_object_set_new(w, breakers[k], json_integer(99));
        assert_null(verdict_from_json(j));
        json_decref(j);
    }
    json_t *j = verdict_to_json(v);
    json_array_remove(json_object_get(j, "worked_cells"), 0);
    assert_null(verdict_from_json(j));
    json_decref(j);
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

/* Another exercise's grid (16 x 1, four values): its id and dimensions
 * come back from the JSON, read off the shape of its cells. */
static void test_grid_of_another_shape(void **state)
{
    (void)state;
    struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, "Wrong for factor = 3.");
    snprintf(v->task, sizeof v->task, "%s", "scale");
    v->grid_n = 16;
    v->grid_planes = 1;
    v->halves_run = 4;
    for (int h = 0; h < 4; h++) {
        v->halves[h].half = h + 1;
        for (int x = 0; x < 16; x++)
            v->halves[h].cells[0][x] = (struct cell_result){ x * (h + 1.0), (float)x, h == 0 };
    }
    size_t len;
    char *bytes = verdict_to_bytes(v, &len);
    assert_non_null(bytes);
    assert_non_null(strstr(bytes, "\"task\":\"scale\""));
    struct verdict *back = verdict_from_bytes(bytes, len);
    assert_non_null(back);
    assert_string_equal(back->task, "scale");
    assert_int_equal(back->grid_n, 16);
    assert_int_equal(back->grid_planes, 1);
    assert_int_equal(back->halves_run, 4);
    assert_true(back->halves[3].cells[0][15].expected == 60.0);
    assert_false(back->halves[3].cells[0][15].passed);
    assert_true(back->halves[0].cells[0][9].passed);
    size_t len2;
    char *again = verdict_to_bytes(back, &len2);
    assert_int_equal(len2, len);
    assert_memory_equal(again, bytes, len);
    free(again);
    verdict_free(back);

    /* a grid with a cell missing is no grid */
    char *cut = strstr(bytes, "{\"x\":15,\"y\":0");
    assert_non_null(cut);
    memcpy(cut, "{\"x\":14,\"y\":0", strlen("{\"x\":14,\"y\":0"));
    assert_null(verdict_from_bytes(bytes, len));
    free(bytes);
    verdict_free(v);
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
        cmocka_unit_test(test_worked_cells_absent),
        cmocka_unit_test(test_malformed_worked_cell_refused),
        cmocka_unit_test(test_from_json_refuses_non_verdicts),
        cmocka_unit_test(test_grid_of_another_shape),
        cmocka_unit_test(test_status_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
