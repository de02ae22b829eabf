/* answer_bound.c - a verdict's size bounded by the grader (see answer_bound.h). */
#include "engine/answer_bound.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

size_t answer_bound_size(const struct verdict *v)
{
    json_t *j = verdict_to_json(v);
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(9)) : NULL;
    json_decref(j);
    size_t n = text ? strlen(text) : 0;
    free(text);
    return n;
}

/* What one diagnostic's JSON adds beyond its texts: its keys, its numbers,
 * the severity, quotes and a comma (about 90 bytes at most). */
#define DIAG_JSON_FIELDS 160u

/*
 * An upper bound of what v's compiler text adds to its JSON: every byte of
 * the log and of each diagnostic's texts written as at most six ("\u001f"),
 * and each diagnostic's own fields.
 */
static size_t compiler_text_bound(const struct verdict *v)
{
    size_t bytes = v->log ? strlen(v->log) + 2 : 0;
    size_t fields = 0;
    for (size_t k = 0; k < v->ndiags; k++) {
        bytes += v->diags[k].message ? strlen(v->diags[k].message) : 0;
        bytes += v->diags[k].original ? strlen(v->diags[k].original) : 0;
        fields += DIAG_JSON_FIELDS;
    }
    return 6 * bytes + fields;
}

/* The size of v without its log and diagnostics (v is as it was after). */
static size_t size_without_compiler_text(struct verdict *v)
{
    char *log = v->log;
    struct diagnostic *diags = v->diags;
    size_t ndiags = v->ndiags;
    v->log = NULL;
    v->diags = NULL;
    v->ndiags = 0;
    size_t size = answer_bound_size(v);
    v->log = log;
    v->diags = diags;
    v->ndiags = ndiags;
    return size;
}

/* Frees the diagnostics of v from index `keep` on. */
static void drop_diagnostics(struct verdict *v, size_t keep)
{
    for (size_t k = keep; k < v->ndiags; k++) {
        free(v->diags[k].message);
        free(v->diags[k].original);
    }
    v->ndiags = keep;
}

static bool within(size_t size, size_t max)
{
    return size != 0 && size <= max;
}

bool answer_bound_apply(struct verdict *v, size_t max)
{
    /* only compiler text grows with the body; the rest has a fixed shape */
    if (!v->log && v->ndiags == 0)
        return true;
    /* The compiler text is cut where it is made (compile_text.h), so its
     * worst case usually fits: then the large text is never written out
     * just to be measured (an echoing body's verdict is mostly its text). */
    size_t rest = size_without_compiler_text(v);
    if (within(rest, max) && rest + compiler_text_bound(v) <= max)
        return true;
    size_t size = answer_bound_size(v);
    if (within(size, max))
        return true;
    if (v->log) {
        free(v->log);
        v->log = NULL;
        v->log_truncated = true;
        size = answer_bound_size(v);
    }
    /* the first diagnostic only, then none */
    if (!within(size, max) && v->ndiags > 1) {
        drop_diagnostics(v, 1);
        size = answer_bound_size(v);
    }
    if (!within(size, max) && v->ndiags > 0) {
        drop_diagnostics(v, 0);
        size = answer_bound_size(v);
    }
    if (v->status == VERDICT_COMPILATION_ERROR) {
        if (v->ndiags > 0)
            verdict_set_message(v, "line %d: the compiler's messages about this body were too "
                                "long to show; this is the first of them.", v->diags[0].line);
        else
            verdict_set_message(v, "The compiler's messages about this body were too long to "
                                "show: look for long lines or text that the compiler repeats.");
        size = answer_bound_size(v);
    }
    return within(size, max);
}
