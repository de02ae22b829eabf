/*
 * batch_input_jsonl.c - a JSON Lines export: one object per line with an
 * id key and a source key.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/input/batch_input.h"
#include "batch/input/csv.h"
#include "common/task.h"

/*
 * Reads one line into buf (at most max bytes are kept; the rest of a
 * longer line is read and dropped). Returns false at the end of the file.
 */
static bool read_line(FILE *f, char *buf, size_t max, size_t *len, bool *too_long)
{
    int c;
    size_t n = 0;
    *too_long = false;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (n < max)
            buf[n++] = (char)c;
        else
            *too_long = true;
    }
    buf[n] = '\0';
    *len = n;
    return c != EOF || n > 0 || *too_long;
}

static bool blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return false;
    return true;
}

/* The value of the best-ranked key that matches, or NULL. */
static json_t *find_key(json_t *obj, const char *want,
                        int (*match)(const char *, size_t, const char *))
{
    const char *key;
    json_t *value, *best = NULL;
    int best_rank = 0;
    json_object_foreach(obj, key, value) {
        int rank = match(key, strlen(key), want);
        if (rank >= 0 && (!best || rank < best_rank)) {
            best = value;
            best_rank = rank;
        }
    }
    return best;
}

/* Adds the input of one parsed line; false (with err) only on a fatal error. */
static bool add_object(const struct batch_input_options *o, struct batch_inputs *in,
                       json_t *obj, const char *location, size_t *with_id, char *err, size_t errsz)
{
    json_t *idv = find_key(obj, o->id_column, batch_input_match_id);
    json_t *src = find_key(obj, o->source_column, batch_input_match_source);
    char number[32];
    const char *id = NULL;
    size_t id_len = 0;
    if (json_is_string(idv)) {
        id = json_string_value(idv);
        id_len = json_string_length(idv);
        /* blanks around an id are a spreadsheet's, not the student's */
        id = csv_trim(id, &id_len);
    } else if (json_is_integer(idv)) {
        id_len = (size_t)snprintf(number, sizeof number, "%" JSON_INTEGER_FORMAT,
                                  json_integer_value(idv));
        id = number;
    }
    *with_id += idv != NULL;
    struct batch_input *e = batch_inputs_add(in, id, id_len, location, err, errsz);
    if (!e)
        return false;
    bool ok = true;
    if (idv && !id)
        ok = batch_input_refuse(e, "the id is not a string or a whole number");
    else if (!idv)
        ok = batch_input_refuse(e, "the object has no id key (%s)",
                                o->id_column ? o->id_column : "id, student_id or student");
    else if (!json_is_string(src))
        ok = e->refusal || batch_input_refuse(e, src ? "the source is not a string"
                                                     : "the object has no source key");
    else {
        /* one byte over the limit is kept, to be seen as too long */
        size_t len = json_string_length(src);
        if (len > TASK_MAX_SOURCE + 1)
            len = TASK_MAX_SOURCE + 1;
        in->held += len;
        if (in->held > BATCH_MAX_TABLE_SOURCES) {
            snprintf(err, errsz, "more than %u MiB of sources: split the file",
                     BATCH_MAX_TABLE_SOURCES >> 20);
            return false;
        }
        if (!(e->source = malloc(len + 1)))
            ok = false;
        else {
            memcpy(e->source, json_string_value(src), len);
            e->source[len] = '\0';
            e->source_len = len;
        }
    }
    if (!ok)
        snprintf(err, errsz, "out of memory");
    return ok;
}

bool batch_input_jsonl_load(const struct batch_input_options *o, FILE *f, const char *name,
                            const char *path, struct batch_inputs *in, char *err, size_t errsz)
{
    char *buf = malloc(BATCH_MAX_JSONL_LINE + 1);
    if (!buf) {
        snprintf(err, errsz, "out of memory");
        return false;
    }
    bool ok = true, too_long;
    size_t len, with_id = 0;
    unsigned long line = 0;
    while (ok && read_line(f, buf, BATCH_MAX_JSONL_LINE, &len, &too_long)) {
        line++;
        if (!too_long && blank(buf, len))
            continue;
        char location[4096];
        snprintf(location, sizeof location, "%s:%lu", name, line);
        if (too_long) {
            struct batch_input *e = batch_inputs_add(in, NULL, 0, location, err, errsz);
            ok = e && batch_input_refuse(e, "the line is over %d MiB",
                                         BATCH_MAX_JSONL_LINE >> 20);
            continue;
        }
        json_error_t jerr;
        /* NULs allowed: a body holding one is Rejected by the grader, with its line */
        json_t *obj = json_loadb(buf, len, JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, &jerr);
        if (!json_is_object(obj)) {
            struct batch_input *e = batch_inputs_add(in, NULL, 0, location, err, errsz);
            /* jansson's message quotes the line: made printable */
            char *why = obj ? NULL : batch_display(jerr.text, strlen(jerr.text));
            ok = e && batch_input_refuse(e, "the line is not a JSON object%s%s",
                                         why ? ": " : "", why ? why : "");
            free(why);
        } else {
            ok = add_object(o, in, obj, location, &with_id, err, errsz);
        }
        json_decref(obj);
    }
    if (ok && ferror(f)) {
        snprintf(err, errsz, "cannot read %s", path);
        ok = false;
    }
    if (ok && in->n && !with_id) {
        snprintf(err, errsz, "%s: no line has an id key (%s); name it with --id-column", path,
                 o->id_column ? o->id_column : "id, student_id or student");
        ok = false;
    }
    free(buf);
    return ok;
}
