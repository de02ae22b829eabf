/* default_layout.c - gradebook.csv's rows (default_layout.h). */
#include "gradebook/default_layout.h"

#include <stdlib.h>

#include <jansson.h>

#include "gradebook/csv_write.h"
#include "gradebook/layout.h"

static const char *const columns[GRADEBOOK_DEFAULT_COLUMNS] = {
    "id", "verdict", "score", "max_score", "halves_passed", "hidden_passed",
    "diagnosis_id", "diagnosis_title", "message", "input", "late", "best_on_time",
    "grading_ms",
};

const char *gradebook_default_column(size_t i)
{
    return i < GRADEBOOK_DEFAULT_COLUMNS ? columns[i] : "";
}

void gradebook_default_header(FILE *f)
{
    csv_write_row(f, columns, GRADEBOOK_DEFAULT_COLUMNS, CSV_GUARD_ALL);
}

/* The message column; malloc'd, NULL on OOM. */
static char *message_of(const struct verdict *v)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *m = open_memstream(&buf, &size);
    if (!m)
        return NULL;
    if (v->status == VERDICT_COMPILATION_ERROR && v->ndiags) {
        /* every error, one per line: the first alone often hides the cause */
        int shown = 0;
        for (size_t i = 0; i < v->ndiags && shown < 5; i++) {
            const struct diagnostic *d = &v->diags[i];
            if (d->severity != DIAG_ERROR)
                continue;
            fprintf(m, "%sline %d: %s", shown++ ? "\n" : "", d->line, d->message);
        }
        if (!shown && v->message)
            fputs(v->message, m);
    } else {
        if (v->message)
            fputs(v->message, m);
        if (!v->diagnosis && v->summary)
            fprintf(m, "%sWhere it fails: %s", v->message ? " " : "", v->summary);
    }
    if (fclose(m) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

void gradebook_default_row(FILE *f, const char *id, const char *input, const struct verdict *v,
                           const struct score *sc, const struct gradebook_late *late)
{
    char score[16], max[16], halves[16], hidden[16], ms[32] = "", nlate[16] = "", best[16] = "";
    if (late) {
        snprintf(nlate, sizeof nlate, "%u", late->late);
        if (late->best_on_time >= 0)
            snprintf(best, sizeof best, "%d", late->best_on_time);
    }
    snprintf(score, sizeof score, "%d", sc->score);
    snprintf(max, sizeof max, "%d", sc->max_score);
    snprintf(halves, sizeof halves, "%d", sc->halves_passed);
    snprintf(hidden, sizeof hidden, "%d", sc->hidden_passed);
    if (v->timings.total_ms >= 0)
        snprintf(ms, sizeof ms, "%.1f", v->timings.total_ms);
    char *message = message_of(v);
    const char *row[GRADEBOOK_DEFAULT_COLUMNS] = {
        id, verdict_status_to_str(v->status), score, max, halves, hidden,
        v->diagnosis ? v->diagnosis->id : "", v->diagnosis ? v->diagnosis->title : "",
        message ? message : (v->message ? v->message : ""), input, nlate, best, ms,
    };
    /* every cell guarded: ids, file names and compiler messages come from
     * outside, and the rest never needs it (a number, a verdict's name) */
    csv_write_row(f, row, GRADEBOOK_DEFAULT_COLUMNS, CSV_GUARD_ALL);
    free(message);
}

char *gradebook_record_location(const char *record_id, const char *name, bool unverified)
{
    char *s = NULL;
    if (asprintf(&s, "record %s, %s%s%s", record_id, name, unverified ? " " : "",
                 unverified ? GRADEBOOK_UNVERIFIED_MARK : "") < 0)
        return NULL;
    return s;
}

double gradebook_late_score(int score, bool last, const struct gradebook_late *late,
                            const struct late_policy *p)
{
    if (!late || !late->late)
        return score;
    double on_time = late->best_on_time > 0 ? late->best_on_time : 0;
    if (last)
        return late->chosen_late ? late_policy_counts(p, score, on_time) : score;
    /* best: the chosen attempt is the best of all, on time or late */
    return late->chosen_late ? late_policy_best(p, on_time, score)
                             : late_policy_best(p, score, late->best_late);
}

struct verdict *gradebook_stored_verdict(const char *bytes, size_t len)
{
    json_t *j = json_loadb(bytes ? bytes : "", bytes ? len : 0, 0, NULL);
    struct verdict *v = j ? verdict_from_json(j) : NULL;
    json_decref(j);
    return v ? v : verdict_new(VERDICT_INTERNAL_ERROR, GRADEBOOK_UNREADABLE_VERDICT);
}
