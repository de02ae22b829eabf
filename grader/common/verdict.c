/* verdict.c - verdict lifetime, status names, and the JSON both ways. */
#include "common/verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    enum verdict_status id;
    const char *description;
    const char *slug;
} statuses[VERDICT_NSTATUSES] = {
    /* in the order summaries show them: the common outcomes first */
    { VERDICT_ACCEPTED, "Accepted", "accepted" },
    { VERDICT_WRONG_ANSWER, "Wrong Answer", "wrong_answer" },
    { VERDICT_COMPILATION_ERROR, "Compilation Error", "compilation_error" },
    { VERDICT_TIME_LIMIT, "Time Limit Exceeded", "time_limit_exceeded" },
    { VERDICT_RUNTIME_SIGSEGV, "Runtime Error (SIGSEGV)", "runtime_error" },
    { VERDICT_RUNTIME_SIGXFSZ, "Runtime Error (SIGXFSZ)", "runtime_error" },
    { VERDICT_RUNTIME_SIGFPE, "Runtime Error (SIGFPE)", "runtime_error" },
    { VERDICT_RUNTIME_SIGABRT, "Runtime Error (SIGABRT)", "runtime_error" },
    { VERDICT_RUNTIME_NZEC, "Runtime Error (NZEC)", "runtime_error" },
    { VERDICT_RUNTIME_OTHER, "Runtime Error (Other)", "runtime_error" },
    { VERDICT_REJECTED, "Rejected", "rejected" },
    { VERDICT_INTERNAL_ERROR, "Internal Error", "internal_error" },
};

#define NSTATUSES VERDICT_NSTATUSES

enum verdict_status verdict_status_at(size_t i)
{
    return statuses[i < NSTATUSES ? i : NSTATUSES - 1].id;
}

static const char *const device_types[DEVICE_NTYPES] = {
    [DEVICE_DISCRETE] = "discrete", [DEVICE_INTEGRATED] = "integrated",
    [DEVICE_VIRTUAL] = "virtual", [DEVICE_CPU] = "cpu", [DEVICE_OTHER] = "other",
};

const char *device_type_to_str(enum device_type t)
{
    return device_types[t < DEVICE_NTYPES ? t : DEVICE_OTHER];
}

enum device_type device_type_from_str(const char *name)
{
    for (size_t i = 0; name && i < DEVICE_NTYPES; i++)
        if (!strcmp(name, device_types[i]))
            return (enum device_type)i;
    return DEVICE_OTHER;
}

const char *grade_stage_to_str(enum grade_stage s)
{
    switch (s) {
    case STAGE_NONE: return "none";
    case STAGE_COMPILE: return "compile";
    case STAGE_RUN: return "run";
    case STAGE_NSTAGES: break;
    }
    return "none";
}

unsigned verdict_score(const struct verdict *v)
{
    unsigned n = 0;
    for (int h = 0; h < v->halves_run && h < EX_MAX_SWEEP; h++)
        n += v->halves[h].passed;
    return n;
}

const char *diag_severity_to_str(enum diag_severity s)
{
    return s == DIAG_WARNING ? "warning" : "error";
}

const char *verdict_status_to_str(enum verdict_status s)
{
    for (size_t i = 0; i < NSTATUSES; i++)
        if (statuses[i].id == s)
            return statuses[i].description;
    return "Unknown";
}

const char *verdict_status_slug(enum verdict_status s)
{
    for (size_t i = 0; i < NSTATUSES; i++)
        if (statuses[i].id == s)
            return statuses[i].slug;
    return "unknown";
}

bool verdict_status_is_runtime_error(enum verdict_status s)
{
    return s >= VERDICT_RUNTIME_SIGSEGV && s <= VERDICT_RUNTIME_OTHER;
}

static bool status_known(json_int_t id)
{
    for (size_t i = 0; i < NSTATUSES; i++)
        if ((json_int_t)statuses[i].id == id)
            return true;
    return false;
}

struct verdict *verdict_new(enum verdict_status status, const char *message)
{
    struct verdict *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->status = status;
    if (message && !(v->message = strdup(message))) {
        free(v);
        return NULL;
    }
    /* a stage that did not happen has no time: null in the JSON */
    v->timings = (struct verdict_timings){ -1, -1, -1, -1 };
    verdict_set_exercise(v, exercise_default());
    return v;
}

void verdict_set_exercise(struct verdict *v, const struct exercise *e)
{
    snprintf(v->task, sizeof v->task, "%s", e->id);
    v->grid_n = e->out_n;
    v->grid_planes = e->out_planes;
}

struct diagnosis *diagnosis_new(const char *id, const char *title,
                                const char *explanation, const char *hint)
{
    struct diagnosis *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->id = strdup(id ? id : "");
    d->title = strdup(title ? title : "");
    d->explanation = strdup(explanation ? explanation : "");
    d->hint = strdup(hint ? hint : "");
    if (!d->id || !d->title || !d->explanation || !d->hint) {
        diagnosis_free(d);
        return NULL;
    }
    return d;
}

bool diagnosis_set_more(struct diagnosis *d, const char *step, const char *more)
{
    char *copy = more ? strdup(more) : NULL;
    if (more && !copy)
        return false;
    free(d->more);
    d->more = copy;
    snprintf(d->step, sizeof d->step, "%s", step ? step : "");
    return true;
}

void diagnosis_free(struct diagnosis *d)
{
    if (!d)
        return;
    free(d->more);
    free(d->id);
    free(d->title);
    free(d->explanation);
    free(d->hint);
    free(d);
}

struct diagnostic *diagnostics_copy(const struct diagnostic *d, size_t n)
{
    struct diagnostic *out = calloc(n ? n : 1, sizeof *out);
    for (size_t i = 0; out && i < n; i++) {
        out[i] = d[i];
        out[i].message = strdup(d[i].message ? d[i].message : "");
        out[i].original = d[i].original ? strdup(d[i].original) : NULL;
        if (!out[i].message || (d[i].original && !out[i].original)) {
            diagnostics_free(out, i + 1);
            return NULL;
        }
    }
    return out;
}

void diagnostics_free(struct diagnostic *d, size_t n)
{
    if (!d)
        return;
    for (size_t i = 0; i < n; i++) {
        free(d[i].message);
        free(d[i].original);
    }
    free(d);
}

bool verdict_add_diagnostic(struct verdict *v, int line, enum diag_severity severity,
                            const char *message)
{
    char *m = strdup(message);
    struct diagnostic *grown = m ? realloc(v->diags, (v->ndiags + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(m);
        return false;
    }
    v->diags = grown;
    v->diags[v->ndiags++] = (struct diagnostic){ .line = line, .severity = severity,
                                                 .message = m };
    return true;
}

void verdict_free(struct verdict *v)
{
    if (!v)
        return;
    free(v->message);
    diagnosis_free(v->diagnosis);
    free(v->summary);
    free(v->loop);
    diagnostics_free(v->diags, v->ndiags);
    free(v->log);
    free(v->worked_cell);
    free(v->worked_cells);
    free(v);
}

void verdict_set_message(struct verdict *v, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    free(v->message);
    v->message = s;
}

void verdict_deadline_hit(struct verdict *v, unsigned deadline_ms, bool compiling)
{
    v->status = VERDICT_INTERNAL_ERROR;
    verdict_set_message(v, "The grader's time limit of %u ms ran out while %s: this machine "
                        "was too slow or too busy. It is the grader's limit, not a fault of "
                        "your code (every kernel within the cost limits finishes far inside "
                        "it); submit again.", deadline_ms,
                        compiling ? "compiling your kernel" : "the device compiled and ran "
                        "your kernel");
}

/* A JSON string even from bytes that are not UTF-8 (a log cut mid-character,
 * say): such bytes become '?'. NULL only when out of memory. */
static json_t *jstr(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    char *copy = strdup(s);
    if (!copy)
        return NULL;
    for (char *p = copy; *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    j = json_string(copy);
    free(copy);
    return j;
}

/* JSON has no NaN or infinity: such a value is null, named in *_text. */
static int set_float(json_t *obj, const char *key, double x)
{
    if (isfinite(x))
        return json_object_set_new(obj, key, json_real(x));
    char text_key[32];
    snprintf(text_key, sizeof text_key, "%s_text", key);
    json_object_set_new(obj, text_key,
                        json_string(isnan(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity"));
    return json_object_set_new(obj, key, json_null());
}

static json_t *half_to_json(const struct verdict *v, const struct half_result *h)
{
    json_t *cells = json_array();
    for (int y = 0; y < v->grid_planes; y++) {
        for (int x = 0; x < v->grid_n; x++) {
            const struct cell_result *c = &h->cells[y][x];
            /* expected goes through set_float like got: json_pack's "f"
             * fails on a NaN, which dropped the whole cell */
            json_t *cj = json_pack("{s:i, s:i}", "x", x, "y", y);
            set_float(cj, "expected", c->expected);
            json_object_set_new(cj, "passed", json_boolean(c->passed));
            set_float(cj, "got", c->got);
            json_array_append_new(cells, cj);
        }
    }
    return json_pack("{s:i, s:b, s:o, s:{s:i, s:i}}", "half", h->half, "passed", h->passed,
                     "cells", cells, "hidden", "passed", h->hidden_passed,
                     "total", h->hidden_total);
}

static json_t *diag_to_json(const struct diagnostic *d)
{
    return json_pack("{s:i, s:o, s:s, s:o, s:o}", "line", d->line,
                     "column", d->column > 0 ? json_integer(d->column) : json_null(),
                     "severity", diag_severity_to_str(d->severity),
                     "message", jstr(d->message ? d->message : ""),
                     "original", d->original ? jstr(d->original) : json_null());
}

static json_t *complex_to_json(struct complex_value c)
{
    return json_pack("{s:f, s:f}", "re", isfinite(c.re) ? c.re : 0.0,
                     "im", isfinite(c.im) ? c.im : 0.0);
}

static json_t *worked_cell_to_json(const struct worked_cell *w)
{
    json_t *j = json_pack("{s:i, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:o}",
                          "half", w->half, "spectrum", w->hidden ? "hidden" : "visible",
                          "i", w->i, "plane", w->plane, "j", w->j, "base", w->base,
                          "r", w->r, "partner", w->partner,
                          "a", complex_to_json(w->a), "b", complex_to_json(w->b),
                          "w", complex_to_json(w->w), "wb", complex_to_json(w->wb),
                          "due", jstr(w->due));
    if (!j)
        return NULL;
    set_float(j, "expected", w->expected);
    set_float(j, "got", w->got);
    json_object_set_new(j, "got_matches", w->got_matches[0] ? jstr(w->got_matches) : json_null());
    json_object_set_new(j, "matches", w->matches[0] ? jstr(w->matches) : json_null());
    json_object_set_new(j, "sign", json_integer(w->sign < 0 ? -1 : 1));
    json_object_set_new(j, "says", w->says[0] ? jstr(w->says) : json_null());
    json_object_set_new(j, "passed", json_boolean(w->passed));
    json_object_set_new(j, "kernel",
                        w->kernel_known
                            ? json_pack("{s:i, s:i, s:i, s:o}", "a_element", w->kernel_a,
                                        "b_element", w->kernel_b, "sign",
                                        w->kernel_sign < 0 ? -1 : 1, "w",
                                        complex_to_json(w->kernel_w))
                            : json_null());
    return j;
}

/* "worked_cell" and "worked_cells": each null unless the verdict has them. */
static void worked_cells_to_json(json_t *j, const struct verdict *v)
{
    json_object_set_new(j, "worked_cell",
                        v->worked_cell ? worked_cell_to_json(v->worked_cell) : json_null());
    json_t *all = json_null();
    if (v->worked_cells) {
        all = json_array();
        for (size_t k = 0; k < WORKED_CELLS; k++)
            json_array_append_new(all, worked_cell_to_json(&v->worked_cells[k]));
    }
    json_object_set_new(j, "worked_cells", all);
}

/* The loop that ran over its budget, or null. */
static json_t *loop_to_json(const struct verdict_loop *l)
{
    if (!l)
        return json_null();
    return json_pack("{s:o, s:i, s:i, s:s, s:i, s:i}",
                     "line", l->line > 0 ? json_integer(l->line) : json_null(),
                     "limit", (int)l->limit, "half", l->half,
                     "spectrum", l->hidden ? "hidden" : "visible", "i", l->i, "plane", l->plane);
}

static bool loop_from_json(const json_t *lj, struct verdict *v)
{
    if (!json_is_object(lj))
        return true;
    if (!(v->loop = calloc(1, sizeof *v->loop)))
        return false;
    v->loop->line = (int)json_integer_value(json_object_get(lj, "line"));
    v->loop->limit = (unsigned)json_integer_value(json_object_get(lj, "limit"));
    v->loop->half = (int)json_integer_value(json_object_get(lj, "half"));
    v->loop->hidden = !strcmp(json_string_value(json_object_get(lj, "spectrum")) ?: "", "hidden");
    v->loop->i = (int)json_integer_value(json_object_get(lj, "i"));
    v->loop->plane = (int)json_integer_value(json_object_get(lj, "plane"));
    return true;
}

static json_t *ms_or_null(double ms)
{
    return ms >= 0 ? json_real(ms) : json_null();
}

json_t *verdict_to_json(const struct verdict *v)
{
    json_t *halves = json_array();
    for (int i = 0; i < v->halves_run; i++)
        json_array_append_new(halves, half_to_json(v, &v->halves[i]));
    json_t *diags = json_array();
    for (size_t i = 0; i < v->ndiags; i++)
        json_array_append_new(diags, diag_to_json(&v->diags[i]));

    json_t *j = json_pack(
        "{s:i, s:s, s:{s:i, s:s, s:s}, s:b, s:o, s:o, s:o, s:o, s:b, s:o, s:{s:o, s:o, s:o, s:o}, s:I}",
        "schema", VERDICT_SCHEMA,
        "task", v->task,
        "status", "id", (int)v->status, "description", verdict_status_to_str(v->status),
            "slug", verdict_status_slug(v->status),
        "passed", v->status == VERDICT_ACCEPTED,
        "message", v->message ? jstr(v->message) : json_null(),
        "halves", halves,
        "diagnostics", diags,
        "compile_log", v->log ? jstr(v->log) : json_null(),
        "compile_log_truncated", v->log_truncated,
        "device", v->has_device
            ? json_pack("{s:o, s:s, s:o}", "name", jstr(v->device_name),
                        "type", device_type_to_str(v->device_type),
                        "driver", jstr(v->device_driver))
            : json_null(),
        "timings_ms",
            "compile", ms_or_null(v->timings.compile_ms),
            "pipeline", ms_or_null(v->timings.pipeline_ms),
            "run", ms_or_null(v->timings.run_ms),
            "total", ms_or_null(v->timings.total_ms),
        "seed", (json_int_t)v->seed);
    if (j) {
        json_object_set_new(j, "diagnosis", v->diagnosis
            ? json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "id", jstr(v->diagnosis->id),
                        "step", v->diagnosis->step[0] ? jstr(v->diagnosis->step) : json_null(),
                        "title", jstr(v->diagnosis->title),
                        "explanation", jstr(v->diagnosis->explanation),
                        "hint", jstr(v->diagnosis->hint),
                        "more", v->diagnosis->more ? jstr(v->diagnosis->more) : json_null())
            : json_null());
        json_object_set_new(j, "summary", v->summary ? jstr(v->summary) : json_null());
        json_object_set_new(j, "loop", loop_to_json(v->loop));
        worked_cells_to_json(j, v);
    }
    return j;
}

char *verdict_to_bytes(const struct verdict *v, size_t *len)
{
    json_t *j = verdict_to_json(v);
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(9)) : NULL;
    json_decref(j);
    if (text)
        *len = strlen(text);
    return text;
}

/* --- back from JSON -------------------------------------------------- */

static double get_ms(const json_t *t, const char *key)
{
    const json_t *x = json_object_get(t, key);
    return json_is_number(x) ? json_number_value(x) : -1;
}

static double get_float(const json_t *obj, const char *key)
{
    const json_t *x = json_object_get(obj, key);
    if (json_is_number(x))
        return json_number_value(x);
    char text_key[32];
    snprintf(text_key, sizeof text_key, "%s_text", key);
    const char *text = json_string_value(json_object_get(obj, text_key));
    if (text && !strcmp(text, "Infinity"))
        return INFINITY;
    if (text && !strcmp(text, "-Infinity"))
        return -INFINITY;
    return NAN;
}

/* The grid's dimensions from the shape of a half's cells (the largest x
 * and y, plus one); false when they are not a whole grid within EX_MAX_*. */
static bool grid_of(const json_t *cells, int *n, int *planes)
{
    json_int_t w = 0, ht = 0;
    size_t i;
    const json_t *cj;
    json_array_foreach(cells, i, cj) {
        json_int_t x = json_integer_value(json_object_get(cj, "x"));
        json_int_t y = json_integer_value(json_object_get(cj, "y"));
        if (x < 0 || x >= EX_MAX_N || y < 0 || y >= EX_MAX_PLANES)
            return false;
        w = x + 1 > w ? x + 1 : w;
        ht = y + 1 > ht ? y + 1 : ht;
    }
    if (w == 0 || (size_t)(w * ht) != json_array_size(cells))
        return false;
    *n = (int)w;
    *planes = (int)ht;
    return true;
}

/* A half of a grid n x planes (every half of a verdict has the same). */
static bool half_from_json(const json_t *hj, int n, int planes, struct half_result *h)
{
    const json_t *cells = json_object_get(hj, "cells");
    const json_t *hidden = json_object_get(hj, "hidden");
    if (!json_is_array(cells) || json_array_size(cells) != (size_t)(n * planes) ||
        !json_is_object(hidden))
        return false;
    h->half = (int)json_integer_value(json_object_get(hj, "half"));
    h->passed = json_is_true(json_object_get(hj, "passed"));
    h->hidden_passed = (int)json_integer_value(json_object_get(hidden, "passed"));
    h->hidden_total = (int)json_integer_value(json_object_get(hidden, "total"));
    size_t i;
    const json_t *cj;
    json_array_foreach(cells, i, cj) {
        json_int_t x = json_integer_value(json_object_get(cj, "x"));
        json_int_t y = json_integer_value(json_object_get(cj, "y"));
        if (x < 0 || x >= n || y < 0 || y >= planes)
            return false;
        struct cell_result *c = &h->cells[y][x];
        c->expected = get_float(cj, "expected");
        c->got = (float)get_float(cj, "got");
        c->passed = json_is_true(json_object_get(cj, "passed"));
    }
    return true;
}

/* An integer member within [lo, hi] into *out; false otherwise. */
static bool get_int_in(const json_t *obj, const char *key, int lo, int hi, int *out)
{
    const json_t *x = json_object_get(obj, key);
    if (!json_is_integer(x) || json_integer_value(x) < lo || json_integer_value(x) > hi)
        return false;
    *out = (int)json_integer_value(x);
    return true;
}

static bool complex_from_json(const json_t *obj, const char *key, struct complex_value *c)
{
    const json_t *x = json_object_get(obj, key);
    const json_t *re = json_object_get(x, "re"), *im = json_object_get(x, "im");
    if (!json_is_number(re) || !json_is_number(im))
        return false;
    *c = (struct complex_value){ json_number_value(re), json_number_value(im) };
    return true;
}

/* A string member that fits in buf (with its NUL); null fits as "" when nullable. */
static bool get_text(const json_t *obj, const char *key, bool nullable, char *buf, size_t size)
{
    const json_t *x = json_object_get(obj, key);
    if (nullable && json_is_null(x)) {
        buf[0] = '\0';
        return true;
    }
    if (!json_is_string(x) || json_string_length(x) >= size)
        return false;
    memcpy(buf, json_string_value(x), json_string_length(x) + 1);
    return true;
}

/* "kernel": absent or null (not solved), else the kernel's own numbers. */
static bool kernel_from_json(const json_t *wj, struct worked_cell *w)
{
    const json_t *k = json_object_get(wj, "kernel");
    w->kernel_known = false;
    if (!k || json_is_null(k))
        return true;
    if (!json_is_object(k))
        return false;
    w->kernel_known = true;
    return get_int_in(k, "a_element", 0, EX_MAX_N - 1, &w->kernel_a) &&
           get_int_in(k, "b_element", 0, EX_MAX_N - 1, &w->kernel_b) &&
           get_int_in(k, "sign", -1, 1, &w->kernel_sign) &&
           complex_from_json(k, "w", &w->kernel_w);
}

static bool worked_cell_from_json(const json_t *wj, struct worked_cell *w)
{
    const char *spectrum = json_string_value(json_object_get(wj, "spectrum"));
    if (!json_is_object(wj) || !spectrum ||
        (strcmp(spectrum, "visible") && strcmp(spectrum, "hidden")))
        return false;
    w->hidden = !strcmp(spectrum, "hidden");
    w->expected = get_float(wj, "expected");
    w->got = (float)get_float(wj, "got");
    w->passed = json_is_true(json_object_get(wj, "passed"));
    return get_int_in(wj, "half", 1, EX_MAX_N, &w->half) &&
           get_int_in(wj, "i", 0, EX_MAX_N - 1, &w->i) &&
           get_int_in(wj, "plane", 0, EX_MAX_PLANES - 1, &w->plane) &&
           get_int_in(wj, "j", 0, 1, &w->j) &&
           get_int_in(wj, "base", 0, EX_MAX_N - 1, &w->base) &&
           get_int_in(wj, "r", 0, EX_MAX_N - 1, &w->r) &&
           get_int_in(wj, "partner", 0, EX_MAX_N - 1, &w->partner) &&
           complex_from_json(wj, "a", &w->a) && complex_from_json(wj, "b", &w->b) &&
           complex_from_json(wj, "w", &w->w) && complex_from_json(wj, "wb", &w->wb) &&
           get_text(wj, "due", false, w->due, sizeof w->due) &&
           get_text(wj, "got_matches", true, w->got_matches, sizeof w->got_matches) &&
           get_text(wj, "matches", true, w->matches, sizeof w->matches) &&
           get_text(wj, "says", true, w->says, sizeof w->says) &&
           get_int_in(wj, "sign", -1, 1, &w->sign) && kernel_from_json(wj, w);
}

/* Reads "worked_cell" and "worked_cells" into v; false when either is
 * present and not null but malformed, or out of memory. */
static bool worked_cells_from_json(const json_t *j, struct verdict *v)
{
    const json_t *one = json_object_get(j, "worked_cell");
    if (one && !json_is_null(one)) {
        if (!(v->worked_cell = calloc(1, sizeof *v->worked_cell)) ||
            !worked_cell_from_json(one, v->worked_cell))
            return false;
    }
    const json_t *all = json_object_get(j, "worked_cells");
    if (all && !json_is_null(all)) {
        if (!json_is_array(all) || json_array_size(all) != WORKED_CELLS ||
            !(v->worked_cells = calloc(WORKED_CELLS, sizeof *v->worked_cells)))
            return false;
        for (size_t k = 0; k < WORKED_CELLS; k++)
            if (!worked_cell_from_json(json_array_get(all, k), &v->worked_cells[k]))
                return false;
    }
    return true;
}

struct verdict *verdict_from_json(const json_t *j)
{
    const json_t *status = json_object_get(j, "status");
    json_int_t id = json_integer_value(json_object_get(status, "id"));
    if (!json_is_object(j) || !status_known(id))
        return NULL;
    struct verdict *v = verdict_new((enum verdict_status)id,
                                    json_string_value(json_object_get(j, "message")));
    if (!v)
        return NULL;
    const json_t *task = json_object_get(j, "task");
    if (json_is_string(task) && json_string_length(task) <= EX_ID_MAX)
        snprintf(v->task, sizeof v->task, "%s", json_string_value(task));
    const json_t *halves = json_object_get(j, "halves");
    if (json_is_array(halves) && json_array_size(halves) <= EX_MAX_SWEEP) {
        size_t i;
        const json_t *hj;
        if (json_array_size(halves) > 0 &&
            !grid_of(json_object_get(json_array_get(halves, 0), "cells"), &v->grid_n,
                     &v->grid_planes))
            goto fail;
        json_array_foreach(halves, i, hj) {
            if (!half_from_json(hj, v->grid_n, v->grid_planes, &v->halves[i]))
                goto fail;
            v->halves_run = (int)i + 1;
        }
    }
    const json_t *diags = json_object_get(j, "diagnostics");
    size_t nd = json_array_size(diags);
    if (nd > 0) {
        v->diags = calloc(nd, sizeof *v->diags);
        if (!v->diags)
            goto fail;
        for (size_t i = 0; i < nd; i++) {
            const json_t *dj = json_array_get(diags, i);
            struct diagnostic *d = &v->diags[v->ndiags];
            const char *msg = json_string_value(json_object_get(dj, "message"));
            const char *original = json_string_value(json_object_get(dj, "original"));
            d->line = (int)json_integer_value(json_object_get(dj, "line"));
            d->column = (int)json_integer_value(json_object_get(dj, "column"));
            d->severity = !strcmp(json_string_value(json_object_get(dj, "severity")) ?: "",
                                  diag_severity_to_str(DIAG_WARNING)) ? DIAG_WARNING : DIAG_ERROR;
            if (!(d->message = strdup(msg ? msg : "")))
                goto fail;
            v->ndiags++;
            if (original && !(d->original = strdup(original)))
                goto fail;
        }
    }
    const char *log = json_string_value(json_object_get(j, "compile_log"));
    if (log && !(v->log = strdup(log)))
        goto fail;
    v->log_truncated = json_is_true(json_object_get(j, "compile_log_truncated"));
    const json_t *dev = json_object_get(j, "device");
    if (json_is_object(dev)) {
        v->has_device = true;
        v->device_type = device_type_from_str(json_string_value(json_object_get(dev, "type")));
        snprintf(v->device_name, sizeof v->device_name, "%s",
                 json_string_value(json_object_get(dev, "name")) ?: "");
        snprintf(v->device_driver, sizeof v->device_driver, "%s",
                 json_string_value(json_object_get(dev, "driver")) ?: "");
    }
    const json_t *t = json_object_get(j, "timings_ms");
    v->timings.compile_ms = get_ms(t, "compile");
    v->timings.pipeline_ms = get_ms(t, "pipeline");
    v->timings.run_ms = get_ms(t, "run");
    v->timings.total_ms = get_ms(t, "total");
    v->seed = (uint64_t)json_integer_value(json_object_get(j, "seed"));
    const json_t *dg = json_object_get(j, "diagnosis");
    if (json_is_object(dg) &&
        !(v->diagnosis = diagnosis_new(json_string_value(json_object_get(dg, "id")),
                                       json_string_value(json_object_get(dg, "title")),
                                       json_string_value(json_object_get(dg, "explanation")),
                                       json_string_value(json_object_get(dg, "hint")))))
        goto fail;
    if (v->diagnosis &&
        !diagnosis_set_more(v->diagnosis, json_string_value(json_object_get(dg, "step")),
                            json_string_value(json_object_get(dg, "more"))))
        goto fail;
    const char *summary = json_string_value(json_object_get(j, "summary"));
    if (summary && !(v->summary = strdup(summary)))
        goto fail;
    if (!loop_from_json(json_object_get(j, "loop"), v) || !worked_cells_from_json(j, v))
        goto fail;
    return v;
fail:
    verdict_free(v);
    return NULL;
}

struct verdict *verdict_from_bytes(const char *bytes, size_t len)
{
    json_t *j = json_loadb(bytes, len, 0, NULL);
    struct verdict *v = j ? verdict_from_json(j) : NULL;
    json_decref(j);
    return v;
}
