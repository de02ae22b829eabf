/* exercise_load.c - exercise.json and its folder's files into a struct
 * exercise. Everything is checked before it is used: a definition is
 * written by an author, not by us, and the grader trusts every size in it
 * (the harness sizes its buffers by them). */
#include "common/exercise/exercise_load.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/exercise/exercise_headers.h"

/* What one load is doing: where messages go and what is being built. */
struct load {
    const char *dir;
    char *err;
    size_t errlen;
    struct exercise *e;
};

/* One message "DIR/FILE: WHERE: WHAT"; always false, for `return fail(...)`. */
static bool fail(struct load *l, const char *file, const char *where, const char *fmt, ...)
{
    if (!l->err || l->errlen == 0)
        return false;
    size_t dirlen = strlen(l->dir);
    while (dirlen > 1 && l->dir[dirlen - 1] == '/')
        dirlen--;
    int n = snprintf(l->err, l->errlen, "%.*s/%s: %s%s", (int)dirlen, l->dir, file,
                     where ? where : "",
                     where && *where ? ": " : "");
    if (n < 0 || (size_t)n >= l->errlen)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->err + n, l->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

#define JSON_FILE "exercise.json"

/* A value as the message quotes it, short and printable. */
static void got(const json_t *v, char *out, size_t n)
{
    char *text = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15)) : NULL;
    snprintf(out, n, "%s", text ? text : "?");
    free(text);
    size_t len = strlen(out);
    if (len + 1 == n && n > 4)
        memcpy(out + n - 4, "...", 4);
}

/* "base.key", or "key" at the top. */
static void join(char *out, size_t n, const char *base, const char *key)
{
    /* a path past the buffer is cut, and a cut path still names the field */
    if (snprintf(out, n, "%s%s%s", base, *base ? "." : "", key) >= (int)n)
        out[n - 1] = '\0';
}

static void join_index(char *out, size_t n, const char *base, size_t i)
{
    if (snprintf(out, n, "%s[%zu]", base, i) >= (int)n)
        out[n - 1] = '\0';
}

#define PATH_MAX_LEN 96
#define GOT_LEN 48

/* Every key of `obj` is one of `keys` (NULL-terminated): a typo in an
 * optional field would otherwise be silently a default. */
static bool only_fields(struct load *l, const json_t *obj, const char *path,
                        const char *const *keys)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        bool known = false;
        for (const char *const *k = keys; *k; k++)
            known = known || strcmp(*k, key) == 0;
        if (known)
            continue;
        char list[256] = "";
        for (const char *const *k = keys; *k; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     k == keys ? "" : ", ", *k);
        char where[PATH_MAX_LEN];
        char name[GOT_LEN];
        snprintf(name, sizeof name, "%s", key);
        join(where, sizeof where, path, name);
        return fail(l, JSON_FILE, where, "unknown field (%s holds: %s)",
                    *path ? path : "the definition", list);
    }
    return true;
}

/* obj[key], or a message that it is missing (`want` says what is due). */
static const json_t *need(struct load *l, const json_t *obj, const char *path, const char *key,
                          const char *want)
{
    const json_t *v = json_object_get(obj, key);
    if (!v) {
        char where[PATH_MAX_LEN];
        join(where, sizeof where, path, key);
        fail(l, JSON_FILE, where, "missing (%s)", want);
    }
    return v;
}

static bool is_object(struct load *l, const json_t *v, const char *where)
{
    if (json_is_object(v))
        return true;
    char g[GOT_LEN];
    got(v, g, sizeof g);
    return fail(l, JSON_FILE, where, "must be an object (got %s)", g);
}

/* An integer field in [lo, hi]; `bound` names where hi comes from. */
static bool int_at(struct load *l, const json_t *v, const char *where, long long lo, long long hi,
                   const char *bound, int *out)
{
    if (json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi) {
        *out = (int)json_integer_value(v);
        return true;
    }
    char g[GOT_LEN];
    got(v, g, sizeof g);
    return fail(l, JSON_FILE, where, "must be an integer from %lld to %lld%s (got %s)", lo, hi,
                bound ? bound : "", g);
}

static bool int_field(struct load *l, const json_t *obj, const char *path, const char *key,
                      long long lo, long long hi, const char *bound, int *out)
{
    char want[96], where[PATH_MAX_LEN];
    snprintf(want, sizeof want, "an integer from %lld to %lld", lo, hi);
    const json_t *v = need(l, obj, path, key, want);
    join(where, sizeof where, path, key);
    return v && int_at(l, v, where, lo, hi, bound, out);
}

static bool number_field(struct load *l, const json_t *obj, const char *path, const char *key,
                         double *out)
{
    char where[PATH_MAX_LEN];
    const json_t *v = need(l, obj, path, key, "a number");
    join(where, sizeof where, path, key);
    if (!v)
        return false;
    if (!json_is_number(v) || !isfinite(json_number_value(v))) {
        char g[GOT_LEN];
        got(v, g, sizeof g);
        return fail(l, JSON_FILE, where, "must be a number (got %s)", g);
    }
    *out = json_number_value(v);
    return true;
}

static char *copy(struct load *l, const char *s, size_t len)
{
    char *c = malloc(len + 1);
    if (!c) {
        fail(l, JSON_FILE, NULL, "out of memory");
        return NULL;
    }
    memcpy(c, s, len);
    c[len] = '\0';
    return c;
}

/* A string field of one line, copied into *out (owned by the exercise). */
static bool text_field(struct load *l, const json_t *obj, const char *path, const char *key,
                       size_t max, const char **out)
{
    char want[96], where[PATH_MAX_LEN];
    snprintf(want, sizeof want, "a string of 1 to %zu bytes", max);
    const json_t *v = need(l, obj, path, key, want);
    join(where, sizeof where, path, key);
    if (!v)
        return false;
    if (!json_is_string(v) ||
        !exercise_headers_text_ok(json_string_value(v), json_string_length(v), max)) {
        char g[GOT_LEN];
        got(v, g, sizeof g);
        return fail(l, JSON_FILE, where,
                    "must be a string of 1 to %zu bytes, one line, no control characters (got %s)",
                    max, g);
    }
    return (*out = copy(l, json_string_value(v), json_string_length(v))) != NULL;
}

/* Names the harness itself defines, and GLSL words a name cannot be. */
static const char *const reserved_names[] = {
    "this", "PI", "main", "float", "int", "uint", "bool", "void", "vec2",
    "vec3", "vec4", "if", "else", "for", "while", "do", "return", "break", "continue",
    "const", "true", "false", "in", "out", "inout", "uniform", "buffer", "shared", "struct",
    "discard", "switch", "case", "default", "layout", "precision", "double", NULL,
};

/* A GLSL identifier the harness can #define or name a function: not the
 * harness's own (bf_*), not GLSL's (gl_*, __), not a keyword. */
static bool glsl_name_ok(const char *s, size_t len)
{
    if (len == 0 || len > EX_LOAD_MAX_NAME || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    if (strncmp(s, "gl_", 3) == 0 || strncmp(s, "bf_", 3) == 0 || strstr(s, "__"))
        return false;
    for (const char *const *r = reserved_names; *r; r++)
        if (strcmp(*r, s) == 0)
            return false;
    return true;
}

static bool name_field(struct load *l, const json_t *obj, const char *path, const char *key,
                       const char **out)
{
    char where[PATH_MAX_LEN];
    const json_t *v = need(l, obj, path, key, "a GLSL identifier");
    join(where, sizeof where, path, key);
    if (!v)
        return false;
    if (!json_is_string(v) || !glsl_name_ok(json_string_value(v), json_string_length(v))) {
        char g[GOT_LEN];
        got(v, g, sizeof g);
        return fail(l, JSON_FILE, where,
                    "must be a GLSL identifier of 1 to %d bytes, not a keyword, not this or PI, "
                    "not starting bf_ or gl_ (got %s)", EX_LOAD_MAX_NAME, g);
    }
    return (*out = copy(l, json_string_value(v), json_string_length(v))) != NULL;
}

/* An object field, with only `keys` in it. */
static const json_t *object_field(struct load *l, const json_t *obj, const char *path,
                                  const char *key, const char *const *keys, char *where, size_t n)
{
    const json_t *v = need(l, obj, path, key, "an object");
    join(where, n, path, key);
    if (!v || !is_object(l, v, where) || !only_fields(l, v, where, keys))
        return NULL;
    return v;
}

bool exercise_id_valid(const char *id)
{
    size_t len = id ? strlen(id) : 0;
    if (len == 0 || len > EX_ID_MAX)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= '0' && id[i] <= '9') || id[i] == '_' ||
              id[i] == '-'))
            return false;
    return true;
}

/* The folder's own name, the last component of dir: what the id must be. */
static const char *folder_name(const char *dir, size_t *len)
{
    const char *end = dir + strlen(dir);
    while (end > dir && end[-1] == '/')
        end--;
    const char *start = end;
    while (start > dir && start[-1] != '/')
        start--;
    *len = (size_t)(end - start);
    return start;
}

static bool load_id(struct load *l, const json_t *root)
{
    const json_t *v = need(l, root, "", "id", "the folder's name, [a-z0-9_-]");
    if (!v)
        return false;
    char g[GOT_LEN];
    got(v, g, sizeof g);
    if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v) ||
        !exercise_id_valid(json_string_value(v)))
        return fail(l, JSON_FILE, "id", "must be 1 to %d bytes of [a-z0-9_-] (got %s)", EX_ID_MAX,
                    g);
    if (!strcmp(json_string_value(v), EX_ID_ALL))
        return fail(l, JSON_FILE, "id", "cannot be \"" EX_ID_ALL "\": it names every exercise "
                    "(?task=" EX_ID_ALL ", --task " EX_ID_ALL ")");
    size_t flen;
    const char *folder = folder_name(l->dir, &flen);
    if (flen != json_string_length(v) || memcmp(folder, json_string_value(v), flen) != 0)
        return fail(l, JSON_FILE, "id", "must be the folder's name \"%.*s\" (got %s)",
                    (int)(flen < EX_ID_MAX + 1 ? flen : EX_ID_MAX + 1), folder, g);
    return (l->e->id = copy(l, json_string_value(v), json_string_length(v))) != NULL;
}

static bool load_course(struct load *l, const json_t *root)
{
    if (!json_object_get(root, "course"))
        return true;   /* an exercise of no course */
    static const char *const keys[] = { "name", "order", NULL };
    char where[PATH_MAX_LEN];
    const json_t *c = object_field(l, root, "", "course", keys, where, sizeof where);
    return c && text_field(l, c, where, "name", EX_LOAD_MAX_TEXT, &l->e->course) &&
           int_field(l, c, where, "order", 1, EX_LOAD_MAX_ORDER, NULL, &l->e->order);
}

static bool load_kernel(struct load *l, const json_t *root)
{
    static const char *const keys[] = { "function", "signature", "api", NULL };
    static const char *const row_keys[] = { "name", "type", "meaning", NULL };
    char where[PATH_MAX_LEN];
    struct exercise *e = l->e;
    const json_t *k = object_field(l, root, "", "kernel", keys, where, sizeof where);
    if (!k || !name_field(l, k, where, "function", &e->function) ||
        !text_field(l, k, where, "signature", EX_LOAD_MAX_TEXT, &e->signature))
        return false;
    const json_t *api = need(l, k, where, "api", "an array of {name, type, meaning}");
    char api_where[PATH_MAX_LEN];
    join(api_where, sizeof api_where, where, "api");
    if (!api)
        return false;
    if (!json_is_array(api) || json_array_size(api) == 0 || json_array_size(api) > EX_MAX_API) {
        char g[GOT_LEN];
        got(api, g, sizeof g);
        return fail(l, JSON_FILE, api_where, "must be an array of 1 to %d rows (got %s)",
                    EX_MAX_API, g);
    }
    for (size_t i = 0; i < json_array_size(api); i++) {
        char row_where[PATH_MAX_LEN];
        join_index(row_where, sizeof row_where, api_where, i);
        const json_t *row = json_array_get(api, i);
        struct exercise_api_name *a = &e->api[i];
        if (!is_object(l, row, row_where) || !only_fields(l, row, row_where, row_keys) ||
            !text_field(l, row, row_where, "name", EX_LOAD_MAX_NAME, &a->name) ||
            !text_field(l, row, row_where, "type", EX_LOAD_MAX_NAME, &a->type) ||
            !text_field(l, row, row_where, "meaning", EX_LOAD_MAX_TEXT, &a->meaning))
            return false;
        e->napi = i + 1;
    }
    return true;
}

static const char per_run[] = ", the per-run bound";

/* input.hidden: k / grid for integer k in [min * grid, max * grid]. */
static bool load_hidden(struct load *l, const json_t *input, const char *input_where)
{
    static const char *const keys[] = { "min", "max", "grid", NULL };
    char where[PATH_MAX_LEN], at[PATH_MAX_LEN];
    struct exercise *e = l->e;
    const json_t *h = object_field(l, input, input_where, "hidden", keys, where, sizeof where);
    double lo, hi;
    if (!h || !int_field(l, h, where, "grid", 1, EX_LOAD_MAX_GRID, NULL, &e->hidden_grid) ||
        !number_field(l, h, where, "min", &lo) || !number_field(l, h, where, "max", &hi))
        return false;
    join(at, sizeof at, where, "grid");
    if ((e->hidden_grid & (e->hidden_grid - 1)) != 0)
        return fail(l, JSON_FILE, at,
                    "must be a power of two, so that every k / grid is exact in float (got %d)",
                    e->hidden_grid);
    /* times a power of two: exact in double, so the test below is too */
    double k[2] = { lo * e->hidden_grid, hi * e->hidden_grid };
    const char *names[2] = { "min", "max" };
    for (int i = 0; i < 2; i++) {
        join(at, sizeof at, where, names[i]);
        if (k[i] != floor(k[i]))
            return fail(l, JSON_FILE, at,
                        "must be on the grid: %s * grid must be an integer (got %.15g * %d)",
                        names[i], i ? hi : lo, e->hidden_grid);
        if (fabs(k[i]) > EX_LOAD_MAX_HIDDEN_K)
            return fail(l, JSON_FILE, at,
                        "%s * grid must be within +-%d, exact in float (got %.15g)",
                        names[i], EX_LOAD_MAX_HIDDEN_K, k[i]);
    }
    if (lo > hi)
        return fail(l, JSON_FILE, at, "must not be below min (got min %.15g, max %.15g)", lo, hi);
    e->hidden_lo = (int)k[0];
    e->hidden_hi = (int)k[1];
    return true;
}

static bool load_input(struct load *l, const json_t *root)
{
    static const char *const keys[] = { "name", "n", "planes", "hidden", NULL };
    char where[PATH_MAX_LEN];
    struct exercise *e = l->e;
    const json_t *in = object_field(l, root, "", "input", keys, where, sizeof where);
    return in && name_field(l, in, where, "name", &e->input) &&
           int_field(l, in, where, "n", 1, EX_MAX_N, per_run, &e->in_n) &&
           int_field(l, in, where, "planes", 1, EX_MAX_PLANES, per_run, &e->in_planes) &&
           load_hidden(l, in, where);
}

/* visible: one array of in_n numbers per input plane, each exact in float
 * (the page shows it in decimal, the kernel reads it as a float: they must
 * be the same number). */
static bool load_visible(struct load *l, const json_t *root)
{
    struct exercise *e = l->e;
    const json_t *v = need(l, root, "", "visible", "one array of numbers per input plane");
    if (!v)
        return false;
    char g[GOT_LEN];
    if (!json_is_array(v) || json_array_size(v) != (size_t)e->in_planes) {
        got(v, g, sizeof g);
        return fail(l, JSON_FILE, "visible",
                    "must hold one array per input plane, input.planes = %d (got %s)",
                    e->in_planes, g);
    }
    for (int p = 0; p < e->in_planes; p++) {
        char where[PATH_MAX_LEN];
        join_index(where, sizeof where, "visible", (size_t)p);
        const json_t *plane = json_array_get(v, (size_t)p);
        if (!json_is_array(plane) || json_array_size(plane) != (size_t)e->in_n) {
            got(plane, g, sizeof g);
            return fail(l, JSON_FILE, where, "must hold input.n = %d numbers (got %s)", e->in_n, g);
        }
        for (int k = 0; k < e->in_n; k++) {
            char at[PATH_MAX_LEN];
            join_index(at, sizeof at, where, (size_t)k);
            const json_t *x = json_array_get(plane, (size_t)k);
            got(x, g, sizeof g);
            if (!json_is_number(x))
                return fail(l, JSON_FILE, at, "must be a number (got %s)", g);
            double d = json_number_value(x);
            if (!isfinite(d) || fabs(d) > 3.0e38 || (double)(float)d != d)
                return fail(l, JSON_FILE, at,
                            "must be exact in float (got %s; the nearest float is %.9g)", g,
                            (double)(float)d);
            e->visible[p][k] = (float)d;
        }
    }
    return true;
}

/* output and dispatch: one thread per output cell, so the dispatch is the
 * output's shape and nothing else. */
static bool load_output(struct load *l, const json_t *root)
{
    static const char *const out_keys[] = { "n", "planes", NULL };
    static const char *const dispatch_keys[] = { "x", "y", NULL };
    char where[PATH_MAX_LEN];
    struct exercise *e = l->e;
    const json_t *out = object_field(l, root, "", "output", out_keys, where, sizeof where);
    if (!out || !int_field(l, out, where, "n", 1, EX_MAX_N, per_run, &e->out_n) ||
        !int_field(l, out, where, "planes", 1, EX_MAX_PLANES, per_run, &e->out_planes))
        return false;
    const json_t *d = object_field(l, root, "", "dispatch", dispatch_keys, where, sizeof where);
    int x, y;
    if (!d || !int_field(l, d, where, "x", 1, EX_MAX_N, per_run, &x) ||
        !int_field(l, d, where, "y", 1, EX_MAX_PLANES, per_run, &y))
        return false;
    if (x != e->out_n)
        return fail(l, JSON_FILE, "dispatch.x",
                    "must equal output.n, one thread per output cell (got %d, output.n is %d)", x,
                    e->out_n);
    if (y != e->out_planes)
        return fail(l, JSON_FILE, "dispatch.y",
                    "must equal output.planes, one thread per output cell (got %d, output.planes "
                    "is %d)", y, e->out_planes);
    return true;
}

static bool load_parameter(struct load *l, const json_t *root)
{
    static const char *const keys[] = { "name", "values", NULL };
    char where[PATH_MAX_LEN], at[PATH_MAX_LEN];
    struct exercise *e = l->e;
    const json_t *p = object_field(l, root, "", "parameter", keys, where, sizeof where);
    if (!p || !name_field(l, p, where, "name", &e->param))
        return false;
    const json_t *values = need(l, p, where, "values", "an array of 1 to 4 integers");
    join(at, sizeof at, where, "values");
    if (!values)
        return false;
    if (!json_is_array(values) || json_array_size(values) == 0 ||
        json_array_size(values) > EX_MAX_SWEEP) {
        char g[GOT_LEN];
        got(values, g, sizeof g);
        return fail(l, JSON_FILE, at, "must be an array of 1 to %d values%s (got %s)",
                    EX_MAX_SWEEP, per_run, g);
    }
    for (size_t i = 0; i < json_array_size(values); i++) {
        char vat[PATH_MAX_LEN];
        join_index(vat, sizeof vat, at, i);
        if (!int_at(l, json_array_get(values, i), vat, -EX_LOAD_MAX_PARAM, EX_LOAD_MAX_PARAM,
                    NULL, &e->sweep[i]))
            return false;
        for (size_t j = 0; j < i; j++)
            if (e->sweep[j] == e->sweep[i])
                return fail(l, JSON_FILE, vat, "repeats %d: each value once", e->sweep[i]);
        e->nsweep = i + 1;
    }
    /* the kernel reads all three names: they must be three */
    if (strcmp(e->param, e->input) == 0 || strcmp(e->param, e->function) == 0)
        return fail(l, JSON_FILE, "parameter.name",
                    "must differ from input.name and kernel.function (got \"%s\")", e->param);
    if (strcmp(e->input, e->function) == 0)
        return fail(l, JSON_FILE, "input.name", "must differ from kernel.function (got \"%s\")",
                    e->input);
    return true;
}

static bool load_tolerance(struct load *l, const json_t *root)
{
    static const char *const keys[] = { "atol", "rtol", NULL };
    char where[PATH_MAX_LEN], at[PATH_MAX_LEN];
    const json_t *t = object_field(l, root, "", "tolerance", keys, where, sizeof where);
    if (!t || !number_field(l, t, where, "atol", &l->e->atol) ||
        !number_field(l, t, where, "rtol", &l->e->rtol))
        return false;
    double both[2] = { l->e->atol, l->e->rtol };
    const char *names[2] = { "atol", "rtol" };
    for (int i = 0; i < 2; i++) {
        join(at, sizeof at, where, names[i]);
        if (!(both[i] >= 0.0))
            return fail(l, JSON_FILE, at, "must be 0 or more (got %.15g)", both[i]);
    }
    return true;
}

static bool load_rest(struct load *l, const json_t *root)
{
    struct exercise *e = l->e;
    const json_t *ex = json_object_get(root, "example");
    if (ex && !json_is_boolean(ex)) {
        char g[GOT_LEN];
        got(ex, g, sizeof g);
        return fail(l, JSON_FILE, "example", "must be true or false (got %s)", g);
    }
    e->example = ex && json_is_true(ex);
    int budget;
    if (!int_field(l, root, "", "hidden_per_value", 0, EX_MAX_HIDDEN, per_run, &e->hidden) ||
        !int_field(l, root, "", "loop_budget", 1, EX_LOAD_MAX_LOOP_BUDGET, NULL, &budget))
        return false;
    e->loop_budget = (unsigned)budget;
    const json_t *d = json_object_get(root, "diagnosis");
    if (!d)
        return true;   /* the named mistakes only */
    if (!json_is_string(d) || strcmp(json_string_value(d), "butterfly") != 0 ||
        json_string_length(d) != strlen("butterfly")) {
        char g[GOT_LEN];
        got(d, g, sizeof g);
        return fail(l, JSON_FILE, "diagnosis",
                    "unknown diagnosis %s (known: \"butterfly\"; leave it out for the named "
                    "mistakes only)", g);
    }
    return (e->diagnosis = copy(l, "butterfly", strlen("butterfly"))) != NULL;
}

/* ---- the folder's files ---- */

static const struct exercise_file *find_file(const struct exercise_file *files, size_t n,
                                             const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (files[i].name && strcmp(files[i].name, name) == 0)
            return &files[i];
    return NULL;
}

/* A file's text: bounded, no NUL inside (every body is a C string), UTF-8
 * (the page and the JSON answers carry it). */
static bool file_text_ok(struct load *l, const struct exercise_file *f)
{
    if (f->len > EX_LOAD_MAX_FILE)
        return fail(l, f->name, NULL, "is %zu bytes, over the bound of %d", f->len,
                    EX_LOAD_MAX_FILE);
    if (f->len && (!f->text || memchr(f->text, '\0', f->len)))
        return fail(l, f->name, NULL, "holds a NUL byte");
    json_t *s = json_stringn(f->len ? f->text : "", f->len);
    json_decref(s);
    return s ? true : fail(l, f->name, NULL, "is not UTF-8");
}

/* solutions/NAME.glsl's first line: what it must get. */
static bool read_expect(struct load *l, const struct exercise_file *f, struct exercise_solution *s)
{
    char mistake[EX_ID_MAX + 1], why[EX_LOAD_MAX_ERROR];
    if (!exercise_headers_expect(f->text, f->len, &s->expect, mistake, why, sizeof why))
        return fail(l, f->name, "line 1", "%s", why);
    return !mistake[0] || (s->mistake = copy(l, mistake, strlen(mistake))) != NULL;
}

/* mistakes/ID.glsl's header: its title, explanation and hint. */
static bool read_mistake_header(struct load *l, const struct exercise_file *f,
                                struct exercise_mistake *m)
{
    struct exercise_mistake_header *h = malloc(sizeof *h);
    char why[EX_LOAD_MAX_ERROR];
    const char *field = "";
    if (!h)
        return fail(l, f->name, NULL, "out of memory");
    bool ok = exercise_headers_mistake(f->text, f->len, h, &field, why, sizeof why);
    if (!ok)
        fail(l, f->name, field, "%s", why);
    ok = ok && (m->title = copy(l, h->title, strlen(h->title))) &&
         (m->explanation = copy(l, h->explanation, strlen(h->explanation))) &&
         (!h->hint[0] || (m->hint = copy(l, h->hint, strlen(h->hint))));
    free(h);
    return ok;
}

/* "DIR/NAME.glsl" -> NAME, when the name is DIR/ID.glsl with no folder in ID. */
static bool glsl_in(const char *name, const char *dir, const char **base, size_t *blen)
{
    size_t d = strlen(dir), n = strlen(name);
    if (n <= d + 5 || memcmp(name, dir, d) != 0 || strcmp(name + n - 5, ".glsl") != 0)
        return false;
    *base = name + d;
    *blen = n - d - 5;
    return memchr(*base, '/', *blen) == NULL;
}

/* A solution's or mistake's name, the part before .glsl, is an id: a
 * mistake's name is its id, and both are named in messages and pages. */
static bool name_is_id(struct load *l, const struct exercise_file *f, const char *base,
                       size_t blen, char id[EX_ID_MAX + 1])
{
    id[0] = '\0';
    if (blen <= EX_ID_MAX) {
        memcpy(id, base, blen);
        id[blen] = '\0';
    }
    if (exercise_id_valid(id))
        return true;
    return fail(l, f->name, NULL,
                "the file's name must be 1 to %d bytes of [a-z0-9_-], then .glsl", EX_ID_MAX);
}

static bool load_files(struct load *l, const struct exercise_file *files, size_t nfiles)
{
    struct exercise *e = l->e;
    if (nfiles > EX_LOAD_MAX_FILES)
        return fail(l, "", NULL, "holds %zu files, over the bound of %d", nfiles,
                    EX_LOAD_MAX_FILES);
    for (size_t i = 0; i < nfiles; i++) {
        if (!files[i].name)
            return fail(l, "", NULL, "a file without a name");
        for (size_t j = 0; j < i; j++)
            if (files[j].name && strcmp(files[i].name, files[j].name) == 0)
                return fail(l, files[i].name, NULL, "given twice");
    }
    static const struct { const char *name, *what; size_t off; } needed[] = {
        { "README.md", "the brief shown on the page, Markdown", offsetof(struct exercise, brief) },
        { "starter.glsl", "the body a student starts from", offsetof(struct exercise, starter) },
    };
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++) {
        const struct exercise_file *f = find_file(files, nfiles, needed[i].name);
        if (!f)
            return fail(l, needed[i].name, NULL, "missing (%s)", needed[i].what);
        const char **out = (const char **)((char *)e + needed[i].off);
        if (!file_text_ok(l, f) || !(*out = copy(l, f->len ? f->text : "", f->len)))
            return false;
    }
    size_t nsol = 0, nmis = 0;
    const char *base;
    size_t blen;
    for (size_t i = 0; i < nfiles; i++) {
        nsol += glsl_in(files[i].name, "solutions/", &base, &blen);
        nmis += glsl_in(files[i].name, "mistakes/", &base, &blen);
    }
    struct exercise_solution *sol = nsol ? calloc(nsol, sizeof *sol) : NULL;
    struct exercise_mistake *mis = nmis ? calloc(nmis, sizeof *mis) : NULL;
    e->solutions = sol;
    e->mistakes = mis;
    if ((nsol && !sol) || (nmis && !mis))
        return fail(l, "", NULL, "out of memory");
    /* mistakes first: a solution may name one */
    for (size_t i = 0; i < nfiles; i++) {
        if (!glsl_in(files[i].name, "mistakes/", &base, &blen))
            continue;
        struct exercise_mistake *m = &mis[e->nmistakes++];
        char id[EX_ID_MAX + 1];
        if (!name_is_id(l, &files[i], base, blen, id))
            return false;
        if (!file_text_ok(l, &files[i]) || !(m->id = copy(l, id, blen)) ||
            !read_mistake_header(l, &files[i], m) ||
            !(m->body = copy(l, files[i].text ? files[i].text : "", files[i].len)))
            return false;
        m->len = files[i].len;
    }
    bool accepted = false;
    for (size_t i = 0; i < nfiles; i++) {
        if (!glsl_in(files[i].name, "solutions/", &base, &blen))
            continue;
        struct exercise_solution *s = &sol[e->nsolutions++];
        char id[EX_ID_MAX + 1];
        if (!name_is_id(l, &files[i], base, blen, id) || !file_text_ok(l, &files[i]) ||
            !(s->file = copy(l, files[i].name, strlen(files[i].name))) ||
            !read_expect(l, &files[i], s) ||
            !(s->body = copy(l, files[i].text ? files[i].text : "", files[i].len)))
            return false;
        s->len = files[i].len;
        accepted = accepted || s->expect == EXPECT_ACCEPTED;
        if (!s->mistake || e->diagnosis)
            continue;   /* the built-in diagnosis knows ids of its own */
        bool named = false;
        for (size_t m = 0; m < e->nmistakes; m++)
            named = named || strcmp(mis[m].id, s->mistake) == 0;
        if (!named)
            return fail(l, files[i].name, "line 1",
                        "names the mistake \"%s\", but there is no mistakes/%s.glsl", s->mistake,
                        s->mistake);
    }
    if (!accepted)
        return fail(l, "solutions/", NULL,
                    "no solution says \"// expect: accepted\": the check on load needs one right "
                    "answer to grade");
    return true;
}

struct exercise *exercise_load(const char *dir, const char *json, size_t json_len,
                               const struct exercise_file *files, size_t nfiles,
                               char *err, size_t errlen)
{
    struct load l = { dir ? dir : "?", err, errlen, NULL };
    if (err && errlen)
        err[0] = '\0';
    if (json_len > EX_LOAD_MAX_JSON) {
        fail(&l, JSON_FILE, NULL, "is %zu bytes, over the bound of %d", json_len, EX_LOAD_MAX_JSON);
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json ? json_loadb(json, json_len, JSON_REJECT_DUPLICATES, &jerr) : NULL;
    if (!root) {
        fail(&l, JSON_FILE, NULL, "line %d column %d: %s", json ? jerr.line : 0,
             json ? jerr.column : 0, json ? jerr.text : "no text");
        return NULL;
    }
    static const char *const keys[] = {
        "id", "title", "subtitle", "course", "example", "kernel", "input", "visible", "output",
        "dispatch", "parameter", "hidden_per_value", "tolerance", "loop_budget", "diagnosis",
        NULL,
    };
    l.e = calloc(1, sizeof *l.e);
    bool ok = l.e && is_object(&l, root, "(the whole file)") && only_fields(&l, root, "", keys) &&
              load_id(&l, root) &&
              text_field(&l, root, "", "title", EX_LOAD_MAX_TEXT, &l.e->title) &&
              text_field(&l, root, "", "subtitle", EX_LOAD_MAX_TEXT, &l.e->subtitle) &&
              load_course(&l, root) && load_kernel(&l, root) && load_input(&l, root) &&
              load_visible(&l, root) && load_output(&l, root) && load_parameter(&l, root) &&
              load_tolerance(&l, root) && load_rest(&l, root) && load_files(&l, files, nfiles);
    if (!l.e)
        fail(&l, JSON_FILE, NULL, "out of memory");
    json_decref(root);
    if (ok)
        return l.e;
    exercise_load_free(l.e);
    return NULL;
}

void exercise_load_free(struct exercise *e)
{
    if (!e)
        return;
    /* every string below is the loader's own copy (const only to readers) */
    free((char *)e->id);
    free((char *)e->title);
    free((char *)e->subtitle);
    free((char *)e->course);
    free((char *)e->brief);
    free((char *)e->starter);
    free((char *)e->function);
    free((char *)e->signature);
    for (size_t i = 0; i < EX_MAX_API; i++) {
        free((char *)e->api[i].name);
        free((char *)e->api[i].type);
        free((char *)e->api[i].meaning);
    }
    free((char *)e->input);
    free((char *)e->param);
    free((char *)e->diagnosis);
    for (size_t i = 0; i < e->nsolutions; i++) {
        free((char *)e->solutions[i].file);
        free((char *)e->solutions[i].body);
        free((char *)e->solutions[i].mistake);
    }
    free((void *)e->solutions);
    for (size_t i = 0; i < e->nmistakes; i++) {
        free((char *)e->mistakes[i].id);
        free((char *)e->mistakes[i].title);
        free((char *)e->mistakes[i].explanation);
        free((char *)e->mistakes[i].hint);
        free((char *)e->mistakes[i].body);
    }
    free((void *)e->mistakes);
    free(e);
}
